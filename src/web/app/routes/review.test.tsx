import 'fake-indexeddb/auto';
import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { IDBFactory } from 'fake-indexeddb';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { LookupResult, Property, SessionResponse } from '../../../contract/index.ts';
import { openReviewStore } from '../../features/review/lib/review-store.ts';
import { setReviewWorkspace } from '../../features/review/lib/workspace.ts';
import { resetAccountScope } from '../../lib/account-scope.ts';
import { apiError, fakeApi, type Handler, json, location, Route, renderRoutes } from '../../test/utils.tsx';
import { ProtectedLayout } from '../layouts.tsx';
import { ReviewRoute } from './review.tsx';
import { ReviewRunRoute } from './review-run.tsx';
import { SignInRoute } from './sign-in.tsx';

const property = (address: string, over: Partial<Property> = {}): Property => ({
  id: `pi_${address.replace(/\W/g, '')}`,
  address,
  source: 'Travis County Assessor',
  sourceKind: 'assessor',
  confidence: 'high',
  lastVerified: '2026-11-09',
  attributes: { zip: '78701', city: 'Austin', state: 'TX' },
  ...over,
});
const rateLimit = {
  limit: 60,
  remaining: 50,
  resetAt: new Date(Date.now() + 30_000).toISOString(),
  windowS: 60,
};

const sessionFor =
  (accountId: string, demo = false): Handler =>
  () =>
    json({
      account: { name: 'Harbor & Vale Realty', plan: 'professional' },
      accountId,
      demo,
    } satisfies SessionResponse);

const line = (index: number, address: string, over: Partial<LookupResult> = {}): LookupResult => ({
  index,
  outcome: 'matched',
  property: property(address.toUpperCase()),
  cached: false,
  retrievedAt: new Date().toISOString(),
  rateLimit,
  ...over,
});
const ndjson = (lines: LookupResult[]) =>
  new Response(lines.map((l) => `${JSON.stringify(l)}\n`).join(''), {
    headers: { 'content-type': 'application/x-ndjson' },
  });

/** Answers every lookup: "unknown" addresses are not found, "main st" is ambiguous, the rest match. */
const lookups: Handler = ({ body }) =>
  ndjson(
    (body as { addresses: string[] }).addresses.map((a, i) =>
      /unknown/i.test(a)
        ? line(i, a, {
            outcome: 'not_found',
            property: undefined,
            error: { code: 'not_found', message: 'No.' },
          })
        : /^\d+ main st$/i.test(a)
          ? line(i, a, {
              outcome: 'ambiguous',
              property: undefined,
              error: { code: 'ambiguous', message: '?' },
            })
          : line(i, a),
    ),
  );

const routes = (
  <>
    <Route path="/sign-in" element={<SignInRoute />} />
    <Route element={<ProtectedLayout />}>
      <Route path="/review" element={<ReviewRoute />} />
      <Route path="/review/:id" element={<ReviewRunRoute />} />
    </Route>
  </>
);

const progress = () => screen.findByRole('progressbar', { name: 'Review progress' });
const lookupCalls = (api: ReturnType<typeof fakeApi>) =>
  api.calls.filter((c) => c.url.pathname === '/api/reviews/lookups');

async function startPasted(text: string, name?: string) {
  const field = await screen.findByRole('textbox', { name: 'Addresses' });
  await userEvent.click(field);
  await userEvent.paste(text);
  if (name) await userEvent.type(screen.getByRole('textbox', { name: 'Review name' }), name);
  await userEvent.click(screen.getByRole('button', { name: 'Start review' }));
}

// Whole screens with the results' charts in jsdom, on a shared 2-core machine: give them room.
vi.setConfig({ testTimeout: 15_000 });

beforeEach(() => {
  // A browser of its own for every test: nothing stored by the last one.
  globalThis.indexedDB = new IDBFactory();
  setReviewWorkspace(null);
  localStorage.clear();
  resetAccountScope();
});
afterEach(() => {
  vi.unstubAllGlobals();
});

describe('/review', () => {
  it('starts a pasted review, runs it to the end, and counts every row', async () => {
    const api = fakeApi({
      'GET /api/session': sessionFor('acct-a'),
      'POST /api/reviews/lookups': lookups,
    });
    renderRoutes(routes, '/review');
    expect(await screen.findByRole('heading', { name: 'Review many addresses' })).toBeInTheDocument();
    // No sample without a demo key.
    expect(screen.queryByRole('button', { name: 'Try a sample review' })).not.toBeInTheDocument();

    await startPasted(
      '1100 Congress Ave, Austin TX\n\n233 S Wacker Dr, Chicago IL\n100 Main St\n12 Unknown Rd\n1100 congress ave,  austin tx\n',
      'Portfolio A',
    );
    await waitFor(() => expect(location.pathname).toMatch(/^\/review\/[\w-]+$/));
    expect(await screen.findByRole('heading', { name: 'Portfolio A' })).toBeInTheDocument();
    const bar = await progress();
    await waitFor(() => expect(bar).toHaveAttribute('aria-valuetext', '5 of 5'));
    expect(await screen.findByText('Done: all 5 addresses have an outcome.')).toBeInTheDocument();
    const region = within(screen.getByRole('region', { name: 'Progress' }));
    const counts = (label: string) =>
      within(region.getByText(label).closest('div') as HTMLElement).getByRole('definition');
    expect(counts('Matched')).toHaveTextContent('3');
    expect(counts('Not found')).toHaveTextContent('1');
    expect(counts('Ambiguous')).toHaveTextContent('1');
    expect(counts('Failed')).toHaveTextContent('0');
    expect(screen.getByText('1 blank line was skipped.')).toBeInTheDocument();
    // The repeat was looked up once, with the CSRF header and nothing but addresses.
    const calls = lookupCalls(api);
    expect(calls).toHaveLength(1);
    expect(calls[0]?.headers.get('X-Requested-With')).toBe('proplens');
    expect(calls[0]?.body).toEqual({
      addresses: [
        '1100 Congress Ave, Austin TX',
        '233 S Wacker Dr, Chicago IL',
        '100 Main St',
        '12 Unknown Rd',
      ],
    });

    // Back to the list: the review is there with its state, size and date.
    await userEvent.click(screen.getByRole('link', { name: 'All reviews' }));
    const item = (await screen.findByRole('link', { name: 'Portfolio A' })).closest('li') as HTMLElement;
    expect(item).toHaveTextContent('Done');
    expect(item).toHaveTextContent('5 addresses');
  });

  it('says what to do when nothing was given', async () => {
    fakeApi({ 'GET /api/session': sessionFor('acct-a') });
    renderRoutes(routes, '/review');
    await userEvent.click(await screen.findByRole('button', { name: 'Start review' }));
    expect(await screen.findByRole('alert')).toHaveTextContent('Paste at least one address, one per line.');
  });

  it('offers the sample with a demo key and runs its 200 addresses', async () => {
    const sample = `address,kind\n${Array.from({ length: 200 }, (_, i) => `"${i + 1} Congress Ave, Austin, TX",clean`).join('\n')}\n`;
    const api = fakeApi({
      'GET /api/session': sessionFor('acct-demo', true),
      'GET /sample-review.csv': () => new Response(sample, { headers: { 'content-type': 'text/csv' } }),
      'POST /api/reviews/lookups': lookups,
    });
    renderRoutes(routes, '/review');
    await userEvent.click(await screen.findByRole('button', { name: 'Try a sample review' }));
    expect(await screen.findByRole('heading', { name: 'Sample review' })).toBeInTheDocument();
    const bar = await progress();
    await waitFor(() => expect(bar).toHaveAttribute('aria-valuetext', '200 of 200'));
    // Batches of at most 50.
    expect(lookupCalls(api).map((c) => (c.body as { addresses: string[] }).addresses.length)).toEqual([
      50, 50, 50, 50,
    ]);
  });

  it('reads a CSV, joins the street, city, state and ZIP columns, and previews the rows', async () => {
    const api = fakeApi({ 'GET /api/session': sessionFor('acct-a'), 'POST /api/reviews/lookups': lookups });
    renderRoutes(routes, '/review');
    await userEvent.click(await screen.findByRole('radio', { name: 'Upload a file' }));
    const csv =
      '\uFEFFOwner,Street,City,State,Zip\nAnn,1100 Congress Ave,Austin,TX,78701\n,,,,\nBo,"233 S Wacker Dr",Chicago,IL,60606\n';
    await userEvent.upload(
      screen.getByLabelText('CSV file'),
      new File([csv], 'deal-42.csv', { type: 'text/csv' }),
    );
    const preview = await screen.findByRole('table', { name: /Preview/ });
    expect(
      within(preview)
        .getAllByRole('row')
        .map((r) => r.textContent),
    ).toEqual([
      'RowAddress to look up',
      '11100 Congress Ave, Austin, TX 78701',
      '2233 S Wacker Dr, Chicago, IL 60606',
    ]);
    expect(screen.getByRole('checkbox', { name: 'The first row is a header' })).toBeChecked();
    expect(screen.getByRole('combobox', { name: 'Street column' })).toHaveDisplayValue('Street (column 2)');
    expect(screen.getByText(/2 addresses · 1 blank line skipped/)).toBeInTheDocument();

    // Picking another column changes what will be looked up.
    await userEvent.click(screen.getByRole('radio', { name: 'In one column' }));
    await userEvent.selectOptions(
      screen.getByRole('combobox', { name: 'Address column' }),
      'Owner (column 1)',
    );
    expect(within(screen.getByRole('table', { name: /Preview/ })).getByText('Ann')).toBeInTheDocument();
    await userEvent.click(
      screen.getByRole('radio', { name: 'Street, city, state and ZIP in their own columns' }),
    );
    await userEvent.selectOptions(
      screen.getByRole('combobox', { name: 'Street column' }),
      'Street (column 2)',
    );
    await userEvent.selectOptions(screen.getByRole('combobox', { name: 'City column' }), 'City (column 3)');
    await userEvent.selectOptions(screen.getByRole('combobox', { name: 'State column' }), 'State (column 4)');
    await userEvent.selectOptions(screen.getByRole('combobox', { name: 'ZIP column' }), 'Zip (column 5)');

    // The file name is the default name.
    expect(screen.getByRole('textbox', { name: 'Review name' })).toHaveAttribute('placeholder', 'deal-42');
    await userEvent.click(screen.getByRole('button', { name: 'Start review' }));
    expect(await screen.findByRole('heading', { name: 'deal-42' })).toBeInTheDocument();
    await waitFor(() => expect(lookupCalls(api)).toHaveLength(1));
    expect(lookupCalls(api)[0]?.body).toEqual({
      addresses: ['1100 Congress Ave, Austin, TX 78701', '233 S Wacker Dr, Chicago, IL 60606'],
    });
  });

  it('refuses a file that is not text CSV, saying what to do', async () => {
    fakeApi({ 'GET /api/session': sessionFor('acct-a') });
    renderRoutes(routes, '/review');
    await userEvent.click(await screen.findByRole('radio', { name: 'Upload a file' }));
    const xlsx = new File([new Uint8Array([0x50, 0x4b, 0x03, 0x04, 0, 0])], 'deal.xlsx');
    // `accept` is only a hint to the file picker: a person can still choose any file.
    await userEvent.setup({ applyAccept: false }).upload(screen.getByLabelText('CSV file'), xlsx);
    const alert = await screen.findByRole('alert');
    expect(alert).toHaveTextContent('This file cannot be used');
    expect(alert).toHaveTextContent('“deal.xlsx” is not a text CSV file');
    expect(alert).toHaveTextContent('CSV UTF-8');
  });

  it('walks an area page by page in the review lane and saves its records as matched rows', async () => {
    const page1 = [
      property('1 Congress Ave, Austin, TX 78701'),
      property('2 Congress Ave, Austin, TX 78701'),
    ];
    const elsewhere = property('78701 Oak St, Dallas, TX 75201', { attributes: { zip: '75201' } });
    const page2 = [property('3 Congress Ave, Austin, TX 78701'), elsewhere];
    const api = fakeApi({
      'GET /api/session': sessionFor('acct-a'),
      'GET /api/properties/search': ({ url }) =>
        url.searchParams.get('cursor') === 'c2'
          ? json({ items: page2, rateLimit })
          : json({ items: page1, nextCursor: 'c2', rateLimit }),
    });
    renderRoutes(routes, '/review');
    await userEvent.click(await screen.findByRole('radio', { name: 'An area' }));
    await userEvent.type(screen.getByRole('textbox', { name: 'ZIP code' }), '78701');
    await userEvent.click(screen.getByRole('button', { name: 'Find records' }));
    expect(await screen.findByText('Found 3 records for ZIP 78701.')).toBeInTheDocument();
    const searches = api.calls.filter((c) => c.url.pathname === '/api/properties/search');
    expect(searches.map((c) => c.url.searchParams.get('cursor'))).toEqual([null, 'c2']);
    expect(searches.every((c) => c.headers.get('X-PropLens-Lane') === 'review')).toBe(true);
    await userEvent.click(screen.getByRole('button', { name: 'Start review' }));
    expect(await screen.findByRole('heading', { name: 'ZIP 78701' })).toBeInTheDocument();
    expect(await progress()).toHaveAttribute('aria-valuetext', '3 of 3');
  });

  it('keeps each account to its own reviews, and "Delete" removes one', async () => {
    let account = 'acct-a';
    fakeApi({
      'GET /api/session': () => sessionFor(account)({} as never),
      'POST /api/reviews/lookups': lookups,
    });
    const first = renderRoutes(routes, '/review');
    await startPasted('1100 Congress Ave, Austin TX', 'Mine');
    await progress();
    const reviewUrl = location.pathname;
    first.unmount();

    account = 'acct-b';
    const second = renderRoutes(routes, '/review');
    expect(await screen.findByText(/No reviews yet/)).toBeInTheDocument();
    second.unmount();
    // Not by its URL either.
    const third = renderRoutes(routes, reviewUrl);
    expect(await screen.findByRole('heading', { name: 'Review not found' })).toBeInTheDocument();
    third.unmount();

    account = 'acct-a';
    renderRoutes(routes, '/review');
    await userEvent.click(await screen.findByRole('button', { name: 'Delete review Mine' }));
    await userEvent.click(screen.getByRole('button', { name: 'Delete Mine' }));
    expect(await screen.findByText(/No reviews yet/)).toBeInTheDocument();
  });
});

describe('signing out', () => {
  const reviewsOf = async (accountId: string) =>
    (await openReviewStore().listReviews(accountId)).map((r) => r.name);

  it.each([
    { demo: true, kept: [] },
    { demo: false, kept: ['Kept or not'] },
  ])('deletes the reviews of a demo key, and only those (demo: $demo)', async ({ demo, kept }) => {
    fakeApi({
      'GET /api/session': sessionFor('acct-s', demo),
      'GET /api/config': () => json({ demoKeys: null, salesContact: null }),
      'DELETE /api/session': () => new Response(null, { status: 204 }),
      'POST /api/reviews/lookups': lookups,
    });
    renderRoutes(routes, '/review');
    await startPasted('1100 Congress Ave, Austin TX', 'Kept or not');
    const bar = await progress();
    await waitFor(() => expect(bar).toHaveAttribute('aria-valuetext', '1 of 1'));
    expect(await reviewsOf('acct-s')).toEqual(['Kept or not']);
    await userEvent.click(screen.getByRole('button', { name: 'Sign out' }));
    await waitFor(() => expect(location.pathname).toBe('/sign-in'));
    await waitFor(async () => expect(await reviewsOf('acct-s')).toEqual(kept));
  });
});

describe('/review/:id', () => {
  it('shows a wait for the rate limit as a status, never an error, and keeps the row for later', async () => {
    const api = fakeApi({
      'GET /api/session': sessionFor('acct-a'),
      'POST /api/reviews/lookups': ({ body }) => {
        const addresses = (body as { addresses: string[] }).addresses;
        const resetAt = new Date(Date.now() + 60_000).toISOString();
        return ndjson([
          line(0, addresses[0] as string),
          line(1, addresses[1] as string, {
            outcome: 'failed',
            property: undefined,
            error: { code: 'rate_limited', message: 'Slow down.', resetAt },
          }),
        ]);
      },
    });
    renderRoutes(routes, '/review');
    await startPasted('1 Congress Ave, Austin TX\n2 Congress Ave, Austin TX');
    expect(await screen.findByText(/Waiting for the rate limit to reset, (60|59) s/)).toBeInTheDocument();
    expect(screen.queryByRole('alert')).not.toBeInTheDocument();
    expect(await progress()).toHaveAttribute('aria-valuetext', '1 of 2');
    const region = within(screen.getByRole('region', { name: 'Progress' }));
    expect(
      within(region.getByText('Failed').closest('div') as HTMLElement).getByRole('definition'),
    ).toHaveTextContent('0');
    expect(lookupCalls(api)).toHaveLength(1);
  });

  it('Pause stops the lookups in flight; Resume sends them again', async () => {
    const signals: AbortSignal[] = [];
    let hang = true;
    const api = fakeApi({
      'GET /api/session': sessionFor('acct-a'),
      'POST /api/reviews/lookups': (req) => {
        if (!hang) return lookups(req);
        // Answers nothing until aborted, as a slow, paced batch would.
        return new Promise<Response>((_, reject) => {
          const init = api.fetchMock.mock.calls.at(-1)?.[1] as RequestInit;
          const signal = init.signal as AbortSignal;
          signals.push(signal);
          signal.addEventListener('abort', () => reject(new DOMException('Aborted', 'AbortError')));
        });
      },
    });
    renderRoutes(routes, '/review');
    await startPasted('1 Congress Ave, Austin TX\n2 Congress Ave, Austin TX');
    await waitFor(() => expect(lookupCalls(api)).toHaveLength(1));
    await userEvent.click(await screen.findByRole('button', { name: 'Pause' }));
    expect(signals[0]?.aborted).toBe(true);
    expect(screen.getByText('Paused. Resume to go on from where it stopped.')).toBeInTheDocument();
    expect(await progress()).toHaveAttribute('aria-valuetext', '0 of 2');

    hang = false;
    await userEvent.click(screen.getByRole('button', { name: 'Resume' }));
    const bar = await progress();
    await waitFor(() => expect(bar).toHaveAttribute('aria-valuetext', '2 of 2'));
    expect(lookupCalls(api).map((c) => c.body)).toEqual([
      { addresses: ['1 Congress Ave, Austin TX', '2 Congress Ave, Austin TX'] },
      { addresses: ['1 Congress Ave, Austin TX', '2 Congress Ave, Austin TX'] },
    ]);
  });

  it('sends the person to sign in when the session ends, and goes on with the review after', async () => {
    let signedIn = true;
    const api = fakeApi({
      'GET /api/session': (req) =>
        signedIn ? sessionFor('acct-a')(req) : apiError(401, 'unauthenticated', 'Sign in.'),
      'GET /api/config': () => json({ demoKeys: null, salesContact: null }),
      'POST /api/session': (req) => {
        signedIn = true;
        return sessionFor('acct-a')(req);
      },
      'POST /api/reviews/lookups': (req) => {
        if (lookupCalls(api).length === 1) {
          signedIn = false;
          return apiError(401, 'unauthenticated', 'Your session has ended.');
        }
        return lookups(req);
      },
    });
    renderRoutes(routes, '/review');
    await startPasted('1 Congress Ave, Austin TX');
    await waitFor(() => expect(location.pathname).toBe('/sign-in'));
    const next = decodeURIComponent(location.search);
    expect(next).toMatch(/^\?next=\/review\/[\w-]+$/);
    expect(await screen.findByText('Your session has ended')).toBeInTheDocument();

    await userEvent.type(screen.getByLabelText('API key'), 'pi_live_abc');
    await userEvent.click(screen.getByRole('button', { name: 'Sign in' }));
    await waitFor(() => expect(location.pathname).toBe(next.slice('?next='.length)));
    const bar = await progress();
    await waitFor(() => expect(bar).toHaveAttribute('aria-valuetext', '1 of 1'));
    expect(lookupCalls(api)).toHaveLength(2);
  });
});
