import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { Property, ReviewChunkRequest, SessionResponse } from '../../../contract/index.ts';
import { type Answer, fakeReviewServer } from '../../features/review/testing/fake-review-server.ts';
import { resetAccountScope } from '../../lib/account-scope.ts';
import { fakeApi, type Handler, json, location, Route, renderRoutes } from '../../test/utils.tsx';
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

/** Answers every row: "unknown" addresses are not found, "N main st" is ambiguous, the rest match. */
const answer: Answer = (a) =>
  /unknown/i.test(a)
    ? { outcome: 'not_found', error: { code: 'not_found', message: 'No.' } }
    : /^\d+ main st$/i.test(a)
      ? { outcome: 'ambiguous', error: { code: 'ambiguous', message: '?' } }
      : { outcome: 'matched', property: property(a.toUpperCase()) };

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
const chunkCalls = (api: ReturnType<typeof fakeApi>) =>
  api.calls.filter((c) => c.method === 'PUT' && c.url.pathname.endsWith('/chunks'));
const uploaded = (api: ReturnType<typeof fakeApi>) =>
  chunkCalls(api).flatMap((c) => (c.body as ReviewChunkRequest).rows);

/** The session, and the BFF's /api/reviews as a fake that keeps reviews per account. */
function backend(account: () => string, extra: Record<string, Handler> = {}, demo = false) {
  const server = fakeReviewServer({ account, answer });
  const api = fakeApi({
    'GET /api/session': () => sessionFor(account(), demo)({} as never),
    ...server.routes,
    'GET /api/reviews/*': server.handle,
    'PUT /api/reviews/*': server.handle,
    'POST /api/reviews/*': server.handle,
    'DELETE /api/reviews/*': server.handle,
    ...extra,
  });
  return { api, server };
}

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
  localStorage.clear();
  resetAccountScope();
});
afterEach(() => {
  vi.unstubAllGlobals();
});

describe('/review', () => {
  it('starts a pasted review on the server in chunks, opens it, and counts every row', async () => {
    // Whether the review's page was already up ("Opening the review…") each time a summary was asked.
    const pageUp: boolean[] = [];
    const { api, server } = backend(() => 'acct-a', {
      'GET /api/reviews/*': (request) => {
        if (/^\/api\/reviews\/[^/]+$/.test(request.url.pathname))
          pageUp.push(screen.queryByText('Opening the review…') !== null);
        return server.handle(request);
      },
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
    // Every row went to the server once, with the CSRF header; the repeat is kept in place (the server's cache
    // answers it at no cost).
    const create = api.calls.find((c) => c.method === 'POST' && c.url.pathname === '/api/reviews');
    expect(create?.headers.get('X-Requested-With')).toBe('proplens');
    expect(create?.body).toMatchObject({
      name: 'Portfolio A',
      kind: 'paste',
      totalRows: 5,
      skippedBlank: 1,
      columns: [],
    });
    expect(uploaded(api).map((r) => r.address)).toEqual([
      '1100 Congress Ave, Austin TX',
      '233 S Wacker Dr, Chicago IL',
      '100 Main St',
      '12 Unknown Rd',
      '1100 congress ave,  austin tx',
    ]);

    // Back to the list: the review is there with its state, size, date and who started it.
    await userEvent.click(screen.getByRole('link', { name: 'All reviews' }));
    const item = (await screen.findByRole('link', { name: 'Portfolio A' })).closest('li') as HTMLElement;
    expect(item).toHaveTextContent('Done');
    expect(item).toHaveTextContent('5 addresses');
    expect(item).toHaveTextContent('started by key 3f9a1c2e');

    // Opened again from the list: its summary and first rows are asked at the click (the page's code loads
    // meanwhile), once each, and the page takes them.
    const id = (await screen.findByRole('link', { name: 'Portfolio A' }))
      .getAttribute('href')
      ?.split('/')
      .pop();
    const asked = () =>
      api.calls
        .filter((c) => c.method === 'GET' && c.url.pathname.startsWith(`/api/reviews/${id}`))
        .filter((c) => !c.url.pathname.endsWith('/events'))
        .map((c) => `${c.url.pathname}${c.url.search}`);
    const before = asked().length;
    pageUp.length = 0;
    await userEvent.click(screen.getByRole('link', { name: 'Portfolio A' }));
    expect(await screen.findByText('Done: all 5 addresses have an outcome.')).toBeInTheDocument();
    expect(asked().slice(before)).toEqual([
      `/api/reviews/${id}`,
      `/api/reviews/${id}/rows?run=1&limit=100&cells=0&attributes=0`,
    ]);
    expect(pageUp).toEqual([false]);
  });

  it('says what to do when nothing was given', async () => {
    backend(() => 'acct-a');
    renderRoutes(routes, '/review');
    await userEvent.click(await screen.findByRole('button', { name: 'Start review' }));
    expect(await screen.findByRole('alert')).toHaveTextContent('Paste at least one address, one per line.');
  });

  it('sends a chunk that failed again, once, and the review still has every row once', async () => {
    const { api, server } = backend(() => 'acct-a');
    server.failNextChunks.count = 1;
    renderRoutes(routes, '/review');
    await startPasted('1100 Congress Ave, Austin TX\n233 S Wacker Dr, Chicago IL', 'Retried');
    expect(await screen.findByRole('heading', { name: 'Retried' }, { timeout: 5_000 })).toBeInTheDocument();
    expect(chunkCalls(api)).toHaveLength(2);
    const [review] = server.reviews.values();
    expect(review?.rows.map((r) => r.address)).toEqual([
      '1100 Congress Ave, Austin TX',
      '233 S Wacker Dr, Chicago IL',
    ]);
  });

  it('offers the sample with a demo key and sends its 200 addresses', async () => {
    const sample = `address,kind\n${Array.from({ length: 200 }, (_, i) => `"${i + 1} Congress Ave, Austin, TX",clean`).join('\n')}\n`;
    const { api } = backend(
      () => 'acct-demo',
      {
        'GET /sample-review.csv': () => new Response(sample, { headers: { 'content-type': 'text/csv' } }),
      },
      true,
    );
    renderRoutes(routes, '/review');
    await userEvent.click(await screen.findByRole('button', { name: 'Try a sample review' }));
    expect(await screen.findByRole('heading', { name: 'Sample review' })).toBeInTheDocument();
    const bar = await progress();
    await waitFor(() => expect(bar).toHaveAttribute('aria-valuetext', '200 of 200'));
    expect(uploaded(api)).toHaveLength(200);
    expect(
      api.calls.find((c) => c.method === 'POST' && c.url.pathname === '/api/reviews')?.body,
    ).toMatchObject({ kind: 'sample' });
  });

  it('reads a CSV, joins the street, city, state and ZIP columns, and keeps every column of the file', async () => {
    const { api } = backend(() => 'acct-a');
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
      // Rows as the spreadsheet numbers them: the header is row 1, the blank row 3 counted.
      '21100 Congress Ave, Austin, TX 78701',
      '4233 S Wacker Dr, Chicago, IL 60606',
    ]);
    expect(screen.getByRole('checkbox', { name: 'The first row is a header' })).toBeChecked();
    const street = screen.getByRole('combobox', { name: 'Street column' });
    expect(street).toHaveDisplayValue('2 · Street');
    // What the chosen column holds, so a truncated name is still readable.
    expect(street).toHaveAccessibleDescription('e.g. “1100 Congress Ave”');
    expect(screen.getByText(/2 addresses · 1 blank line skipped/)).toBeInTheDocument();
    // The file name is the default name.
    await waitFor(() =>
      expect(screen.getByRole('textbox', { name: 'Review name' })).toHaveAttribute('placeholder', 'deal-42'),
    );
    await userEvent.click(screen.getByRole('button', { name: 'Start review' }));
    expect(await screen.findByRole('heading', { name: 'deal-42' })).toBeInTheDocument();
    expect(
      api.calls.find((c) => c.method === 'POST' && c.url.pathname === '/api/reviews')?.body,
    ).toMatchObject({
      kind: 'csv',
      origin: 'deal-42.csv',
      columns: ['Owner', 'Street', 'City', 'State', 'Zip'],
    });
    // The file itself goes too, as chosen, for the review's evidence packet.
    const source = api.calls.find((c) => c.method === 'PUT' && c.url.pathname.endsWith('/source'));
    if (!source) throw new Error('the file was not sent');
    expect(source.url.searchParams.get('name')).toBe('deal-42.csv');
    expect(source.headers.get('content-type')).toBe('application/octet-stream');
    // Byte for byte: its byte order mark too.
    expect([...new Uint8Array(await (source.body as Blob).arrayBuffer())]).toEqual([
      ...new TextEncoder().encode(csv),
    ]);
    expect(uploaded(api)).toEqual([
      {
        address: '1100 Congress Ave, Austin, TX 78701',
        cells: ['Ann', '1100 Congress Ave', 'Austin', 'TX', '78701'],
        sourceRow: 2,
      },
      {
        address: '233 S Wacker Dr, Chicago, IL 60606',
        cells: ['Bo', '233 S Wacker Dr', 'Chicago', 'IL', '60606'],
        sourceRow: 4,
      },
    ]);
  });

  it('refuses a file that is neither CSV nor a readable workbook, saying what to do', async () => {
    backend(() => 'acct-a');
    renderRoutes(routes, '/review');
    await userEvent.click(await screen.findByRole('radio', { name: 'Upload a file' }));
    const xlsx = new File([new Uint8Array([0x50, 0x4b, 0x03, 0x04, 0, 0])], 'deal.xlsx');
    // `accept` is only a hint to the file picker: a person can still choose any file.
    await userEvent.setup({ applyAccept: false }).upload(screen.getByLabelText('CSV file'), xlsx);
    const alert = await screen.findByRole('alert');
    expect(alert).toHaveTextContent('This file cannot be used');
    expect(alert).toHaveTextContent('“deal.xlsx” could not be read as an Excel workbook');
    expect(alert).toHaveTextContent('CSV UTF-8');
  });

  it('walks an area page by page in the review lane and sends its records’ addresses to be looked up', async () => {
    const page1 = [
      property('1 Congress Ave, Austin, TX 78701'),
      property('2 Congress Ave, Austin, TX 78701'),
    ];
    const elsewhere = property('78701 Oak St, Dallas, TX 75201', { attributes: { zip: '75201' } });
    const page2 = [property('3 Congress Ave, Austin, TX 78701'), elsewhere];
    const { api } = backend(() => 'acct-a', {
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
    await waitFor(async () => expect(await progress()).toHaveAttribute('aria-valuetext', '3 of 3'));
    // Addresses only: the server looks each up, as it does any row (no answer comes from the browser).
    expect(uploaded(api)).toEqual([page1[0], page1[1], page2[0]].map((p) => ({ address: p?.address })));
  });

  it('shows the account its own reviews only, and "Delete" removes one for the account after asking', async () => {
    let account = 'acct-a';
    const { api } = backend(() => account);
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
    expect(screen.getByText('Delete it and its results for everyone in the account?')).toBeInTheDocument();
    await userEvent.click(screen.getByRole('button', { name: 'Delete Mine' }));
    expect(await screen.findByText(/No reviews yet/)).toBeInTheDocument();
    expect(
      api.calls.some(
        (c) => c.method === 'DELETE' && c.url.pathname === reviewUrl.replace('/review/', '/api/reviews/'),
      ),
    ).toBe(true);
  });
});

describe('/review/:id', () => {
  it('checks a finished review again and says what changed since the previous run', async () => {
    let confidence: 'high' | 'low' = 'high';
    const server = fakeReviewServer({
      account: () => 'acct-a',
      answer: (a) => ({
        outcome: 'matched',
        property: property(a, { confidence: /Congress/.test(a) ? confidence : 'high' }),
      }),
    });
    fakeApi({
      'GET /api/session': sessionFor('acct-a'),
      ...server.routes,
      'GET /api/reviews/*': server.handle,
      'PUT /api/reviews/*': server.handle,
      'POST /api/reviews/*': server.handle,
    });
    renderRoutes(routes, '/review');
    await startPasted('1100 Congress Ave, Austin TX\n233 S Wacker Dr, Chicago IL', 'Twice');
    expect(await screen.findByText('Done: all 2 addresses have an outcome.')).toBeInTheDocument();
    expect(screen.queryByRole('region', { name: /Changes since/ })).not.toBeInTheDocument();
    confidence = 'low';
    await userEvent.click(screen.getByRole('button', { name: 'Check again' }));
    const changes = await screen.findByRole('region', { name: /^Changes since / }, { timeout: 5_000 });
    expect(changes).toHaveTextContent('1 record changed: 1 confidence down.');
    expect(changes).toHaveTextContent('1100 Congress Ave, Austin TX: confidence high → low');
    expect(screen.getByRole('checkbox', { name: 'Changed (1)' })).toBeInTheDocument();
  });

  it('shows an upload not finished by its progress alone: no results, no summary of rows not there', async () => {
    const { server } = backend(() => 'acct-a');
    const create = server.routes['POST /api/reviews'] as Handler;
    const created = await create({
      method: 'POST',
      url: new URL('http://localhost/api/reviews'),
      body: { clientToken: 'token-half', name: 'Half sent', kind: 'paste', columns: [], totalRows: 3 },
    });
    const { id } = (await created.json()) as { id: string };
    // One chunk of two rows, not the last: the page that sent it went away.
    const url = new URL(`http://localhost/api/reviews/${id}/chunks`);
    const rows = [{ address: '1100 Congress Ave, Austin TX' }, { address: '1 Main St' }];
    await server.handle({ method: 'PUT', url, body: { index: 0, firstRow: 0, rows, last: false } });
    renderRoutes(routes, `/review/${id}`);
    expect(await screen.findByRole('heading', { name: 'Half sent' })).toBeInTheDocument();
    expect(await screen.findByText(/^Upload not finished: 2 of 3 rows received/)).toBeInTheDocument();
    expect(screen.queryByRole('region', { name: 'Reliability summary' })).not.toBeInTheDocument();
  });

  it('says "Review not found" for a review of another account, and opens the account’s own', async () => {
    let account = 'acct-a';
    const { server } = backend(() => account);
    /** A finished one-row review of the account of the moment, made on the server. */
    const made = async (name: string) => {
      const create = server.routes['POST /api/reviews'] as Handler;
      const request = { clientToken: `token-${name}`, name, kind: 'paste', columns: [], totalRows: 1 };
      const created = await create({
        method: 'POST',
        url: new URL('http://localhost/api/reviews'),
        body: request,
      });
      const { id } = (await created.json()) as { id: string };
      const rows = [{ address: '1100 Congress Ave, Austin TX' }];
      const url = new URL(`http://localhost/api/reviews/${id}/chunks`);
      await server.handle({ method: 'PUT', url, body: { index: 0, firstRow: 0, rows } });
      return id;
    };
    const theirs = await made('Theirs');
    account = 'acct-b';
    const mine = await made('Mine');
    const own = renderRoutes(routes, `/review/${mine}`);
    expect(await screen.findByRole('heading', { name: 'Mine' })).toBeInTheDocument();
    own.unmount();
    renderRoutes(routes, `/review/${theirs}`);
    expect(await screen.findByRole('heading', { name: 'Review not found' })).toBeInTheDocument();
    expect(screen.queryByText('Theirs')).not.toBeInTheDocument();
  });
});

describe('signing out', () => {
  it('says running reviews pause, and signs out only when asked again', async () => {
    const server = fakeReviewServer({ account: () => 'acct-s', answer, manual: true });
    fakeApi({
      'GET /api/session': sessionFor('acct-s'),
      'GET /api/config': () => json({ demoKeys: null, salesContact: null }),
      'DELETE /api/session': () => new Response(null, { status: 204 }),
      ...server.routes,
      'GET /api/reviews/*': server.handle,
      'PUT /api/reviews/*': server.handle,
    });
    renderRoutes(routes, '/review');
    await startPasted('1100 Congress Ave, Austin TX', 'Running');
    await progress();
    await userEvent.click(screen.getByRole('button', { name: 'Sign out' }));
    const dialog = await screen.findByRole('alertdialog', { name: 'Sign out and pause running reviews?' });
    expect(dialog).toHaveTextContent(
      '1 review of this account is still running. It pauses when nobody of the account is signed in',
    );
    await userEvent.click(within(dialog).getByRole('button', { name: 'Sign out now' }));
    await waitFor(() => expect(location.pathname).toBe('/sign-in'));
  });

  it('with "Work while I’m signed out" on, running reviews go on: it signs out without asking', async () => {
    const server = fakeReviewServer({ account: () => 'acct-k', answer, manual: true });
    fakeApi({
      'GET /api/session': sessionFor('acct-k'),
      'GET /api/config': () => json({ demoKeys: null, salesContact: null }),
      'GET /api/custody': () =>
        json({
          available: true,
          on: true,
          keyFingerprint: '3f9a1c2e',
          keyName: null,
          since: null,
          problem: null,
          problemAt: null,
          unavailableReason: null,
        }),
      'DELETE /api/session': () => new Response(null, { status: 204 }),
      ...server.routes,
      'GET /api/reviews/*': server.handle,
      'PUT /api/reviews/*': server.handle,
    });
    renderRoutes(routes, '/review');
    await startPasted('1100 Congress Ave, Austin TX', 'Kept');
    await progress();
    await userEvent.click(screen.getByRole('button', { name: 'Sign out' }));
    await waitFor(() => expect(location.pathname).toBe('/sign-in'));
    expect(screen.queryByRole('alertdialog')).not.toBeInTheDocument();
  });

  it('a demo visitor is told of the reviews they started; the BFF removes them with the session', async () => {
    const { api } = backend(
      () => 'acct-d',
      {
        // The fake review server names every review's starter '3f9a1c2e': this visitor's key.
        'GET /api/session': () =>
          json({
            account: { name: 'Harbor & Vale Realty', plan: 'professional' },
            accountId: 'acct-d',
            demo: true,
            keyFingerprint: '3f9a1c2e',
          } satisfies SessionResponse),
        'GET /api/config': () => json({ demoKeys: null, salesContact: null }),
        'DELETE /api/session': () => new Response(null, { status: 204 }),
      },
      true,
    );
    renderRoutes(routes, '/review');
    await startPasted('1100 Congress Ave, Austin TX', 'Demo data');
    await screen.findByText('Done: the address has an outcome.');
    await userEvent.click(screen.getByRole('button', { name: 'Sign out' }));
    const dialog = await screen.findByRole('alertdialog', { name: 'Sign out and remove the demo reviews?' });
    expect(dialog).toHaveTextContent('Signing out removes the review you started in this demo');
    await userEvent.click(within(dialog).getByRole('button', { name: 'Sign out now' }));
    await waitFor(() => expect(location.pathname).toBe('/sign-in'));
    // Only this visitor's reviews go, and the BFF decides which (session-demo.test.ts): the browser deletes none.
    expect(api.calls.some((c) => c.method === 'DELETE' && c.url.pathname === '/api/session')).toBe(true);
    expect(api.calls.some((c) => c.method === 'DELETE' && c.url.pathname.startsWith('/api/reviews/'))).toBe(
      false,
    );
  });
});
