import { describe, expect, it } from 'vitest';
import { ApiErrorBody, ReviewSummary } from '../contract/index.ts';
import { databaseBackends } from './test-support/database-backends.ts';
import { createHarness } from './test-support/harness.ts';

/*
 * Text PostgreSQL cannot store (U+0000) and whole numbers past its 32-bit integer are refused at the contract,
 * 400 with what to fix, the same on both databases: never a 500 from the database, never stored on one only.
 */

const backends = databaseBackends('request-limits');
const NUL = 'a\u0000b';
const HUGE = 99_999_999_999;

async function signedIn(backend: (typeof backends)[number]) {
  const h = createHarness({ database: backend.database });
  expect((await h.signIn()).status).toBe(200);
  const review = async (over: Record<string, unknown> = {}) =>
    h.call('/api/reviews', {
      method: 'POST',
      body: {
        clientToken: `t${Math.random().toString(36).slice(2, 14)}`,
        name: 'Limits',
        kind: 'csv',
        columns: ['address'],
        totalRows: 2,
        ...over,
      },
    });
  const created = ReviewSummary.parse(await (await review()).json());
  const chunk = (over: Record<string, unknown>) =>
    h.call(`/api/reviews/${created.id}/chunks`, {
      method: 'PUT',
      body: {
        index: 0,
        firstRow: 0,
        rows: [{ address: '1 Main St', cells: ['1 Main St'] }],
        last: false,
        ...over,
      },
    });
  return { h, review, chunk, id: created.id };
}

async function refused(res: Response, message: RegExp) {
  expect(res.status).toBe(400);
  const { error } = ApiErrorBody.parse(await res.json());
  expect(error.code).toBe('bad_request');
  expect(error.message).toMatch(message);
}

const nulMessage = /NUL character \(U\+0000\)/;
const q = encodeURIComponent;

describe.each(backends)('requests past what $name can hold', (backend) => {
  it('refuse U+0000 in any text: review name, origin, columns, address, cells, a fix, Activity filters', async () => {
    const { h, review, chunk, id } = await signedIn(backend);
    await refused(await review({ name: NUL }), /^name: .*U\+0000/);
    await refused(await review({ origin: NUL }), /^origin: .*U\+0000/);
    await refused(await review({ columns: [NUL] }), /^columns: .*U\+0000/);
    await refused(await chunk({ rows: [{ address: NUL }] }), /^address: .*U\+0000/);
    await refused(await chunk({ rows: [{ address: '1 Main St', cells: [NUL] }] }), /^cells: .*U\+0000/);
    const fix = (body: unknown) => h.call(`/api/reviews/${id}/rows/0/fix`, { method: 'POST', body });
    await refused(await fix({ address: NUL }), nulMessage);
    await refused(await fix({ address: '1 Main St', candidateId: NUL }), /^candidateId: .*U\+0000/);
    await refused(await h.call(`/api/activity?q=${q(NUL)}`), /^q: .*U\+0000/);
    await refused(await h.call(`/api/activity?propertyId=${q(NUL)}`), /^propertyId: .*U\+0000/);
    await refused(await h.call(`/api/activity/export.csv?q=${q(NUL)}`), nulMessage);
  });

  it('refuse U+0000 in a sign-in key, an address or a search, and in a review id or row index of a path', async () => {
    const { h } = await signedIn(backend);
    const before = h.upstreamRequests.length;
    const signIn = await h.call('/api/session', { method: 'POST', body: { apiKey: `pi_${NUL}` } });
    expect(signIn.status).toBe(400);
    await refused(await h.resolve(NUL), /control characters/);
    await refused(await h.call(`/api/properties/search?q=${q(`1 Main ${NUL}`)}`), /control characters/);
    expect(h.upstreamRequests.length).toBe(before);
    for (const path of [`/api/reviews/${q(NUL)}`, `/api/reviews/${q(NUL)}/rows`])
      await refused(await h.call(path), nulMessage);
  });

  it('refuse a whole number past a 32-bit integer: run, page limit, chunk index, first row, skipped lines', async () => {
    const { h, review, chunk, id } = await signedIn(backend);
    await refused(await h.call(`/api/reviews/${id}/rows?run=${HUGE}`), /^run: at most 2147483647/);
    await refused(await h.call(`/api/reviews/${id}/rows?run=-1`), /^run: /);
    await refused(await h.call(`/api/reviews/${id}/rows?cursor=${HUGE}`), /^cursor: /);
    await refused(await h.call(`/api/reviews/${id}/rows?limit=${HUGE}`), /^limit: /);
    await refused(await chunk({ index: HUGE }), /^index: at most 2147483647/);
    await refused(await chunk({ firstRow: HUGE }), /^firstRow: at most 2147483647/);
    await refused(await review({ skippedBlank: HUGE }), /^skippedBlank: at most 2147483647/);
    await refused(await h.call(`/api/activity?limit=${HUGE}`), /^limit: /);
    await refused(await h.call(`/api/activity?cursor=${'9'.repeat(16)}`), /^cursor: /);
    // A row index past any review's rows is no row (the path's own rule), never a database error.
    const fix = await h.call(`/api/reviews/${id}/rows/${HUGE}/fix`, {
      method: 'POST',
      body: { address: '1 Main St' },
    });
    expect(fix.status).toBe(404);
    // The largest whole number that fits is taken, and found to be nothing.
    expect((await h.call(`/api/reviews/${id}/rows?run=2147483647`)).status).toBe(200);
    expect((await chunk({ index: 2_147_483_647 })).status).toBe(200);
  });

  it('refuse half a character (a lone surrogate) in any text, and a review name that shows nothing or reorders itself', async () => {
    const { review, chunk } = await signedIn(backend);
    await refused(await review({ name: 'a\ud800b' }), /^name: .*lone UTF-16 surrogate/);
    await refused(await chunk({ rows: [{ address: '1 Main St \udc00' }] }), /^address: .*surrogate/);
    await refused(await review({ name: '\u200b\u200b' }), /^name: use at least one visible character/);
    await refused(await review({ name: 'Invoice \u202Efdp.exe' }), /^name: remove the text-direction/);
    await refused(await review({ name: 'a \u2066b\u2069' }), /^name: remove the text-direction/);
    // A whole pair is a character like any other, and names in any script are names.
    expect((await review({ name: 'Emoji 🏠 review' })).status).toBe(201);
    expect((await review({ name: 'مراجعة العقارات' })).status).toBe(201);
  });
});
