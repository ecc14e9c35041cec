import { act, screen } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { Property, RateLimit } from '../../contract/index.ts';
import { RateLimitMeter } from '../features/rate-limit/components/rate-limit-meter.tsx';
import { resetAccountScope } from '../lib/account-scope.ts';
import { resetRateLimit } from '../lib/rate-limit-store.ts';
import { apiError, fakeApi, type Handler, json, Route, renderRoutes, resolveMiss } from '../test/utils.tsx';
import { ProtectedLayout } from './layouts.tsx';
import { SearchRoute } from './routes/search.tsx';

/** The header meter on the search screen: every answer moves it, and a rate-limit hold is explained. */
const CONGRESS = '1100 Congress Ave, Austin, TX 78701';
const property: Property = {
  id: 'pi_1',
  address: CONGRESS,
  source: 'Travis County Assessor',
  sourceKind: 'assessor',
  confidence: 'high',
  lastVerified: '2026-11-01',
  attributes: {},
};
const inS = (s: number) => new Date(Date.now() + s * 1000).toISOString();
const budget = (limit: number, remaining: number, resetInS: number, windowS?: number): RateLimit => ({
  limit,
  remaining,
  resetAt: inS(resetInS),
  ...(windowS ? { windowS } : {}),
});

const routes = (
  <Route element={<ProtectedLayout headerExtra={<RateLimitMeter />} />}>
    <Route path="/search" element={<SearchRoute />} />
  </Route>
);

function render(resolve: Handler, rateLimit: RateLimit, path = '/search') {
  const api = fakeApi({
    'GET /api/session': () =>
      json({
        account: { name: 'Harbor & Vale Realty', plan: 'professional' },
        accountId: 'acct-a',
        demo: false,
        rateLimit,
      }),
    'GET /api/config': () => json({ demoKeys: null, salesContact: null }),
    'GET /api/properties/resolve': resolve,
    'GET /api/properties/search': () => json({ items: [], rateLimit: null }),
  });
  renderRoutes(routes, path);
  return api;
}

beforeEach(() => {
  localStorage.clear();
  resetAccountScope();
  resetRateLimit();
  vi.useFakeTimers({ shouldAdvanceTime: true, now: new Date('2026-11-21T12:00:00Z') });
});
afterEach(() => {
  vi.useRealTimers();
  vi.unstubAllGlobals();
});

describe('the meter follows every answer', () => {
  it('a not-found answer spent a lookup, and the meter says so', async () => {
    render(
      () => resolveMiss('not_found', 'No', { candidates: [] }, budget(60, 58, 42, 60)),
      budget(60, 59, 43, 60),
    );
    expect(await screen.findByText('59 of 60 lookups left · resets in 43 s')).toBeInTheDocument();
    await userEvent.type(screen.getByRole('combobox', { name: 'Address' }), '99999 Congress Ave{Enter}');
    expect(await screen.findByText(/No property matches/)).toBeInTheDocument();
    expect(screen.getByText('58 of 60 lookups left · resets in 42 s')).toBeInTheDocument();
  });

  it('after a rate-limited lookup is retried by itself, the meter shows what the retry used', async () => {
    let calls = 0;
    render(
      () =>
        ++calls === 1
          ? apiError(429, 'rate_limited', 'Used up', { resetAt: inS(5), rateLimit: budget(4, 0, 5, 12) })
          : json({ property, rateLimit: budget(4, 3, 12, 12) }),
      budget(4, 1, 5, 12),
      '/search?address=1100%20Congress',
    );
    expect(await screen.findByText(/Rate limit reached/)).toBeInTheDocument();
    // The banner says the real window, not "per minute".
    expect(
      screen.getByText(/allows your key 4 lookups every 12 seconds, and they are used up/),
    ).toBeInTheDocument();
    expect(screen.getByText('0 of 4 lookups left · resets in 5 s')).toBeInTheDocument();
    await act(async () => {
      await vi.advanceTimersByTimeAsync(5_500);
    });
    expect(await screen.findByRole('heading', { name: CONGRESS })).toBeInTheDocument();
    expect(calls).toBe(2);
    expect(screen.getByText('3 of 4 lookups left · resets in 12 s')).toBeInTheDocument();
  });
});

describe('what a search costs', () => {
  it('opening a record spends one lookup: no suggestions are fetched for text the page put in the field', async () => {
    const typed = '1100 congres ave austn';
    const match = {
      typed,
      matched: CONGRESS,
      changes: [{ kind: 'corrected', part: 'street', typed: 'congres', matched: 'Congress' }],
    };
    const api = render(
      () => json({ property, match, rateLimit: budget(60, 57, 40, 60) }),
      budget(60, 58, 41, 60),
      `/search?address=${encodeURIComponent(typed)}`,
    );
    // The field shows the matched address once the record is in.
    expect(await screen.findByRole('heading', { name: CONGRESS })).toBeInTheDocument();
    expect(screen.getByRole('combobox', { name: 'Address' })).toHaveValue(CONGRESS);
    await act(async () => {
      await vi.advanceTimersByTimeAsync(2_000);
    });
    expect(api.calls.map((c) => c.url.pathname)).not.toContain('/api/properties/search');
  });
});

describe('a lookup held for the rate limit', () => {
  it('says it is waiting for the reset, with a live countdown, then shows the record', async () => {
    let answer: (r: Response) => void = () => {};
    render(
      () => new Promise<Response>((r) => (answer = r)),
      // The last answer said nothing is left, and the window resets in 8 s.
      budget(60, 0, 8, 60),
      '/search?address=1100%20Congress',
    );
    expect(await screen.findByText('Waiting for the rate limit to reset, 8 s')).toBeInTheDocument();
    expect(screen.getByRole('status', { name: 'Looking up the property' })).toBeInTheDocument();
    await act(async () => {
      await vi.advanceTimersByTimeAsync(3_000);
    });
    expect(screen.getByText('Waiting for the rate limit to reset, 5 s')).toBeInTheDocument();
    await act(async () => {
      answer(json({ property, rateLimit: budget(60, 59, 60, 60) }));
    });
    expect(await screen.findByRole('heading', { name: CONGRESS })).toBeInTheDocument();
    expect(screen.queryByText(/Waiting for the rate limit/)).not.toBeInTheDocument();
  });

  it('shows only the skeleton when lookups are left', async () => {
    render(() => new Promise<Response>(() => {}), budget(60, 12, 8, 60), '/search?address=1100%20Congress');
    expect(await screen.findByRole('status', { name: 'Looking up the property' })).toBeInTheDocument();
    expect(screen.queryByText(/Waiting for the rate limit/)).not.toBeInTheDocument();
  });
});
