import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { ReviewSummary, SessionResponse } from '../../contract/index.ts';
import { resetAccountScope } from '../lib/account-scope.ts';
import { fakeApi, json, location, Probe, Route, renderRoutes } from '../test/utils.tsx';
import { ProtectedLayout } from './layouts.tsx';
import { SignInRoute } from './routes/sign-in.tsx';

/**
 * Two prospects try the same demo key at once: one account, a key (and a fingerprint) of their own each. A
 * signs out; only A's reviews are A's to lose, and A may export them first.
 */
const A = 'aaaa1111';
const B = 'bbbb2222';

const review = (id: string, createdBy: string, status: ReviewSummary['status']): ReviewSummary => ({
  id,
  name: `Review ${id}`,
  kind: 'paste',
  origin: null,
  createdBy,
  createdAt: '2026-11-09T10:00:00.000Z',
  status,
  columns: ['address'],
  totalRows: 1,
  receivedRows: status === 'uploading' ? 0 : 1,
  skippedBlank: 0,
  runs: [],
});

/** The demo account's reviews: two of A's, one of B's still running. */
const reviews = [review('rv_a1', A, 'done'), review('rv_a2', A, 'done'), review('rv_b1', B, 'running')];

function demoBff(keyFingerprint: string) {
  return fakeApi({
    'GET /api/config': () => json({ demoKeys: null, salesContact: null }),
    'GET /api/session': () =>
      json({
        account: { name: 'Harbor & Vale Realty (demo)', plan: 'professional' },
        accountId: 'acct-demo',
        demo: true,
        keyFingerprint,
      } satisfies SessionResponse),
    'GET /api/reviews': () => json({ reviews }),
    'DELETE /api/session': () => new Response(null, { status: 204 }),
  });
}

const routes = (
  <>
    <Route path="/sign-in" element={<SignInRoute />} />
    <Route element={<ProtectedLayout />}>
      <Route path="/search" element={<Probe label="Search page" />} />
      <Route path="/review" element={<Probe label="The review list" />} />
    </Route>
  </>
);

const signOuts = (api: ReturnType<typeof fakeApi>) =>
  api.calls.filter((c) => c.method === 'DELETE' && c.url.pathname === '/api/session').length;

beforeEach(() => {
  localStorage.clear();
  resetAccountScope();
});
afterEach(() => vi.unstubAllGlobals());

describe('a demo visitor signs out', () => {
  it('is told how many of the reviews are theirs (not the other visitor’s), and may export them first', async () => {
    const api = demoBff(A);
    renderRoutes(routes, '/search');
    await userEvent.click(await screen.findByRole('button', { name: 'Sign out' }));
    const dialog = await screen.findByRole('alertdialog', { name: 'Sign out and remove the demo reviews?' });
    expect(dialog).toHaveTextContent(
      'Signing out removes the 2 reviews you started in this demo (started by key aaaa1111)',
    );
    expect(dialog).toHaveTextContent('Other visitors’ reviews stay.');

    // Export first: to the review list, still signed in, nothing asked of the BFF.
    await userEvent.click(within(dialog).getByRole('link', { name: 'Export reviews first' }));
    expect(location.pathname).toBe('/review');
    expect(await screen.findByText('The review list')).toBeInTheDocument();
    expect(screen.queryByRole('alertdialog')).not.toBeInTheDocument();
    expect(screen.getByRole('button', { name: 'Sign out' })).toBeInTheDocument();
    expect(signOuts(api)).toBe(0);

    // Then out: the BFF removes A's reviews with the session; the browser deletes none itself.
    await userEvent.click(screen.getByRole('button', { name: 'Sign out' }));
    const again = await screen.findByRole('alertdialog', { name: 'Sign out and remove the demo reviews?' });
    await userEvent.click(within(again).getByRole('button', { name: 'Sign out now' }));
    await waitFor(() => expect(location.pathname).toBe('/sign-in'));
    expect(signOuts(api)).toBe(1);
    expect(api.calls.filter((c) => c.url.pathname.startsWith('/api/reviews/'))).toEqual([]);
  });

  it('“Stay signed in” keeps the visitor signed in, on the same page', async () => {
    const api = demoBff(A);
    renderRoutes(routes, '/search');
    await userEvent.click(await screen.findByRole('button', { name: 'Sign out' }));
    const dialog = await screen.findByRole('alertdialog', { name: 'Sign out and remove the demo reviews?' });
    await userEvent.click(within(dialog).getByRole('button', { name: 'Stay signed in' }));
    expect(screen.queryByRole('alertdialog')).not.toBeInTheDocument();
    expect(location.pathname).toBe('/search');
    expect(signOuts(api)).toBe(0);
  });

  it('signs out at once when the visitor started none, though another visitor’s review runs', async () => {
    const api = demoBff('cccc3333');
    renderRoutes(routes, '/search');
    await userEvent.click(await screen.findByRole('button', { name: 'Sign out' }));
    await waitFor(() => expect(location.pathname).toBe('/sign-in'));
    expect(screen.queryByRole('alertdialog')).not.toBeInTheDocument();
    expect(signOuts(api)).toBe(1);
  });

  it('says “the review” when the visitor started one', async () => {
    demoBff(B);
    renderRoutes(routes, '/search');
    await userEvent.click(await screen.findByRole('button', { name: 'Sign out' }));
    const dialog = await screen.findByRole('alertdialog', { name: 'Sign out and remove the demo reviews?' });
    expect(dialog).toHaveTextContent(
      'Signing out removes the review you started in this demo (started by key bbbb2222)',
    );
  });
});
