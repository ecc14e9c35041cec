import { screen } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { apiError, fakeApi, json, location, Probe, Route, renderRoutes } from '../../test/utils.tsx';
import { NotFoundRoute } from './not-found.tsx';

const routes = (
  <>
    <Route path="/search" element={<Probe label="Search page" />} />
    <Route path="*" element={<NotFoundRoute />} />
  </>
);
const signedIn = () =>
  json({ account: { name: 'Harbor & Vale Realty', plan: 'professional' }, accountId: 'acct-a', demo: false });

afterEach(() => vi.unstubAllGlobals());

describe('a page that does not exist', () => {
  it('has the usual header, says what happened, and leads back to search', async () => {
    fakeApi({
      'GET /api/session': signedIn,
      'GET /api/config': () => json({ demoKeys: null, salesContact: null }),
    });
    renderRoutes(routes, '/no/such/page');
    expect(await screen.findByRole('heading', { name: 'Page not found' })).toBeInTheDocument();
    expect(screen.getByRole('banner')).toHaveTextContent('Harbor & Vale Realty');
    expect(screen.getByRole('button', { name: 'Sign out' })).toBeInTheDocument();
    expect(screen.getByText('/no/such/page')).toBeInTheDocument();
    expect(document.title).toBe('Page not found · PropLens');
    // Arrived directly: there is no page of ours to go back to.
    expect(screen.queryByRole('button', { name: 'Back to the previous page' })).not.toBeInTheDocument();
    await userEvent.click(screen.getByRole('link', { name: 'Go to search' }));
    expect(location.pathname).toBe('/search');
  });

  it.each([
    ['a first visit (204)', () => new Response(null, { status: 204 })],
    ['an ended session (401)', () => apiError(401, 'unauthenticated', 'No')],
  ])('signed out, %s: the header without an account, and a way to sign in', async (_case, answer) => {
    fakeApi({ 'GET /api/session': answer });
    renderRoutes(routes, '/nope');
    expect(await screen.findByRole('heading', { name: 'Page not found' })).toBeInTheDocument();
    expect(screen.getByRole('link', { name: 'PropLens home' })).toBeInTheDocument();
    expect(screen.queryByRole('button', { name: 'Sign out' })).not.toBeInTheDocument();
    expect(screen.getByRole('link', { name: 'Sign in' })).toHaveAttribute('href', '/search');
  });
});
