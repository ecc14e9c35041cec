import { act, fireEvent, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { Property } from '../../../contract/index.ts';
import { resetRecentSearchesCache } from '../../features/search/lib/recent-searches.ts';
import { resetRateLimit } from '../../lib/rate-limit-store.ts';
import {
  apiError,
  fakeApi,
  type Handler,
  json,
  location,
  Route,
  renderRoutes,
  resolveMiss,
} from '../../test/utils.tsx';
import { ProtectedLayout } from '../layouts.tsx';
import { SearchRoute } from './search.tsx';
import { SignInRoute } from './sign-in.tsx';

const property = (address: string, over: Partial<Property> = {}): Property => ({
  id: `pi_${address.length}`,
  address,
  source: 'Travis Central Appraisal District',
  sourceKind: 'assessor',
  confidence: 'high',
  lastVerified: new Date(Date.now() - 12 * 86_400_000).toISOString().slice(0, 10),
  attributes: {},
  ...over,
});
const CONGRESS = '1100 Congress Ave, Austin, TX 78701';
const rateLimit = { limit: 60, remaining: 57, resetAt: new Date(Date.now() + 30_000).toISOString() };
const session: Handler = () =>
  json({
    account: { name: 'Harbor & Vale Realty', plan: 'professional' },
    accountId: 'acct-harbor',
    demo: false,
  });
const config: Handler = () => json({ demoKeys: null, salesContact: null });

const routes = (
  <>
    <Route path="/sign-in" element={<SignInRoute />} />
    <Route element={<ProtectedLayout />}>
      <Route path="/search" element={<SearchRoute />} />
    </Route>
  </>
);

const resolveCalls = (api: ReturnType<typeof fakeApi>) =>
  api.calls.filter((c) => c.url.pathname === '/api/properties/resolve');

beforeEach(() => {
  localStorage.clear();
  resetRecentSearchesCache();
});
afterEach(() => {
  vi.useRealTimers();
  vi.unstubAllGlobals();
});

describe('search', () => {
  it('focuses the Address field on load, and "/" focuses it from anywhere', async () => {
    fakeApi({ 'GET /api/session': session, 'GET /api/config': config });
    renderRoutes(routes, '/search');
    const field = await screen.findByRole('combobox', { name: 'Address' });
    expect(field).toHaveFocus();
    field.blur();
    fireEvent.keyDown(document.body, { key: '/' });
    expect(field).toHaveFocus();
  });

  it('puts the address in the URL, resolves it, and shows the record; a repeat search sends no request', async () => {
    const api = fakeApi({
      'GET /api/session': session,
      'GET /api/config': config,
      'GET /api/properties/resolve': () => json({ property: property(CONGRESS), rateLimit }),
    });
    renderRoutes(routes, '/search');
    const field = await screen.findByRole('combobox', { name: 'Address' });
    await userEvent.type(field, '1100 congress avenue austin tx{Enter}');
    expect(await screen.findByRole('heading', { name: CONGRESS })).toBeInTheDocument();
    expect(location.search).toBe('?address=1100+congress+avenue+austin+tx');
    expect(screen.getByTestId('reliability-summary')).toHaveTextContent(
      'High confidence: from Travis Central Appraisal District, verified 12 days ago.',
    );
    expect(resolveCalls(api)).toHaveLength(1);

    await userEvent.clear(field);
    await userEvent.type(field, '  1100 CONGRESS avenue   austin tx{Enter}');
    expect(await screen.findByRole('heading', { name: CONGRESS })).toBeInTheDocument();
    expect(resolveCalls(api)).toHaveLength(1);
  });

  it('prints the record from its Print button', async () => {
    fakeApi({
      'GET /api/session': session,
      'GET /api/config': config,
      'GET /api/properties/resolve': () => json({ property: property(CONGRESS), rateLimit }),
    });
    const print = vi.spyOn(window, 'print').mockImplementation(() => {});
    renderRoutes(routes, `/search?address=${encodeURIComponent(CONGRESS)}`);
    expect(await screen.findByRole('heading', { name: CONGRESS })).toBeInTheDocument();
    await userEvent.click(screen.getByRole('button', { name: 'Print' }));
    expect(print).toHaveBeenCalledTimes(1);
    print.mockRestore();
  });

  it('shows a skeleton while loading', async () => {
    fakeApi({
      'GET /api/session': session,
      'GET /api/config': config,
      'GET /api/properties/resolve': () => new Promise(() => {}),
    });
    renderRoutes(routes, '/search?address=1100%20Congress');
    expect(await screen.findByRole('status', { name: 'Looking up the property' })).toBeInTheDocument();
  });

  it('offers suggestions as a listbox the keyboard can drive, and remembers recent searches', async () => {
    const api = fakeApi({
      'GET /api/session': session,
      'GET /api/config': config,
      'GET /api/properties/search': () =>
        json({
          items: [
            property(CONGRESS),
            property('1102 Congress Ave, Austin, TX 78701', { id: 'pi_1102', confidence: 'low' }),
          ],
          rateLimit,
        }),
      'GET /api/properties/resolve': () => json({ property: property(CONGRESS), rateLimit }),
    });
    renderRoutes(routes, '/search');
    const field = await screen.findByRole('combobox', { name: 'Address' });
    await userEvent.type(field, 'congress');
    const list = await screen.findByRole('listbox', { name: 'Suggestions' });
    expect(field).toHaveAttribute('aria-expanded', 'true');
    // Each suggestion says its confidence in words (the badge's, compact), so a pick is informed.
    const options = within(list).getAllByRole('option');
    expect(options.map((o) => o.getAttribute('aria-label'))).toEqual([
      `${CONGRESS}, High confidence`,
      '1102 Congress Ave, Austin, TX 78701, Low confidence',
    ]);
    expect(within(options[1] as HTMLElement).getByText('Low')).toBeInTheDocument();
    await userEvent.keyboard('{ArrowDown}{ArrowDown}{ArrowUp}');
    expect(field).toHaveAttribute('aria-activedescendant', options[0]?.id);
    expect(options[0]).toHaveAttribute('aria-selected', 'true');
    await userEvent.keyboard('{Enter}');
    // The suggestion carried the record: it shows at once and costs no resolve request.
    expect(await screen.findByRole('heading', { name: CONGRESS })).toBeInTheDocument();
    expect(resolveCalls(api)).toHaveLength(0);
    expect(JSON.parse(localStorage.getItem('proplens.recent-searches') ?? '{}')).toEqual({
      account: 'acct-harbor',
      items: [CONGRESS],
    });

    await userEvent.clear(field);
    expect(await screen.findByRole('option', { name: `Recent search: ${CONGRESS}` })).toBeInTheDocument();
    await userEvent.keyboard('{Escape}');
    expect(field).toHaveAttribute('aria-expanded', 'false');
  });

  it('asks for no suggestions while an intersection is typed: two streets joined name no property', async () => {
    vi.useFakeTimers({ shouldAdvanceTime: true });
    try {
      const api = fakeApi({
        'GET /api/session': session,
        'GET /api/config': config,
        'GET /api/properties/search': () => json({ items: [property(CONGRESS)], rateLimit }),
      });
      renderRoutes(routes, '/search');
      const field = await screen.findByRole('combobox', { name: 'Address' });
      await userEvent.type(field, 'Congress Ave & 6th');
      await vi.advanceTimersByTimeAsync(2_000);
      await waitFor(() =>
        expect(screen.getByRole('combobox', { name: 'Address' })).toHaveValue('Congress Ave & 6th'),
      );
      await vi.advanceTimersByTimeAsync(2_000);
      expect(api.calls.filter((c) => c.url.pathname === '/api/properties/search')).toHaveLength(0);
      // A street name alone still gets its suggestions.
      await userEvent.clear(field);
      await userEvent.type(field, 'Congress Ave');
      await vi.advanceTimersByTimeAsync(2_000);
      await waitFor(() =>
        expect(api.calls.filter((c) => c.url.pathname === '/api/properties/search').length).toBeGreaterThan(
          0,
        ),
      );
    } finally {
      vi.useRealTimers();
    }
  });

  it('pauses suggestions when few lookups are left, and says so; Search still works', async () => {
    vi.useFakeTimers({ shouldAdvanceTime: true });
    const low = { limit: 60, remaining: 6, resetAt: new Date(Date.now() + 30_000).toISOString() };
    const api = fakeApi({
      'GET /api/session': session,
      'GET /api/config': config,
      'GET /api/properties/search': () =>
        json({
          items: [property('1102 Congress Ave, Austin, TX 78701', { id: 'pi_1102' })],
          rateLimit: low,
        }),
      'GET /api/properties/resolve': () => json({ property: property(CONGRESS), rateLimit: low }),
    });
    renderRoutes(routes, '/search');
    const field = await screen.findByRole('combobox', { name: 'Address' });
    // A search tells the page how many lookups are left: 6 of 60, at the reserve.
    await userEvent.type(field, `${CONGRESS}{Enter}`);
    expect(await screen.findByRole('heading', { name: CONGRESS })).toBeInTheDocument();
    expect(
      screen.getByText(/Suggestions are paused to save your last lookups; Search still works\./),
    ).toBeVisible();
    await userEvent.clear(field);
    await userEvent.type(field, '1102 congress');
    // Well past the pause in typing that would otherwise ask for suggestions.
    await act(async () => {
      await vi.advanceTimersByTimeAsync(2000);
    });
    expect(api.calls.filter((c) => c.url.pathname === '/api/properties/search')).toHaveLength(0);
    expect(screen.queryByRole('listbox', { name: 'Suggestions' })).not.toBeInTheDocument();

    // The window resets (30 s): it is full again, and suggestions come back without another search.
    await act(async () => {
      await vi.advanceTimersByTimeAsync(30_000);
    });
    expect(screen.getByText(/Suggestions count as lookups\./)).toBeVisible();
    await userEvent.type(field, ' ave');
    expect(await screen.findByRole('listbox', { name: 'Suggestions' })).toBeInTheDocument();
  });

  it('clears recent searches on request', async () => {
    localStorage.setItem(
      'proplens.recent-searches',
      JSON.stringify({ account: 'acct-harbor', items: [CONGRESS] }),
    );
    resetRecentSearchesCache();
    fakeApi({ 'GET /api/session': session, 'GET /api/config': config });
    renderRoutes(routes, '/search');
    await userEvent.click(await screen.findByRole('button', { name: 'Clear recent searches' }));
    expect(screen.queryByText(CONGRESS)).not.toBeInTheDocument();
    expect(localStorage.getItem('proplens.recent-searches')).toBeNull();
  });
});

describe('every other state', () => {
  const renderWith = (resolve: Handler, path = '/search?address=100%20Main%20St') => {
    const api = fakeApi({
      'GET /api/session': session,
      'GET /api/config': config,
      'GET /api/properties/resolve': resolve,
    });
    renderRoutes(routes, path);
    return api;
  };

  it('not found: says so, with "did you mean" links', async () => {
    renderWith(() =>
      resolveMiss('not_found', 'No', {
        candidates: [{ id: 'a', address: '521 Morrow Rd, Austin, TX 78751', confidence: 'low' }],
      }),
    );
    expect(await screen.findByText('No property matches “100 Main St”')).toBeInTheDocument();
    const suggestion = screen.getByRole('link', { name: '521 Morrow Rd, Austin, TX 78751' });
    expect(suggestion).toHaveAttribute('href', '/search?address=521+Morrow+Rd%2C+Austin%2C+TX+78751');
    expect(suggestion).toHaveAccessibleDescription('Low confidence');
  });

  it('not found: says why when the service said, and never asks for a ZIP code already given', async () => {
    renderWith(
      () => resolveMiss('not_found', 'No', { candidates: [], reason: 'no_such_street' }),
      '/search?address=12%20Zz%20St%2078701',
    );
    expect(await screen.findByText('No property matches “12 Zz St 78701”')).toBeInTheDocument();
    expect(
      screen.getByText(
        'No street of that name is known in ZIP code 78701. Check the street’s spelling, and the ZIP code.',
      ),
    ).toBeInTheDocument();
    expect(screen.queryByText(/add the city and state or the ZIP code/)).not.toBeInTheDocument();
  });

  it('ambiguous: lets the person pick one of the candidates, all of them listed', async () => {
    renderWith(() =>
      resolveMiss('ambiguous', 'Many', {
        candidates: [
          { id: 'a', address: '100 Main St, Hope, AK 99605' },
          { id: 'b', address: '100 Main St, Dallas, TX 75376' },
        ],
      }),
    );
    expect(await screen.findByText('More than one property matches')).toBeInTheDocument();
    expect(screen.getByText(/“100 Main St” matches 2 properties in different places/)).toBeInTheDocument();
    expect(screen.getByText(/All 2 listed, by state and city/)).toBeInTheDocument();
    expect(screen.getAllByRole('link', { name: /^100 Main St/ })).toHaveLength(2);
    expect(screen.queryByRole('button', { name: 'Show more' })).not.toBeInTheDocument();
  });

  it('unit not found: says only the building is listed when the service named no units', async () => {
    renderWith(() =>
      resolveMiss('unit_not_found', 'No unit', {
        candidates: [{ id: 'b', address: '10 Collier Ln, Plainfield, IA 50666' }],
      }),
    );
    expect(await screen.findByText('The building is known, but not that unit')).toBeInTheDocument();
    expect(
      screen.getByText(/Below is the building’s own record; the service listed none of its units\./),
    ).toBeInTheDocument();
    expect(screen.queryByText(/units we know are listed/)).not.toBeInTheDocument();
    const list = screen.getByRole('list', { name: 'Building' });
    expect(
      within(list).getByRole('link', { name: '10 Collier Ln, Plainfield, IA 50666' }),
    ).toBeInTheDocument();
  });

  it('unit not found: names the building and how many units are listed', async () => {
    renderWith(() =>
      resolveMiss('unit_not_found', 'No unit', {
        candidates: [
          { id: 'b', address: '107 N Bridge St, Austin, TX 78701', confidence: 'high' },
          { id: 'u1', address: '107 N Bridge St Apt 101, Austin, TX 78701', confidence: 'medium' },
          { id: 'u2', address: '107 N Bridge St Apt 102, Austin, TX 78701' },
        ],
      }),
    );
    expect(
      await screen.findByText(/Below are the building’s own record and 2 units the service listed\./),
    ).toBeInTheDocument();
    const list = screen.getByRole('list', { name: 'Building and units' });
    // Confidence where the service stated it: the link's description, in words.
    expect(
      within(list).getByRole('link', { name: '107 N Bridge St Apt 101, Austin, TX 78701' }),
    ).toHaveAccessibleDescription('Medium confidence');
    expect(
      within(list).getByRole('link', { name: '107 N Bridge St Apt 102, Austin, TX 78701' }),
    ).not.toHaveAttribute('aria-describedby');
  });

  it('rate limited: a live countdown, never "not found", then an automatic retry', async () => {
    vi.useFakeTimers({ shouldAdvanceTime: true });
    let calls = 0;
    renderWith(() => {
      calls++;
      return calls === 1
        ? apiError(429, 'rate_limited', 'Used up', { resetAt: new Date(Date.now() + 5000).toISOString() })
        : json({ property: property(CONGRESS), rateLimit });
    });
    expect(await screen.findByText(/Rate limit reached/)).toBeInTheDocument();
    expect(screen.queryByText(/No property matches/)).not.toBeInTheDocument();
    expect(screen.getByText('5 s')).toBeInTheDocument();
    await act(async () => {
      await vi.advanceTimersByTimeAsync(2000);
    });
    expect(screen.getByText('3 s')).toBeInTheDocument();
    await act(async () => {
      await vi.advanceTimersByTimeAsync(3500);
    });
    expect(await screen.findByRole('heading', { name: CONGRESS })).toBeInTheDocument();
    expect(calls).toBe(2);
  });

  it.each([['upstream_unavailable'], ['upstream_timeout'], ['upstream_invalid']])(
    '%s: explains and retries on request',
    async (code) => {
      let calls = 0;
      renderWith(() =>
        ++calls === 1 ? apiError(502, code, 'Down') : json({ property: property(CONGRESS), rateLimit }),
      );
      expect(await screen.findByText('The property service is not answering')).toBeInTheDocument();
      await userEvent.click(screen.getByRole('button', { name: 'Try again' }));
      expect(await screen.findByRole('heading', { name: CONGRESS })).toBeInTheDocument();
    },
  );

  it('offline: says so and retries on request', async () => {
    let calls = 0;
    renderWith(() => {
      if (++calls === 1) throw new TypeError('Failed to fetch');
      return json({ property: property(CONGRESS), rateLimit });
    });
    expect(await screen.findByText('No connection')).toBeInTheDocument();
    await userEvent.click(screen.getByRole('button', { name: 'Try again' }));
    expect(await screen.findByRole('heading', { name: CONGRESS })).toBeInTheDocument();
  });

  it('session expired: back to the key screen, saying so, then back to the same search', async () => {
    // The session ends between loading the page and the lookup; signing in again brings the search back.
    let phase: 'live' | 'ended' | 'renewed' = 'live';
    fakeApi({
      'GET /api/session': () =>
        phase === 'ended' ? apiError(401, 'unauthenticated', 'Ended') : session({} as never),
      'GET /api/config': config,
      'GET /api/properties/resolve': () => {
        if (phase === 'renewed') return json({ property: property(CONGRESS), rateLimit });
        phase = 'ended';
        return apiError(401, 'unauthenticated', 'Ended');
      },
      'POST /api/session': () => {
        phase = 'renewed';
        return session({} as never);
      },
    });
    renderRoutes(routes, '/search?address=1100%20Congress');
    expect(await screen.findByText('Your session has ended')).toBeInTheDocument();
    expect(location.pathname).toBe('/sign-in');
    await userEvent.type(screen.getByLabelText('API key'), 'pi_demo_professional');
    await userEvent.click(screen.getByRole('button', { name: 'Sign in' }));
    expect(await screen.findByRole('heading', { name: CONGRESS })).toBeInTheDocument();
    expect(location.pathname).toBe('/search');
    expect(location.search).toBe('?address=1100%20Congress');
  });
});

describe('a match that changed what was typed', () => {
  const TYPED = '1100 Congres Ave, Austn, TX';
  const match = {
    typed: TYPED,
    matched: CONGRESS,
    changes: [
      { kind: 'corrected', part: 'street', typed: 'Congres', matched: 'Congress' },
      { kind: 'corrected', part: 'city', typed: 'Austn', matched: 'Austin' },
      { kind: 'added', part: 'zip', typed: '', matched: '78701' },
    ],
  };

  it('is explained above the record; the field and the tab title show the matched address', async () => {
    const api = fakeApi({
      'GET /api/session': session,
      'GET /api/config': config,
      'GET /api/properties/resolve': () => json({ property: property(CONGRESS), rateLimit, match }),
    });
    renderRoutes(routes, `/search?${new URLSearchParams({ address: TYPED })}`);
    const notice = await screen.findByRole('region', { name: 'How the address was matched' });
    expect(notice).toHaveTextContent('corrected: Congres → Congress, Austn → Austin; added: ZIP 78701.');
    expect(notice).toHaveTextContent(`You typed: “${TYPED}”`);
    // Above the record, in reading order.
    const record = screen.getByRole('article', { name: CONGRESS });
    expect(notice.compareDocumentPosition(record) & Node.DOCUMENT_POSITION_FOLLOWING).toBeTruthy();
    expect(screen.getByRole('combobox', { name: 'Address' })).toHaveValue(CONGRESS);
    expect(document.title).toBe(`${CONGRESS} · PropLens`);
    // The URL keeps what was typed: a reload or a shared link explains the match again.
    expect(location.search).toBe(`?${new URLSearchParams({ address: TYPED })}`);
    // Searching the address now in the field costs nothing: it is the record already shown.
    await userEvent.click(screen.getByRole('button', { name: 'Search' }));
    expect(await screen.findByRole('heading', { name: CONGRESS })).toBeInTheDocument();
    expect(location.search).toBe(`?${new URLSearchParams({ address: CONGRESS })}`);
    expect(resolveCalls(api)).toHaveLength(1);
    expect(screen.queryByRole('region', { name: 'How the address was matched' })).not.toBeInTheDocument();
  });

  it('an exact or merely normalised match says nothing, and the field keeps what was typed', async () => {
    fakeApi({
      'GET /api/session': session,
      'GET /api/config': config,
      'GET /api/properties/resolve': () => json({ property: property(CONGRESS), rateLimit, match: null }),
    });
    renderRoutes(routes, '/search?address=1100+congress+avenue%2C+austin+tx+78701');
    expect(await screen.findByRole('heading', { name: CONGRESS })).toBeInTheDocument();
    expect(screen.queryByRole('region', { name: 'How the address was matched' })).not.toBeInTheDocument();
    expect(screen.getByRole('combobox', { name: 'Address' })).toHaveValue(
      '1100 congress avenue, austin tx 78701',
    );
  });

  it('the record says when and by which account it was retrieved', async () => {
    fakeApi({
      'GET /api/session': session,
      'GET /api/config': config,
      'GET /api/properties/resolve': () => json({ property: property(CONGRESS), rateLimit }),
    });
    renderRoutes(routes, '/search?address=1100+Congress');
    expect(await screen.findByText(/Retrieved at .+ by Harbor & Vale Realty\./)).toBeInTheDocument();
  });
});

describe('a match on another directional than typed', () => {
  it('asks "Did you mean …?" instead of showing the record as the answer, and shows it when asked to', async () => {
    const TYPED = '270 W State St, Boise, ID 83702';
    const EAST = '270 E State St, Boise, ID 83702';
    fakeApi({
      'GET /api/session': session,
      'GET /api/config': config,
      'GET /api/properties/resolve': () =>
        json({
          property: property(EAST),
          rateLimit,
          match: {
            typed: TYPED,
            matched: EAST,
            changes: [{ kind: 'corrected', part: 'street', typed: 'W', matched: 'E' }],
            quality: 'changed_meaning',
            reason:
              "W → E: the service's record names a different street part than the one typed, possibly another property",
          },
        }),
    });
    renderRoutes(routes, `/search?${new URLSearchParams({ address: TYPED })}`);
    expect(await screen.findByRole('heading', { name: `Did you mean ${EAST}?` })).toBeInTheDocument();
    expect(screen.getByText(/Needs a look: W → E/)).toBeInTheDocument();
    expect(screen.queryByRole('article', { name: EAST })).not.toBeInTheDocument();
    await userEvent.click(screen.getByRole('button', { name: 'Yes, show this record' }));
    expect(await screen.findByRole('article', { name: EAST })).toBeInTheDocument();
  });
});

describe('a ZIP code alone', () => {
  it('lists the area instead of resolving it, and opening a property costs no request', async () => {
    const api = fakeApi({
      'GET /api/session': session,
      'GET /api/config': config,
      'GET /api/properties/search': () =>
        json({ items: [property(CONGRESS, { attributes: { zip: '78701' } })], rateLimit }),
      'GET /api/properties/resolve': () => json({ property: property(CONGRESS), rateLimit }),
    });
    renderRoutes(routes, '/search?address=78701');
    expect(await screen.findByRole('heading', { name: 'Properties in ZIP code 78701' })).toBeInTheDocument();
    expect(document.title).toBe('78701 · PropLens');
    await userEvent.click(screen.getByRole('link', { name: CONGRESS }));
    expect(await screen.findByRole('heading', { name: CONGRESS, level: 2 })).toBeInTheDocument();
    expect(resolveCalls(api)).toHaveLength(0);
  });
});

describe('a ZIP code alone, while the rate limit is spent', () => {
  it('says the listing waits for the reset instead of showing a skeleton that seems stuck', async () => {
    resetRateLimit(); // earlier tests' windows are not this one's
    const spent = {
      limit: 60,
      remaining: 0,
      resetAt: new Date(Date.now() + 8_000).toISOString(),
      windowS: 60,
    };
    fakeApi({
      'GET /api/session': () =>
        json({
          account: { name: 'Harbor & Vale Realty', plan: 'professional' },
          accountId: 'acct-harbor',
          demo: false,
          rateLimit: spent,
        }),
      'GET /api/config': config,
      'GET /api/properties/search': () => new Promise<Response>(() => {}),
    });
    renderRoutes(routes, '/search?address=78701');
    expect(await screen.findByText(/^Waiting for the rate limit to reset, /)).toBeInTheDocument();
    expect(screen.getByRole('status', { name: 'Looking up the properties' })).toBeInTheDocument();
  });
});

describe('an intersection or a landmark', () => {
  it.each([
    ['Congress Ave & 6th St', 'is a street corner'],
    ['corner of Lavaca and 11th', 'is a street corner'],
    ['Texas State Capitol', 'has no house number'],
  ])('“%s” is answered with what PropLens looks up and an example, no lookup spent', async (text, why) => {
    const api = fakeApi({
      'GET /api/session': session,
      'GET /api/config': config,
      'GET /api/properties/resolve': () => json({ property: property(CONGRESS), rateLimit }),
    });
    renderRoutes(routes, `/search?${new URLSearchParams({ address: text })}`);
    const title = await screen.findByText(`PropLens looks up street addresses; try ${CONGRESS}`);
    const answer = title.closest('[role="status"]') as HTMLElement;
    expect(answer).toHaveTextContent(`PropLens looks up street addresses; try ${CONGRESS}`);
    expect(answer).toHaveTextContent(`“${text}” ${why}`);
    expect(within(answer).getByRole('link', { name: CONGRESS })).toHaveAttribute(
      'href',
      `/search?${new URLSearchParams({ address: CONGRESS })}`,
    );
    expect(resolveCalls(api)).toHaveLength(0);

    // Asked for all the same, the service is asked.
    await userEvent.click(within(answer).getByRole('button', { name: `Search for “${text}” anyway` }));
    expect(await screen.findByRole('heading', { name: CONGRESS })).toBeInTheDocument();
    expect(resolveCalls(api)).toHaveLength(1);
  });

  it('an address, a ZIP code or a parcel number goes to the service as before', async () => {
    const api = fakeApi({
      'GET /api/session': session,
      'GET /api/config': config,
      'GET /api/properties/resolve': () => json({ property: property(CONGRESS), rateLimit }),
    });
    renderRoutes(routes, `/search?${new URLSearchParams({ address: '1100 Congress Ave & Co, Austin TX' })}`);
    expect(await screen.findByRole('heading', { name: CONGRESS })).toBeInTheDocument();
    expect(resolveCalls(api)).toHaveLength(1);
    expect(screen.queryByText(/PropLens looks up street addresses/)).not.toBeInTheDocument();
  });
});

describe('the demo tour', () => {
  const demoSession: Handler = () =>
    json({ account: { name: 'Demo Realty', plan: 'professional' }, accountId: 'acct-demo', demo: true });

  it('is shown to demo keys only: the showcase searches in order, each a link with what it shows', async () => {
    fakeApi({ 'GET /api/session': demoSession, 'GET /api/config': config });
    renderRoutes(routes, '/search');
    const tour = await screen.findByRole('region', { name: 'Demo tour' });
    const stops = within(tour).getAllByRole('listitem');
    expect(
      stops.map((s) => within(s).queryByRole('link')?.textContent ?? s.querySelector('p')?.textContent),
    ).toEqual([
      'High confidence',
      'Medium confidence',
      'Low confidence, stale',
      'A typo',
      'Ambiguous',
      'A unit',
      'A whole ZIP code',
      'A review',
      'Rate limit',
    ]);
    // The review stop opens the reviews page, where a demo key runs the sample.
    expect(within(tour).getByRole('link', { name: 'A review' })).toHaveAttribute('href', '/review');
    // The ambiguous stop claims no count of its own: the screen shows the service's total.
    expect(within(stops[4] as HTMLElement).queryByText(/hundreds/i)).not.toBeInTheDocument();
    expect(within(tour).getByRole('link', { name: 'A typo' })).toHaveAttribute(
      'href',
      '/search?address=1100+Congres+Ave%2C+Austn%2C+TX',
    );
    expect(within(stops[2] as HTMLElement).getByText(/summary warns/)).toBeInTheDocument();
  });

  it('is not shown to other keys', async () => {
    fakeApi({ 'GET /api/session': session, 'GET /api/config': config });
    renderRoutes(routes, '/search');
    await screen.findByRole('combobox', { name: 'Address' });
    expect(screen.queryByRole('region', { name: 'Demo tour' })).not.toBeInTheDocument();
    expect(screen.queryByText('Demo tour')).not.toBeInTheDocument();
  });

  it('next to a result, says which stop this is and links the next', async () => {
    fakeApi({
      'GET /api/session': demoSession,
      'GET /api/config': config,
      'GET /api/properties/resolve': () =>
        json({
          property: property('233 S Wacker Dr, Chicago, IL 60606', { confidence: 'medium' }),
          rateLimit,
        }),
    });
    renderRoutes(routes, '/search?address=233+S+Wacker+Dr%2C+Chicago+IL');
    const tour = await screen.findByRole('region', { name: 'Demo tour' });
    expect(tour).toHaveTextContent('Demo tour: stop 2 of 9, medium confidence');
    expect(within(tour).getByRole('link', { name: 'Medium confidence' })).toHaveAttribute(
      'aria-current',
      'step',
    );
    await userEvent.click(within(tour).getByRole('link', { name: 'Next: low confidence, stale →' }));
    expect(location.search).toBe('?address=742+Evergreen+Terrace%2C+Springfield%2C+OR');
  });
});
