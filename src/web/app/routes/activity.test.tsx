import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { AuditEntry } from '../../../contract/index.ts';
import { fakeApi, json, Route, renderRoutes, signedIn } from '../../test/utils.tsx';
import { ProtectedLayout } from '../layouts.tsx';
import { ActivityRoute } from './activity.tsx';

const entry = (id: number, over: Partial<AuditEntry> = {}): AuditEntry => ({
  id: String(id),
  at: new Date(Date.UTC(2026, 10, 24, 10, 0, id)).toISOString(),
  kind: 'resolve',
  keyFingerprint: '3f9a1c2e',
  session: 's1',
  query: `${id} Congress Ave, Austin TX`,
  outcome: 'matched',
  propertyId: `P${id}`,
  source: 'Travis County Assessor',
  confidence: 'high',
  lastVerified: '2026-11-09',
  cached: id % 2 === 0,
  cachedAt: id % 2 === 0 ? '2026-11-24T09:00:00.000Z' : null,
  upstreamRequestId: null,
  reviewId: null,
  row: null,
  ...over,
});

const routes = (
  <Route element={<ProtectedLayout />}>
    <Route path="/activity" element={<ActivityRoute />} />
  </Route>
);

afterEach(() => vi.unstubAllGlobals());

describe('/activity', () => {
  it('names the signed-in key as the rest of the app does, a demo visitor included', async () => {
    fakeApi({
      'GET /api/session': () =>
        json({
          account: { name: 'PropLens Demo', plan: 'professional' },
          accountId: 'acct-demo',
          demo: true,
          keyFingerprint: '3f9a1c2e',
          keyName: 'Visitor 3F9A',
        }),
      // The account's named keys hold no visitor: its name is the session's.
      'GET /api/account/keys': () => json({ keys: [{ fingerprint: 'aa11bb22', name: 'Dana Ortiz' }] }),
      'GET /api/activity': () =>
        json({ entries: [entry(2), entry(1, { keyFingerprint: 'aa11bb22' })], nextCursor: null }),
    });
    renderRoutes(routes, '/activity');
    const table = await screen.findByRole('table', { name: 'Activity' });
    await waitFor(() => expect(within(table).getAllByRole('row')[1]).toHaveTextContent('Visitor 3F9A'));
    const [, mine, colleague] = within(table).getAllByRole('row');
    expect(mine).toHaveTextContent('key 3f9a1c2e');
    expect(colleague).toHaveTextContent(/Dana Ortiz.*key aa11bb22/);
  });

  it('lists the account’s lookups newest first, filters them, and pages back by cursor', async () => {
    const api = fakeApi({
      'GET /api/session': signedIn(),
      'GET /api/activity': ({ url }) =>
        url.searchParams.get('cursor') === '2'
          ? json({ entries: [entry(1)], nextCursor: null })
          : url.searchParams.get('outcome') === 'not_found'
            ? json({
                entries: [
                  entry(9, {
                    outcome: 'not_found',
                    propertyId: null,
                    source: null,
                    confidence: null,
                    lastVerified: null,
                  }),
                ],
                nextCursor: null,
              })
            : json({ entries: [entry(3), entry(2)], nextCursor: '2' }),
    });
    renderRoutes(routes, '/activity');
    expect(await screen.findByRole('heading', { name: 'Activity' })).toBeInTheDocument();
    const table = await screen.findByRole('table', { name: 'Activity' });
    const rows = within(table).getAllByRole('row');
    expect(rows).toHaveLength(3);
    expect(rows[1]).toHaveTextContent('3 Congress Ave, Austin TX');
    expect(rows[1]).toHaveTextContent('key 3f9a1c2e');
    expect(rows[2]).toHaveTextContent(/Yes.*fetched/);
    await userEvent.click(screen.getByRole('button', { name: 'Show older entries' }));
    await waitFor(() =>
      expect(within(screen.getByRole('table', { name: 'Activity' })).getAllByRole('row')).toHaveLength(4),
    );
    expect(screen.getByText('That is the oldest entry kept.')).toBeInTheDocument();

    await userEvent.selectOptions(screen.getByRole('combobox', { name: 'Outcome' }), 'Not found');
    await userEvent.type(screen.getByRole('searchbox', { name: 'Address or property ID' }), 'Congress');
    await userEvent.click(screen.getByRole('button', { name: 'Apply filters' }));
    await waitFor(() =>
      expect(within(screen.getByRole('table', { name: 'Activity' })).getAllByRole('row')).toHaveLength(2),
    );
    const last = api.calls.filter((c) => c.url.pathname === '/api/activity').at(-1);
    expect(last?.url.searchParams.get('outcome')).toBe('not_found');
    expect(last?.url.searchParams.get('q')).toBe('Congress');
    expect(screen.getByRole('link', { name: 'Activity' })).toHaveAttribute('aria-current', 'page');
  });

  it('opens with the filters named in its address, and keeps the applied ones there', async () => {
    const api = fakeApi({
      'GET /api/session': signedIn(),
      'GET /api/activity': () => json({ entries: [entry(3)], nextCursor: null }),
    });
    renderRoutes(routes, '/activity?outcome=not_found&key=key%203F9A1C2E');
    await screen.findByRole('table', { name: 'Activity' });
    const first = api.calls.find((c) => c.url.pathname === '/api/activity');
    expect(first?.url.searchParams.get('outcome')).toBe('not_found');
    // As the table shows a key: the server reads "key 3F9A1C2E" as 3f9a1c2e.
    expect(first?.url.searchParams.get('key')).toBe('key 3F9A1C2E');
    expect(screen.getByRole('combobox', { name: 'Outcome' })).toHaveValue('not_found');
    expect(screen.getByRole('textbox', { name: 'Key' })).toHaveValue('key 3F9A1C2E');

    await userEvent.clear(screen.getByRole('textbox', { name: 'Key' }));
    await userEvent.click(screen.getByRole('button', { name: 'Apply filters' }));
    await waitFor(() => {
      const last = api.calls.filter((c) => c.url.pathname === '/api/activity').at(-1);
      expect(last?.url.searchParams.has('key')).toBe(false);
      expect(last?.url.searchParams.get('outcome')).toBe('not_found');
    });
  });

  it('says which review a row was of, linked, and the day each record was verified, as a record says it', async () => {
    fakeApi({
      'GET /api/session': signedIn(),
      'GET /api/activity': () =>
        json({
          entries: [entry(3, { kind: 'review_row', reviewId: 'rv_Q3tape', row: 12 }), entry(2)],
          nextCursor: null,
        }),
    });
    renderRoutes(routes, '/activity');
    const table = await screen.findByRole('table', { name: 'Activity' });
    const [, ofReview, searched] = within(table).getAllByRole('row');
    expect(
      within(ofReview as HTMLElement).getByRole('link', { name: 'row 13 of review rv_Q3tape' }),
    ).toHaveAttribute('href', '/review/rv_Q3tape?row=13');
    expect(within(searched as HTMLElement).queryByRole('link')).not.toBeInTheDocument();
    // The day written out as the record and review results write it, its age beside it; never the ISO date.
    expect(ofReview).toHaveTextContent(/ago November 9, 2026/);
    expect(table).not.toHaveTextContent('2026-11-09');
    expect(within(ofReview as HTMLElement).getByText('November 9, 2026')).toHaveAttribute(
      'datetime',
      '2026-11-09',
    );
  });

  it('says what to fix when the server refuses a filter', async () => {
    fakeApi({
      'GET /api/session': signedIn(),
      'GET /api/activity': () =>
        json(
          { error: { code: 'bad_request', message: 'from: a date from 2000 to 2100, as YYYY-MM-DD' } },
          400,
        ),
    });
    renderRoutes(routes, '/activity');
    expect(await screen.findByRole('alert')).toHaveTextContent('from: a date from 2000 to 2100');
  });
});
