import { screen, waitFor } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { CustodyState } from '../../../contract/custody.ts';
import { fakeApi, json, Route, renderRoutes } from '../../test/utils.tsx';
import { ProtectedLayout } from '../layouts.tsx';
import { ActivityRoute } from './activity.tsx';
import { SettingsRoute } from './settings.tsx';

const routes = (
  <Route element={<ProtectedLayout />}>
    <Route path="/settings" element={<SettingsRoute />} />
    <Route path="/activity" element={<ActivityRoute />} />
  </Route>
);

const session = (keyName: string | null) => ({
  account: { name: 'Harbor & Vale Realty', plan: 'professional' },
  accountId: 'acct-a',
  demo: false,
  keyFingerprint: '3f9a1c2e',
  keyName,
});

afterEach(() => vi.unstubAllGlobals());

/** The account's custody as GET /api/custody answers it: off, nothing to say, unless `state` says otherwise. */
const custody = (state: Partial<CustodyState>): CustodyState => ({
  available: true,
  on: false,
  keyFingerprint: null,
  keyName: null,
  since: null,
  problem: null,
  problemAt: null,
  unavailableReason: null,
  ...state,
});

describe('/settings', () => {
  it('names this key for the account, linked from the header, and Activity shows the name', async () => {
    let name: string | null = null;
    const api = fakeApi({
      'GET /api/session': () => json(session(name)),
      'PUT /api/session/name': async ({ body }) => {
        name = (body as { name: string }).name || null;
        return json(session(name));
      },
      'GET /api/account/keys': () => json({ keys: name ? [{ fingerprint: '3f9a1c2e', name }] : [] }),
      'GET /api/custody': () => json(custody({})),
      'GET /api/webhooks': () => json({ endpoints: [] }),
      'GET /api/activity': () =>
        json({
          entries: [
            {
              id: '1',
              at: '2026-11-24T10:00:00.000Z',
              kind: 'resolve',
              keyFingerprint: '3f9a1c2e',
              session: 's1',
              query: '1100 Congress Ave',
              outcome: 'matched',
              propertyId: 'P1',
              source: 'Travis Central Appraisal District',
              confidence: 'high',
              lastVerified: '2026-11-01',
              cached: false,
              cachedAt: null,
              upstreamRequestId: null,
              reviewId: null,
              row: null,
            },
          ],
          nextCursor: null,
        }),
    });
    renderRoutes(routes, '/settings');
    expect(await screen.findByRole('heading', { name: 'Settings' })).toBeInTheDocument();
    expect(screen.getByRole('link', { name: 'Settings' })).toHaveAttribute('aria-current', 'page');
    const field = screen.getByRole('textbox', { name: 'Name' });
    await userEvent.type(field, 'Dana Ortiz');
    await userEvent.click(screen.getByRole('button', { name: 'Save name' }));
    expect(await screen.findByText('Saved: you are Dana Ortiz.')).toBeInTheDocument();
    expect(api.calls.find((c) => c.method === 'PUT')?.body).toEqual({
      name: 'Dana Ortiz',
      fingerprint: '3f9a1c2e',
    });

    await userEvent.click(screen.getByRole('link', { name: 'Activity' }));
    const table = await screen.findByRole('table', { name: 'Activity' });
    expect(table).toHaveTextContent('Dana Ortiz');
    expect(table).toHaveTextContent('key 3f9a1c2e');
  });

  it("turns 'Work while I'm signed out' on and off with this sign-in's key, and says what it means", async () => {
    let state = custody({});
    const on = custody({
      on: true,
      keyFingerprint: '3f9a1c2e',
      keyName: 'Dana Ortiz',
      since: '2026-11-24T10:00:00.000Z',
    });
    const api = fakeApi({
      'GET /api/session': () => json(session('Dana Ortiz')),
      'GET /api/custody': () => json(state),
      'GET /api/webhooks': () => json({ endpoints: [] }),
      'PUT /api/custody': () => {
        state = on;
        return json(state);
      },
      'DELETE /api/custody': () => {
        state = custody({});
        return json(state);
      },
    });
    renderRoutes(routes, '/settings');
    const toggle = await screen.findByRole('switch', { name: "Work while I'm signed out" });
    await waitFor(() => expect(toggle).toBeEnabled());
    expect(toggle).toHaveAttribute('aria-checked', 'false');
    expect(toggle).toHaveAccessibleDescription(
      /signing out no longer stops them.*encrypted.*Any key of this account can turn it off/,
    );
    await userEvent.click(toggle);
    await waitFor(() => expect(toggle).toHaveAttribute('aria-checked', 'true'));
    expect(await screen.findByText(/^On since .*key 3f9a1c2e \(Dana Ortiz\)\.$/)).toBeInTheDocument();
    // The browser sends no key: the server keeps the one this sign-in holds.
    const put = api.calls.find((c) => c.method === 'PUT' && c.url.pathname === '/api/custody');
    expect(put?.body).toBeUndefined();
    expect(put?.headers.get('X-Requested-With')).toBe('proplens');
    await userEvent.click(toggle);
    await waitFor(() => expect(toggle).toHaveAttribute('aria-checked', 'false'));
    expect(api.calls.some((c) => c.method === 'DELETE' && c.url.pathname === '/api/custody')).toBe(true);
  });

  it('says when the service refused the stored key, and why a demo cannot keep one', async () => {
    let state = custody({
      keyFingerprint: '3f9a1c2e',
      problem: 'refused',
      problemAt: '2026-11-25T09:30:00.000Z',
    });
    fakeApi({
      'GET /api/session': () => json(session(null)),
      'GET /api/custody': () => json(state),
      'GET /api/webhooks': () => json({ endpoints: [] }),
    });
    const { unmount } = renderRoutes(routes, '/settings');
    expect(
      await screen.findByText(/^The service refused the stored key on .*2026.*; sign in to resume\.$/),
    ).toBeInTheDocument();
    expect(screen.getByRole('switch', { name: "Work while I'm signed out" })).toHaveAttribute(
      'aria-checked',
      'false',
    );
    unmount();
    state = custody({ unavailableReason: 'The demo keeps no keys: every visitor shares its account.' });
    renderRoutes(routes, '/settings');
    expect(await screen.findByText(/The demo keeps no keys/)).toBeInTheDocument();
    expect(screen.getByRole('switch', { name: "Work while I'm signed out" })).toBeDisabled();
  });
});
