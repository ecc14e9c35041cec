import { screen } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, describe, expect, it, vi } from 'vitest';
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
});
