import { screen, waitFor } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { Property } from '../../contract/index.ts';
import { RateLimitMeter } from '../features/rate-limit/components/rate-limit-meter.tsx';
import { resetAccountScope } from '../lib/account-scope.ts';
import { resetRateLimit } from '../lib/rate-limit-store.ts';
import { apiError, fakeApi, json, location, Route, renderRoutes } from '../test/utils.tsx';
import { ProtectedLayout } from './layouts.tsx';
import { SearchRoute } from './routes/search.tsx';
import { SignInRoute } from './routes/sign-in.tsx';

/** Two accounts on one browser, as in a sales demo: the second must see nothing of the first. */
const CONGRESS = '1100 Congress Ave, Austin, TX 78701';
const resetAt = () => new Date(Date.now() + 40_000).toISOString();
const accounts = {
  pi_key_a: {
    account: { name: 'Harbor & Vale Realty', plan: 'professional' },
    accountId: 'acct-a',
    limit: 60,
  },
  pi_key_b: { account: { name: 'Northwind Title', plan: 'enterprise' }, accountId: 'acct-b', limit: 600 },
} as const;
type Key = keyof typeof accounts;

const property: Property = {
  id: 'pi_1',
  address: CONGRESS,
  source: 'Travis County Assessor',
  sourceKind: 'assessor',
  confidence: 'high',
  lastVerified: '2026-11-01',
  attributes: {},
};

/** A BFF with a cookie: who is signed in, and how many lookups each account has made. */
function fakeBff(signedIn: Key | null) {
  let who: Key | null = signedIn;
  const used = { pi_key_a: 1, pi_key_b: 1 };
  const budget = (key: Key) => ({
    limit: accounts[key].limit,
    remaining: accounts[key].limit - used[key],
    resetAt: resetAt(),
  });
  const session = (key: Key) =>
    json({
      account: accounts[key].account,
      accountId: accounts[key].accountId,
      demo: false,
      rateLimit: budget(key),
    });
  const api = fakeApi({
    'GET /api/config': () => json({ demoKeys: null, salesContact: null }),
    'GET /api/session': () => (who ? session(who) : apiError(401, 'unauthenticated', 'No session')),
    'POST /api/session': ({ body }) => {
      who = (body as { apiKey: Key }).apiKey;
      return session(who);
    },
    'DELETE /api/session': () => {
      who = null;
      return new Response(null, { status: 204 });
    },
    'GET /api/properties/resolve': () => {
      if (!who) return apiError(401, 'unauthenticated', 'Ended');
      used[who]++;
      return json({ property, rateLimit: budget(who) });
    },
    'GET /api/properties/search': () => json({ items: [], rateLimit: null }),
  });
  return {
    api,
    endSession: () => {
      who = null;
    },
    resolves: () => api.calls.filter((c) => c.url.pathname === '/api/properties/resolve').length,
  };
}

const routes = (
  <>
    <Route path="/sign-in" element={<SignInRoute />} />
    <Route element={<ProtectedLayout headerExtra={<RateLimitMeter />} />}>
      <Route path="/search" element={<SearchRoute />} />
    </Route>
  </>
);

async function signIn(key: Key) {
  await userEvent.type(await screen.findByLabelText('API key'), key);
  await userEvent.click(screen.getByRole('button', { name: 'Sign in' }));
}

beforeEach(() => {
  localStorage.clear();
  resetAccountScope();
  resetRateLimit();
});
afterEach(() => vi.unstubAllGlobals());

describe('each account sees only its own data', () => {
  it('A searches and signs out; B signs in: no recent searches, no cached record, B’s own meter', async () => {
    const bff = fakeBff('pi_key_a');
    renderRoutes(routes, '/search');
    const field = await screen.findByRole('combobox', { name: 'Address' });
    await userEvent.type(field, '1100 congress ave austin{Enter}');
    expect(await screen.findByRole('heading', { name: CONGRESS })).toBeInTheDocument();
    expect(screen.getByText(/^58 of 60 lookups left/)).toBeInTheDocument();
    expect(localStorage.getItem('proplens.recent-searches')).toContain(CONGRESS);

    await userEvent.click(screen.getByRole('button', { name: 'Sign out' }));
    await waitFor(() => expect(location.pathname).toBe('/sign-in'));
    expect(localStorage.getItem('proplens.recent-searches')).toBeNull();
    await signIn('pi_key_b');

    expect(await screen.findByText('Northwind Title')).toBeInTheDocument();
    expect(location.pathname + location.search).toBe('/search');
    expect(screen.queryByRole('heading', { name: 'Recent searches' })).not.toBeInTheDocument();
    expect(screen.queryByText(CONGRESS)).not.toBeInTheDocument();
    expect(screen.getByText(/^599 of 600 lookups left/)).toBeInTheDocument();
    expect(screen.queryByText(/of 60 lookups left/)).not.toBeInTheDocument();

    // Its suggestions list offers nothing of A's either.
    await userEvent.click(screen.getByRole('combobox', { name: 'Address' }));
    expect(screen.queryByRole('option', { name: `Recent search: ${CONGRESS}` })).not.toBeInTheDocument();

    // The same address is looked up afresh for B: A's cached record is gone.
    await userEvent.type(
      screen.getByRole('combobox', { name: 'Address' }),
      '1100 congress ave austin{Enter}',
    );
    expect(await screen.findByRole('heading', { name: CONGRESS })).toBeInTheDocument();
    expect(bff.resolves()).toBe(2);
  });

  it('sign-out clears the query cache at once: nothing of A’s is cached before anyone signs in again', async () => {
    fakeBff('pi_key_a');
    const { queryClient } = renderRoutes(routes, '/search');
    const field = await screen.findByRole('combobox', { name: 'Address' });
    await userEvent.type(field, '1100 congress ave austin{Enter}');
    expect(await screen.findByRole('heading', { name: CONGRESS })).toBeInTheDocument();
    const accountsQueries = () =>
      queryClient
        .getQueryCache()
        .getAll()
        .map((q) => q.queryKey)
        .filter(([first]) => first !== 'config' && first !== 'session');
    // What sign-out must drop: A's record is cached now.
    expect(accountsQueries()).toContainEqual(expect.arrayContaining(['property', 'resolve']));

    await userEvent.click(screen.getByRole('button', { name: 'Sign out' }));
    await waitFor(() => expect(location.pathname).toBe('/sign-in'));
    // On the key screen, before the next sign-in (whose own clearing must not be what saves us): only the
    // app's configuration and an empty session are left.
    expect(await screen.findByLabelText('API key')).toBeInTheDocument();
    expect(accountsQueries()).toEqual([]);
    expect(queryClient.getQueryData(['session'])).toBeNull();
  });

  it('A’s session ends; B signs in on the key screen: B is not taken to A’s last search', async () => {
    const bff = fakeBff('pi_key_a');
    renderRoutes(routes, '/search');
    const field = await screen.findByRole('combobox', { name: 'Address' });
    await userEvent.type(field, '1100 congress ave austin{Enter}');
    expect(await screen.findByRole('heading', { name: CONGRESS })).toBeInTheDocument();

    // The session ends (idle timeout) while A is away; the next lookup sends the page to the key screen.
    bff.endSession();
    await userEvent.clear(field);
    await userEvent.type(field, '233 S Wacker Dr, Chicago IL{Enter}');
    expect(await screen.findByText('Your session has ended')).toBeInTheDocument();
    expect(location.search).toContain('next=');

    await signIn('pi_key_b');
    expect(await screen.findByText('Northwind Title')).toBeInTheDocument();
    expect(location.pathname + location.search).toBe('/search');
    expect(screen.queryByText(/Wacker|Congress Ave, Austin/)).not.toBeInTheDocument();
    expect(localStorage.getItem('proplens.recent-searches')).toBeNull();
  });

  it('a session found on load that is another account’s (signed in from another tab) clears A’s data', async () => {
    localStorage.setItem('proplens.account', 'acct-a');
    localStorage.setItem(
      'proplens.recent-searches',
      JSON.stringify({ account: 'acct-a', items: [CONGRESS] }),
    );
    fakeBff('pi_key_b');
    renderRoutes(routes, '/search');
    expect(await screen.findByText('Northwind Title')).toBeInTheDocument();
    expect(screen.queryByText(CONGRESS)).not.toBeInTheDocument();
    expect(localStorage.getItem('proplens.recent-searches')).toBeNull();
    expect(localStorage.getItem('proplens.account')).toBe('acct-b');
  });
});
