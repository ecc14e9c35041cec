import { screen } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { Property } from '../../../../contract/index.ts';
import { apiError, fakeApi, json, location, Route, renderRoutes } from '../../../test/utils.tsx';
import { AreaListing } from './area-listing.tsx';

const record = (id: string, address: string, zip: string | null, over: Partial<Property> = {}): Property => ({
  id,
  address,
  source: 'Travis Central Appraisal District',
  sourceKind: 'assessor',
  confidence: 'high',
  lastVerified: '2026-10-01',
  attributes: zip ? { zip } : {},
  ...over,
});

const render = (onOpen = vi.fn()) => {
  renderRoutes(
    <Route path="/search" element={<AreaListing zip="78701" onOpen={onOpen} />} />,
    '/search?address=78701',
  );
  return onOpen;
};

const searchCalls = (api: ReturnType<typeof fakeApi>) =>
  api.calls.filter((c) => c.url.pathname === '/api/properties/search').map((c) => c.url.searchParams);

afterEach(() => vi.unstubAllGlobals());

describe('a ZIP code alone', () => {
  it('lists the properties in it, each openable with its confidence, and offers to review the area', async () => {
    const api = fakeApi({
      'GET /api/properties/search': () =>
        json({
          items: [
            record('a', '1100 Congress Ave, Austin, TX 78701', '78701'),
            record('b', '40 Clinton St, Austin, TX 78701', null, { confidence: 'low' }),
            // The list endpoint matches words: a house number that happens to be the ZIP is not in it.
            record('x', '78701 Ranch Rd, Dime Box, TX 77853', '77853'),
          ],
          rateLimit: null,
        }),
    });
    const onOpen = render();
    expect(await screen.findByRole('heading', { name: 'Properties in ZIP code 78701' })).toBeInTheDocument();
    const list = screen.getByRole('list', { name: 'Properties in ZIP code 78701' });
    expect(list.querySelectorAll('li')).toHaveLength(2);
    expect(screen.getByRole('link', { name: '40 Clinton St, Austin, TX 78701' })).toHaveAccessibleDescription(
      'Low confidence',
    );
    expect(screen.getByText('All 2 listed. Open one to see its record.')).toBeInTheDocument();
    expect(screen.getByRole('link', { name: 'Review this area' })).toHaveAttribute(
      'href',
      '/review?area=78701',
    );
    expect(screen.queryByRole('button', { name: 'Show more' })).not.toBeInTheDocument();
    expect(searchCalls(api).map((p) => p.get('q'))).toEqual(['78701']);

    await userEvent.click(screen.getByRole('link', { name: '1100 Congress Ave, Austin, TX 78701' }));
    expect(onOpen).toHaveBeenCalledWith(expect.objectContaining({ id: 'a' }));
    expect(location.search).toBe('?address=1100+Congress+Ave%2C+Austin%2C+TX+78701');
  });

  it('pages with Show more and the cursor, and moves focus to the first property it added', async () => {
    const api = fakeApi({
      'GET /api/properties/search': ({ url }) =>
        url.searchParams.get('cursor') === 'next-1'
          ? json({ items: [record('c', '52 Clinton St, Austin, TX 78701', '78701')], rateLimit: null })
          : json({
              items: [
                record('a', '1100 Congress Ave, Austin, TX 78701', '78701'),
                record('b', '40 Clinton St, Austin, TX 78701', '78701'),
              ],
              nextCursor: 'next-1',
              rateLimit: null,
            }),
    });
    render();
    expect(await screen.findByText('Showing the first 2. Open one to see its record.')).toBeInTheDocument();
    await userEvent.click(screen.getByRole('button', { name: 'Show more' }));
    const added = await screen.findByRole('link', { name: '52 Clinton St, Austin, TX 78701' });
    expect(added).toHaveFocus();
    expect(screen.getByText('All 3 listed. Open one to see its record.')).toBeInTheDocument();
    expect(searchCalls(api).map((p) => [p.get('q'), p.get('cursor')])).toEqual([
      ['78701', null],
      ['78701', 'next-1'],
    ]);
  });

  it('says so when the ZIP has no properties', async () => {
    fakeApi({ 'GET /api/properties/search': () => json({ items: [], rateLimit: null }) });
    render();
    expect(await screen.findByText('No properties found in ZIP code 78701')).toBeInTheDocument();
  });

  it('a refusal is explained as for any search (rate limited is never "none found")', async () => {
    fakeApi({
      'GET /api/properties/search': () =>
        apiError(429, 'rate_limited', 'Used up', { resetAt: new Date(Date.now() + 60_000).toISOString() }),
    });
    render();
    expect(await screen.findByText(/Rate limit reached/)).toBeInTheDocument();
    expect(screen.queryByText(/No properties found/)).not.toBeInTheDocument();
  });
});
