import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { ProtectedLayout } from '../../../app/layouts.tsx';
import { SignInRoute, safeNext } from '../../../app/routes/sign-in.tsx';
import { apiError, fakeApi, json, location, Probe, Route, renderRoutes } from '../../../test/utils.tsx';

const demoConfig = {
  demoKeys: [
    { key: 'pi_demo_professional', plan: 'professional', label: 'Professional plan (API access)' },
    { key: 'pi_demo_starter', plan: 'starter', label: 'Starter plan (no API access)' },
  ],
  salesContact: 'sales@example.test',
};
const account = {
  account: { name: 'Harbor & Vale Realty', plan: 'professional' },
  accountId: 'acct-harbor',
  demo: false,
};

const routes = (
  <>
    <Route path="/sign-in" element={<SignInRoute />} />
    <Route element={<ProtectedLayout />}>
      <Route path="/search" element={<Probe label="Search page" />} />
    </Route>
  </>
);

afterEach(() => vi.unstubAllGlobals());

describe('the key screen', () => {
  it('has a masked "API key" field with a show toggle and says where keys come from', async () => {
    fakeApi({
      'GET /api/session': () => apiError(401, 'unauthenticated', 'No'),
      'GET /api/config': () => json({ demoKeys: null, salesContact: null }),
    });
    renderRoutes(routes, '/sign-in');
    const field = await screen.findByLabelText('API key');
    expect(field).toHaveAttribute('type', 'password');
    expect(field).toHaveAttribute('autocomplete', 'off');
    await userEvent.click(screen.getByRole('button', { name: 'Show key' }));
    expect(field).toHaveAttribute('type', 'text');
    await userEvent.click(screen.getByRole('button', { name: 'Hide key' }));
    expect(field).toHaveAttribute('type', 'password');
    expect(screen.getByText(/Developer → API keys/)).toBeInTheDocument();
    expect(screen.getByText(/professional/)).toBeInTheDocument();
    expect(screen.queryByRole('button', { name: 'Use demo key' })).not.toBeInTheDocument();
  });

  it('signs in and goes to the page asked for, sending the key once with the CSRF header', async () => {
    const api = fakeApi({
      'GET /api/session': () => apiError(401, 'unauthenticated', 'No'),
      'GET /api/config': () => json({ demoKeys: null, salesContact: null }),
      'POST /api/session': () => json(account),
    });
    renderRoutes(routes, '/sign-in?next=%2Fsearch%3Faddress%3D1');
    await userEvent.type(await screen.findByLabelText('API key'), 'pi_real_key');
    await userEvent.click(screen.getByRole('button', { name: 'Sign in' }));
    expect(await screen.findByText('Search page')).toBeInTheDocument();
    expect(screen.getByText('Harbor & Vale Realty')).toBeInTheDocument();
    const post = api.calls.find((c) => c.method === 'POST');
    expect(post?.body).toEqual({ apiKey: 'pi_real_key' });
    expect(post?.headers.get('X-Requested-With')).toBe('proplens');
    // Only the account's opaque id is kept (to notice a switch of account), never the key.
    expect(Object.keys(localStorage)).toEqual(['proplens.account']);
    expect(localStorage.getItem('proplens.account')).toBe('acct-harbor');
    expect(sessionStorage.length).toBe(0);
    expect(JSON.stringify({ ...localStorage })).not.toContain('pi_real_key');
  });

  it('sends the name given for the key with the sign-in, trimmed, and no name when none is given', async () => {
    const api = fakeApi({
      'GET /api/session': () => apiError(401, 'unauthenticated', 'No'),
      'GET /api/config': () => json({ demoKeys: null, salesContact: null }),
      'POST /api/session': () => json(account),
    });
    renderRoutes(routes, '/sign-in');
    await userEvent.type(await screen.findByLabelText('API key'), 'pi_real_key');
    await userEvent.type(screen.getByRole('textbox', { name: /Your name on this key/ }), '  Dana Ortiz ');
    await userEvent.click(screen.getByRole('button', { name: 'Sign in' }));
    expect(await screen.findByText('Search page')).toBeInTheDocument();
    expect(api.calls.find((c) => c.method === 'POST')?.body).toEqual({
      apiKey: 'pi_real_key',
      name: 'Dana Ortiz',
    });
  });

  it.each([
    ['invalid_key', 401, 'That API key was not accepted', /whole key/],
    [
      'plan_not_eligible',
      403,
      'This account’s plan has no API access',
      /professional or enterprise.*sales@example\.test/,
    ],
    ['upstream_unavailable', 502, 'The property service is not answering', /try again in a moment/],
  ])('shows %s inline with what to do next, and keeps the key typed', async (code, status, title, detail) => {
    fakeApi({
      'GET /api/session': () => apiError(401, 'unauthenticated', 'No'),
      'GET /api/config': () => json({ demoKeys: null, salesContact: null }),
      'POST /api/session': () =>
        apiError(
          status,
          code,
          'API access needs a professional or enterprise plan. Contact sales@example.test to upgrade.',
        ),
    });
    renderRoutes(routes, '/sign-in');
    const field = await screen.findByLabelText('API key');
    await userEvent.type(field, 'pi_some_key');
    await userEvent.click(screen.getByRole('button', { name: 'Sign in' }));
    const alert = await screen.findByRole('alert');
    expect(alert).toHaveTextContent(title);
    expect(alert).toHaveTextContent(detail);
    expect(field).toHaveValue('pi_some_key');
    expect(field).toHaveAttribute('aria-invalid', 'true');
    expect(field).toHaveFocus();
  });

  it('asks for a key instead of sending a blank one', async () => {
    const api = fakeApi({
      'GET /api/session': () => apiError(401, 'unauthenticated', 'No'),
      'GET /api/config': () => json({ demoKeys: null, salesContact: null }),
    });
    renderRoutes(routes, '/sign-in');
    await userEvent.click(await screen.findByRole('button', { name: 'Sign in' }));
    expect(await screen.findByRole('alert')).toHaveTextContent('Paste your API key first.');
    expect(api.calls.some((c) => c.method === 'POST')).toBe(false);
  });

  it('offers demo keys only when the BFF says the upstream is the embedded reference', async () => {
    fakeApi({
      'GET /api/session': () => apiError(401, 'unauthenticated', 'No'),
      'GET /api/config': () => json(demoConfig),
    });
    renderRoutes(routes, '/sign-in');
    await userEvent.click(await screen.findByRole('button', { name: 'Use demo key' }));
    expect(screen.getByLabelText('API key')).toHaveValue('pi_demo_professional');
    // Every demo key is listed with what it shows, and can fill the field.
    await userEvent.click(screen.getByText('All demo keys (2)'));
    await userEvent.click(screen.getByRole('button', { name: 'Fill the Starter plan (no API access) key' }));
    expect(screen.getByLabelText('API key')).toHaveValue('pi_demo_starter');
  });

  it('"Try the demo" signs in with the professional demo key in one click', async () => {
    const api = fakeApi({
      'GET /api/session': () => apiError(401, 'unauthenticated', 'No'),
      'GET /api/config': () => json(demoConfig),
      'POST /api/session': () => json({ ...account, demo: true }),
    });
    renderRoutes(routes, '/sign-in');
    await userEvent.click(await screen.findByRole('button', { name: 'Try the demo' }));
    expect(await screen.findByText('Search page')).toBeInTheDocument();
    expect(api.calls.filter((c) => c.method === 'POST').map((c) => c.body)).toEqual([
      { apiKey: 'pi_demo_professional' },
    ]);
  });

  it('puts the cursor in the API key field on arrival', async () => {
    fakeApi({
      'GET /api/session': () => apiError(401, 'unauthenticated', 'No'),
      'GET /api/config': () => json({ demoKeys: null, salesContact: null }),
    });
    renderRoutes(routes, '/sign-in');
    expect(await screen.findByLabelText('API key')).toHaveFocus();
  });

  it('makes the sales contact in a plan refusal a link, e-mail or web address', async () => {
    let message =
      'API access needs a professional or enterprise plan. Contact sales@example.test to upgrade.';
    fakeApi({
      'GET /api/session': () => apiError(401, 'unauthenticated', 'No'),
      'GET /api/config': () => json({ demoKeys: null, salesContact: null }),
      'POST /api/session': () => apiError(403, 'plan_not_eligible', message),
    });
    renderRoutes(routes, '/sign-in');
    await userEvent.type(await screen.findByLabelText('API key'), 'pi_demo_starter');
    await userEvent.click(screen.getByRole('button', { name: 'Sign in' }));
    const alert = await screen.findByRole('alert');
    expect(within(alert).getByRole('link', { name: 'sales@example.test' })).toHaveAttribute(
      'href',
      'mailto:sales@example.test',
    );
    expect(alert).toHaveTextContent(/Contact sales@example\.test to upgrade\.$/);

    message = 'API access needs a professional or enterprise plan. Contact https://example.test/sales.';
    await userEvent.click(screen.getByRole('button', { name: 'Sign in' }));
    expect(await screen.findByRole('link', { name: 'https://example.test/sales' })).toHaveAttribute(
      'href',
      'https://example.test/sales',
    );
  });

  it('sends a signed-out visitor of a protected page to sign in, then back', async () => {
    fakeApi({
      'GET /api/session': () => apiError(401, 'unauthenticated', 'No'),
      'GET /api/config': () => json({ demoKeys: null, salesContact: null }),
    });
    renderRoutes(routes, '/search?address=1%20Main');
    await waitFor(() => expect(location.pathname).toBe('/sign-in'));
    expect(location.search).toBe(`?next=${encodeURIComponent('/search?address=1%20Main')}`);
    expect(screen.queryByText('Your session has ended')).not.toBeInTheDocument();
  });

  it('signs out back to the key screen', async () => {
    let signedIn = true;
    fakeApi({
      'GET /api/session': () => (signedIn ? json(account) : apiError(401, 'unauthenticated', 'No')),
      'GET /api/config': () => json({ demoKeys: null, salesContact: null }),
      'DELETE /api/session': () => {
        signedIn = false;
        return new Response(null, { status: 204 });
      },
    });
    renderRoutes(routes, '/search');
    await userEvent.click(await screen.findByRole('button', { name: 'Sign out' }));
    await waitFor(() => expect(location.pathname).toBe('/sign-in'));
    expect(await screen.findByLabelText('API key')).toBeInTheDocument();
  });
});

describe('the key screen and an existing session', () => {
  afterEach(() => localStorage.clear());

  it('a first or signed-out visit asks nothing about a session (no 401 to log)', async () => {
    const api = fakeApi({ 'GET /api/config': () => json({ demoKeys: null, salesContact: null }) });
    renderRoutes(routes, '/sign-in');
    expect(await screen.findByLabelText('API key')).toBeInTheDocument();
    expect(api.calls.map((c) => `${c.method} ${c.url.pathname}`)).toEqual(['GET /api/config']);
  });

  it('a browser still signed in goes straight on to the page asked for', async () => {
    localStorage.setItem('proplens.account', 'acct-harbor');
    fakeApi({
      'GET /api/session': () => json(account),
      'GET /api/config': () => json({ demoKeys: null, salesContact: null }),
    });
    renderRoutes(routes, '/sign-in?next=%2Fsearch');
    expect(await screen.findByText('Search page')).toBeInTheDocument();
  });
});

describe('where sign-in leads', () => {
  it.each([
    ['/search?address=1%20Main', '/search?address=1%20Main'],
    [null, '/search'],
    ['https://evil.example/', '/search'],
    ['//evil.example/', '/search'],
    ['/\\evil.example/', '/search'],
    ['javascript:alert(1)', '/search'],
  ])('?next=%s goes to %s, never off the app', (next, to) => expect(safeNext(next)).toBe(to));
});
