import { screen, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { Candidate, Property } from '../../../../contract/index.ts';
import { fakeApi, json, location, Route, renderRoutes } from '../../../test/utils.tsx';
import { resolveQueryOptions } from '../api/resolve-property.ts';
import { AmbiguousCandidates } from './ambiguous-candidates.tsx';
import type { RenderCompare } from './compare-candidates.tsx';

const record = (id: string, address: string, over: Partial<Property['attributes']> = {}): Property => ({
  id,
  address,
  source: 'County Assessor',
  sourceKind: 'assessor',
  confidence: 'medium',
  lastVerified: '2026-10-01',
  attributes: over,
});
const CANDIDATES: Candidate[] = [
  { id: 'tx1', address: '100 Main St, Dallas, TX 75376', confidence: 'high' },
  { id: 'ak1', address: '100 Main St, Hope, AK 99605', confidence: 'low' },
  { id: 'tx0', address: '100 Main St, Austin, TX 78701' },
];

/** Stands in for the review feature's comparison: lists what it was given to compare. */
const renderCompare: RenderCompare = (candidates) => (
  <ul aria-label="Compared">
    {candidates.map((c) => (
      <li key={c.id}>{c.address}</li>
    ))}
  </ul>
);

const render = (candidates: Candidate[], total: number | null) =>
  renderRoutes(
    <Route
      path="/search"
      element={
        <AmbiguousCandidates
          address="100 Main St"
          candidates={candidates}
          total={total}
          renderCompare={renderCompare}
        />
      }
    />,
    '/search?address=100+Main+St',
  );

const searchCalls = (api: ReturnType<typeof fakeApi>) =>
  api.calls.filter((c) => c.url.pathname === '/api/properties/search').map((c) => c.url.searchParams);

afterEach(() => vi.unstubAllGlobals());

describe('ambiguous candidates', () => {
  it('says how many there are in all, ordered by state then city, grouped by state, with confidence', async () => {
    fakeApi({});
    render(CANDIDATES, 569);
    expect(screen.getByText(/“100 Main St” matches 569 properties in different places/)).toBeInTheDocument();
    expect(screen.getByText('Showing 3 of 569, by state and city.')).toBeInTheDocument();
    const groups = screen.getAllByRole('list', { name: /^Matching properties in / });
    expect(groups.map((g) => g.getAttribute('aria-label'))).toEqual([
      'Matching properties in Alaska',
      'Matching properties in Texas',
    ]);
    const texas = within(groups[1] as HTMLElement).getAllByRole('link');
    expect(texas.map((l) => l.textContent)).toEqual([
      '100 Main St, Austin, TX 78701',
      '100 Main St, Dallas, TX 75376',
    ]);
    expect(screen.getByRole('link', { name: '100 Main St, Dallas, TX 75376' })).toHaveAccessibleDescription(
      'High confidence',
    );
    expect(screen.getByRole('link', { name: '100 Main St, Hope, AK 99605' })).toHaveAccessibleDescription(
      'Low confidence',
    );
  });

  it('pages through the rest with the search list and its cursors, keeping only the same street', async () => {
    const api = fakeApi({
      'GET /api/properties/search': ({ url }) =>
        url.searchParams.get('cursor') === null
          ? json({
              items: [
                record('tx1', '100 Main St, Dallas, TX 75376'),
                record('ca1', '100 Main St, Danville, CA 94526', { city: 'Danville', state: 'CA' }),
                record('u1', '100 Main St Unit 101, Northway, AK 99764'),
                record('n1', '100 N Main St, Ava, NY 13303'),
              ],
              nextCursor: 'c2',
              rateLimit: null,
            })
          : json({
              items: [record('oh1', '100 Main St, Geneva, OH 44041')],
              rateLimit: null,
            }),
    });
    render(CANDIDATES, 5);
    await userEvent.click(screen.getByRole('button', { name: 'Show more' }));
    expect(await screen.findByText('Showing 4 of 5, by state and city.')).toBeInTheDocument();
    expect(screen.getByRole('list', { name: 'Matching properties in California' })).toBeInTheDocument();
    expect(screen.queryByText(/Unit 101/)).not.toBeInTheDocument();
    expect(screen.queryByText(/100 N Main St/)).not.toBeInTheDocument();

    await userEvent.click(screen.getByRole('button', { name: 'Show more' }));
    expect(await screen.findByText('All 5 listed, by state and city.')).toBeInTheDocument();
    expect(screen.getByRole('link', { name: '100 Main St, Geneva, OH 44041' })).toHaveAccessibleDescription(
      'Medium confidence',
    );
    expect(screen.queryByRole('button', { name: 'Show more' })).not.toBeInTheDocument();
    expect(searchCalls(api).map((p) => [p.get('q'), p.get('cursor')])).toEqual([
      ['100 Main St', null],
      ['100 Main St', 'c2'],
    ]);
  });

  it('compares every candidate listed so far, those "Show more" brought included', async () => {
    fakeApi({
      'GET /api/properties/search': () =>
        json({
          items: [record('ca1', '100 Main St, Danville, CA 94526', { city: 'Danville', state: 'CA' })],
          rateLimit: null,
        }),
    });
    render(CANDIDATES, 4);
    await userEvent.click(screen.getByRole('button', { name: 'Show more' }));
    expect(await screen.findByText('All 4 listed, by state and city.')).toBeInTheDocument();
    await userEvent.click(screen.getByRole('button', { name: 'Compare' }));
    const compared = within(screen.getByRole('list', { name: 'Compared' })).getAllByRole('listitem');
    expect(compared.map((li) => li.textContent).sort()).toEqual([
      '100 Main St, Austin, TX 78701',
      '100 Main St, Dallas, TX 75376',
      '100 Main St, Danville, CA 94526',
      '100 Main St, Hope, AK 99605',
    ]);
  });

  it('reads on past pages that bring nothing new (a few at most), then says the service has no more', async () => {
    let page = 0;
    const api = fakeApi({
      'GET /api/properties/search': () => {
        page++;
        return json({
          items: [record('tx1', '100 Main St, Dallas, TX 75376')],
          nextCursor: page < 10 ? `c${page}` : undefined,
          rateLimit: null,
        });
      },
    });
    render(CANDIDATES, 40);
    await userEvent.click(screen.getByRole('button', { name: 'Show more' }));
    await vi.waitFor(() => expect(searchCalls(api)).toHaveLength(4));
    // Nothing new in four pages: it stopped rather than spend the rate limit, and another click reads on.
    await vi.waitFor(() => expect(screen.getByRole('button', { name: 'Show more' })).toBeEnabled());
    expect(searchCalls(api)).toHaveLength(4);
    expect(screen.getByText('Showing 3 of 40, by state and city.')).toBeInTheDocument();
  });

  it('says when the service lists no more of them', async () => {
    fakeApi({
      'GET /api/properties/search': () => json({ items: [], rateLimit: null }),
    });
    render(CANDIDATES, 40);
    await userEvent.click(screen.getByRole('button', { name: 'Show more' }));
    expect(await screen.findByText(/The service lists no more of them: narrow it down/)).toBeInTheDocument();
    expect(screen.queryByRole('button', { name: 'Show more' })).not.toBeInTheDocument();
  });

  it('opens a candidate from the search list at no cost: its record is already known', async () => {
    fakeApi({
      'GET /api/properties/search': () =>
        json({ items: [record('oh1', '100 Main St, Geneva, OH 44041')], rateLimit: null }),
    });
    const { queryClient } = render(CANDIDATES, 4);
    await userEvent.click(screen.getByRole('button', { name: 'Show more' }));
    await userEvent.click(await screen.findByRole('link', { name: '100 Main St, Geneva, OH 44041' }));
    expect(
      queryClient.getQueryData(resolveQueryOptions('100 Main St, Geneva, OH 44041').queryKey),
    ).toMatchObject({
      property: { id: 'oh1' },
    });
    expect(location.search).toBe('?address=100+Main+St%2C+Geneva%2C+OH+44041');
  });

  it('narrows by state or city with a more precise search', async () => {
    fakeApi({});
    render(CANDIDATES, 569);
    const form = screen.getByRole('form', { name: 'Narrow down' });
    const narrow = within(form).getByRole('button', { name: 'Narrow' });
    expect(narrow).toBeDisabled();
    await userEvent.selectOptions(within(form).getByLabelText('State'), 'Texas');
    await userEvent.click(narrow);
    expect(location.search).toBe('?address=100+Main+St%2C+TX');

    await userEvent.type(within(form).getByLabelText('City'), 'Dallas');
    await userEvent.click(narrow);
    expect(location.search).toBe('?address=100+Main+St%2C+Dallas%2C+TX');
  });

  it('leaves the state open when the listed matches share one but more are not listed yet', () => {
    fakeApi({});
    const alaska = CANDIDATES.filter((c) => c.address.includes(', AK '));
    render(alaska, 8266);
    const form = screen.getByRole('form', { name: 'Narrow down' });
    expect(within(form).getByLabelText('State')).toHaveValue('');
  });

  it('leaves the state open when the service gives no total, whatever the first page holds', () => {
    fakeApi({});
    const alaska = Array.from({ length: 10 }, (_, i) => ({
      id: `ak${i}`,
      address: `100 Main St, Town ${i}, AK 9960${i}`,
    }));
    render(alaska, null);
    const form = screen.getByRole('form', { name: 'Narrow down' });
    expect(within(form).getByLabelText('State')).toHaveValue('');
  });

  it('without a total, offers more only when the list looks cut (ten or more)', async () => {
    fakeApi({});
    const { unmount } = render(CANDIDATES, null);
    expect(screen.getByText('All 3 listed, by state and city.')).toBeInTheDocument();
    expect(screen.queryByRole('button', { name: 'Show more' })).not.toBeInTheDocument();
    unmount();
    const ten = Array.from({ length: 10 }, (_, i) => ({
      id: `c${i}`,
      address: `100 Main St, Town ${i}, TX`,
    }));
    render(ten, null);
    expect(screen.getByRole('button', { name: 'Show more' })).toBeInTheDocument();
  });

  it('offers no narrowing for the units of one building', async () => {
    fakeApi({});
    render(
      [
        { id: 'u1', address: '100 Main St Unit 101, Northway, AK 99764' },
        { id: 'u2', address: '100 Main St Unit 102, Northway, AK 99764' },
      ],
      null,
    );
    expect(screen.getByText(/matches 2 properties\. Pick the one you mean/)).toBeInTheDocument();
    expect(screen.queryByRole('form', { name: 'Narrow down' })).not.toBeInTheDocument();
  });
});
