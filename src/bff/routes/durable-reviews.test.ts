import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import {
  ApiErrorBody,
  type CreateReviewRequest,
  type ReviewInputRow,
  ReviewListResponse,
  ReviewRowsResponse,
  ReviewSummary,
  SearchResponse,
} from '../../contract/index.ts';
import { type Database, openDatabase } from '../db/database.ts';
import { SqlReviewQueue } from '../stores/reviews/queue.ts';
import { createHarness } from '../test-support/harness.ts';
import { PostgresServer, postgresAvailable } from '../test-support/postgres-process.ts';
import { type Harness, reviewDatabase } from '../test-support/review-database.ts';

const reviews = reviewDatabase('reviews');
const make = () => reviews.make();

async function addresses(h: Harness, n: number): Promise<string[]> {
  const page = SearchResponse.parse(await (await h.call('/api/properties/search?q=main')).json());
  return [...new Set(page.items.filter((p) => !p.attributes.unit).map((p) => p.address))].slice(0, n);
}

const token = () => `t${Math.random().toString(36).slice(2, 14)}`;
const create = async (h: Harness, over: Partial<CreateReviewRequest> = {}) => {
  const res = await h.call('/api/reviews', {
    method: 'POST',
    body: {
      clientToken: token(),
      name: 'Loans',
      kind: 'csv',
      columns: ['loan_id', 'address'],
      totalRows: 3,
      ...over,
    },
  });
  expect(res.status).toBe(201);
  return ReviewSummary.parse(await res.json());
};
const chunk = (
  h: Harness,
  id: string,
  index: number,
  firstRow: number,
  rows: ReviewInputRow[],
  last: boolean,
) => h.call(`/api/reviews/${id}/chunks`, { method: 'PUT', body: { index, firstRow, rows, last } });
const summary = async (h: Harness, id: string) =>
  ReviewSummary.parse(await (await h.call(`/api/reviews/${id}`)).json());
const finished = (h: Harness, id: string, run = 1) =>
  vi.waitFor(
    async () => {
      const s = await summary(h, id);
      expect(s.runs[run - 1]?.finishedAt).toBeTruthy();
      return s;
    },
    { timeout: 10_000, interval: 20 },
  );
const csvRows = (list: string[]): ReviewInputRow[] =>
  list.map((a, i) => ({ address: a, cells: [`LN-${i}`, a] }));

describe('/api/reviews (kept on the server)', () => {
  it('takes rows in chunks, works them in the background, and keeps each row’s own cells', async () => {
    const h = make();
    await h.signIn();
    const list = await addresses(h, 2);
    const review = await create(h, { totalRows: 3 });
    const rows = [
      ...csvRows(list),
      { address: 'zz 99999 Nowhere Lane, Atlantis, ZZ', cells: ['LN-2', 'nowhere'] },
    ];
    const firstTry = await chunk(h, review.id, 1, 2, rows.slice(2), true);
    expect(firstTry.status, await firstTry.clone().text()).toBe(200);
    // The same chunk again (a retried upload) adds nothing.
    const again = ReviewSummary.parse(await (await chunk(h, review.id, 1, 2, rows.slice(2), true)).json());
    expect(again).toMatchObject({ status: 'uploading', receivedRows: 1 });
    const all = ReviewSummary.parse(await (await chunk(h, review.id, 0, 0, rows.slice(0, 2), false)).json());
    expect(all).toMatchObject({ status: 'running', receivedRows: 3 });
    h.reviews?.worker.start();
    const done = await finished(h, review.id);
    expect(done.runs[0]?.counts).toMatchObject({ total: 3, done: 3, matched: 2 });
    const page = ReviewRowsResponse.parse(await (await h.call(`/api/reviews/${review.id}/rows`)).json());
    expect(page.rows.map((r) => [r.index, r.outcome, r.cells?.[0]])).toEqual([
      [0, 'matched', 'LN-0'],
      [1, 'matched', 'LN-1'],
      [2, 'not_found', 'LN-2'],
    ]);
    expect(page.rows[0]?.property?.address).toBe(list[0]);
    expect(page.nextCursor).toBeNull();
  });

  it('is shared by every key of the account and invisible to another account', async () => {
    const h = make();
    await h.signIn('pi_demo_professional');
    const mine = h.cookie;
    const review = await create(h, { name: 'Shared' });
    h.cookie = '';
    await h.signIn('pi_demo_professional_2');
    const list = ReviewListResponse.parse(await (await h.call('/api/reviews')).json());
    expect(list.reviews.map((r) => r.id)).toContain(review.id);
    expect(list.reviews.find((r) => r.id === review.id)?.createdBy).toMatch(/^[0-9a-f]{8}$/);
    h.cookie = '';
    await h.signIn('pi_demo_enterprise');
    const other = await h.call(`/api/reviews/${review.id}`);
    expect(other.status).toBe(404);
    expect(ApiErrorBody.parse(await other.json()).error.code).toBe('not_found');
    for (const [method, path] of [
      ['GET', `/api/reviews/${review.id}/rows`],
      ['GET', `/api/reviews/${review.id}/events`],
      ['POST', `/api/reviews/${review.id}/runs`],
      ['DELETE', `/api/reviews/${review.id}`],
    ] as const)
      expect((await h.call(path, { method })).status).toBe(404);
    expect((await chunk(h, review.id, 0, 0, csvRows(['1 Main St']), false)).status).toBe(404);
    expect(
      ReviewListResponse.parse(await (await h.call('/api/reviews')).json()).reviews.map((r) => r.id),
    ).not.toContain(review.id);
    h.cookie = mine;
    expect((await h.call(`/api/reviews/${review.id}`)).status).toBe(200);
  });

  it('never writes the API key to the database', async () => {
    const h = make();
    await h.signIn();
    const review = await create(h, { totalRows: 1 });
    await chunk(h, review.id, 0, 0, csvRows(await addresses(h, 1)), true);
    h.reviews?.worker.start();
    await finished(h, review.id);
    const file = await import('node:fs').then((fs) => fs.readFileSync(join(reviews.dir, 'proplens.db')));
    const wal = await import('node:fs').then((fs) =>
      fs.existsSync(join(reviews.dir, 'proplens.db-wal'))
        ? fs.readFileSync(join(reviews.dir, 'proplens.db-wal'))
        : Buffer.alloc(0),
    );
    for (const bytes of [file, wal]) expect(bytes.includes(Buffer.from('pi_demo_professional'))).toBe(false);
  });

  it('waits while nobody of the account is signed in, and goes on at the next sign-in', async () => {
    const h = make();
    await h.signIn();
    const review = await create(h, { totalRows: 2 });
    await chunk(h, review.id, 0, 0, csvRows(await addresses(h, 2)), true);
    const { accountId } = (await (await h.call('/api/session')).json()) as { accountId: string };
    await h.call('/api/session', { method: 'DELETE' });
    expect(await h.sessions.liveAccounts()).toEqual([]);
    const asked = vi.spyOn(h.sessions, 'liveAccounts');
    h.reviews?.worker.start();
    // Its first look finds no session to lend a key, so it takes no row. (Checked then, not after the next
    // sign-in: on a loaded machine the worker's first look may come after that sign-in.)
    await vi.waitFor(() => expect(asked).toHaveBeenCalled());
    expect(await asked.mock.results[0]?.value).toEqual([]);
    const rows = await h.reviews?.store.rows(accountId, review.id, { limit: 5 });
    expect(rows?.rows.map((r) => r.outcome)).toEqual(['pending', 'pending']);
    await h.signIn('pi_demo_professional_2');
    h.reviews?.worker.notify();
    await finished(h, review.id);
  });

  it('checks a finished review again, asking the service itself rather than the cache', async () => {
    const h = make();
    await h.signIn();
    const review = await create(h, { totalRows: 2 });
    await chunk(h, review.id, 0, 0, csvRows(await addresses(h, 2)), true);
    expect((await h.call(`/api/reviews/${review.id}/runs`, { method: 'POST' })).status).toBe(409);
    h.reviews?.worker.start();
    await finished(h, review.id);
    const before = h.upstreamRequests.length;
    const second = await h.call(`/api/reviews/${review.id}/runs`, { method: 'POST' });
    expect(second.status).toBe(201);
    const done = await finished(h, review.id, 2);
    expect(done.runs.map((r) => r.number)).toEqual([1, 2]);
    expect(h.upstreamRequests.length - before).toBe(2);
    const page = ReviewRowsResponse.parse(
      await (await h.call(`/api/reviews/${review.id}/rows?run=2`)).json(),
    );
    expect(page.rows.every((r) => r.outcome === 'matched' && r.cached === false)).toBe(true);
    // The reference service's records did not drift: nothing changed.
    expect(page.rows.some((r) => r.previous)).toBe(false);
  });

  it('takes no answer from a client: a row carrying one is refused, and the server looks up every row itself', async () => {
    const h = make();
    await h.signIn();
    const [address] = await addresses(h, 1);
    const review = await create(h, { kind: 'area', columns: [], totalRows: 2 });
    const forged = {
      address: 'zz 1 Forged Way, Nowhere, ZZ',
      imported: { outcome: 'matched', property: { id: 'pi_forged', address: '1 Forged Way' } },
    };
    const refused = await chunk(h, review.id, 0, 0, [forged as ReviewInputRow, { address: 'x' }], true);
    expect(refused.status).toBe(400);
    expect(ApiErrorBody.parse(await refused.json()).error).toMatchObject({
      code: 'bad_request',
      message: expect.stringMatching(/imported/),
    });
    expect(await summary(h, review.id)).toMatchObject({ status: 'uploading', receivedRows: 0 });
    // A web link is no address: the BFF answers it failed itself, without asking the service.
    const rows = [{ address: address as string }, { address: 'https://example.com/1-main-st' }];
    expect((await chunk(h, review.id, 0, 0, rows, true)).status).toBe(200);
    const before = h.upstreamRequests.length;
    h.reviews?.worker.start();
    expect((await finished(h, review.id)).runs[0]?.counts).toMatchObject({ done: 2, matched: 1, failed: 1 });
    expect(h.upstreamRequests.length - before).toBe(1);
    const page = ReviewRowsResponse.parse(await (await h.call(`/api/reviews/${review.id}/rows`)).json());
    expect(page.rows.map((r) => [r.outcome, r.error?.code ?? r.property?.address])).toEqual([
      ['matched', address],
      ['failed', 'bad_request'],
    ]);
  });

  it('answers a known path under another method 405, with the methods it takes', async () => {
    const h = make();
    await h.signIn();
    const review = await create(h);
    for (const [path, method, allow] of [
      [`/api/reviews/${review.id}/chunks`, 'POST', 'PUT'],
      [`/api/reviews/${review.id}`, 'PATCH', 'GET, HEAD, DELETE'],
      ['/api/reviews', 'DELETE', 'GET, HEAD, POST'],
    ] as const) {
      const res = await h.call(path, { method, body: {} });
      expect(res.status, `${method} ${path}`).toBe(405);
      expect(res.headers.get('allow')).toBe(allow);
      expect(ApiErrorBody.parse(await res.json()).error.code).toBe('method_not_allowed');
    }
    expect((await h.call(`/api/reviews/${review.id}/nothing-here`)).status).toBe(404);
  });

  it('refuses bad input with what to fix, before anything is stored', async () => {
    const h = make();
    expect((await h.call('/api/reviews')).status).toBe(401);
    await h.signIn();
    const bad = await h.call('/api/reviews', {
      method: 'POST',
      body: { clientToken: token(), name: 'X', kind: 'csv', columns: [], totalRows: 100_001 },
    });
    expect(bad.status).toBe(400);
    expect(ApiErrorBody.parse(await bad.json()).error.message).toMatch(/100000 rows/);
    const review = await create(h, { totalRows: 2 });
    expect((await chunk(h, review.id, 0, 1, csvRows(['1 Main St', '2 Main St']), true)).status).toBe(400);
    const huge = await h.call(`/api/reviews/${review.id}/chunks`, {
      method: 'PUT',
      raw: 'x'.repeat(1600 * 1024),
    });
    expect(huge.status).toBe(413);
    const deleted = await h.call(`/api/reviews/${review.id}`, { method: 'DELETE' });
    expect(deleted.status).toBe(204);
    expect((await h.call(`/api/reviews/${review.id}`)).status).toBe(404);
  });
});

/*
 * The API under the races the store guards against (review-races.test.ts races the store itself): on
 * PostgreSQL, requests sent at once get their own answers, never a 500.
 */
describe.skipIf(!postgresAvailable())('/api/reviews raced on PostgreSQL', () => {
  const ROUNDS = 5;
  let server: PostgresServer;
  let database: Database;
  beforeAll(async () => {
    server = await PostgresServer.start();
    database = await openDatabase({ url: server.url, dir: '' });
  }, 60_000);
  afterAll(async () => {
    await database?.close();
    await server?.destroy();
  });
  const rows = (n: number, from: number) =>
    csvRows(Array.from({ length: n }, (_, i) => `${from + i} Main St`));

  it('two Check again at once: one starts run 2 (201), the other is told to wait (409)', async () => {
    const h = createHarness({ database });
    await h.signIn();
    const accountId = (await (await h.call('/api/session')).json()).accountId as string;
    const queue = new SqlReviewQueue(database.db, database.dialect);
    for (let r = 0; r < ROUNDS; r++) {
      const review = await create(h, { totalRows: 2 });
      await chunk(h, review.id, 0, 0, rows(2, 0), true);
      // Answered here rather than by the worker: the race is the two requests, not the lookups.
      for (const row of await queue.lease('test', [accountId], 10, 30_000))
        await queue.complete('test', row, { outcome: 'not_found', cached: false, retrievedAt: 'now' });
      const answers = await Promise.all(
        [0, 1].map(() => h.call(`/api/reviews/${review.id}/runs`, { method: 'POST' })),
      );
      expect.soft(answers.map((a) => a.status).sort(), `round ${r}`).toEqual([201, 409]);
      expect
        .soft(
          (await summary(h, review.id)).runs.map((run) => run.number),
          `round ${r}`,
        )
        .toEqual([1, 2]);
    }
  });

  it('a DELETE among chunk uploads: 204, each chunk 200 or 404, never a 500', async () => {
    const h = createHarness({ database });
    await h.signIn();
    for (let r = 0; r < ROUNDS * 2; r++) {
      const review = await create(h, { totalRows: 8 });
      const chunks = [0, 1, 2, 3].map((i) => chunk(h, review.id, i, i * 2, rows(2, i * 2), i === 3));
      const go = r % 2 === 0 ? Promise.resolve() : Promise.race(chunks);
      const deleted = go.then(() => h.call(`/api/reviews/${review.id}`, { method: 'DELETE' }));
      const [gone, ...taken] = await Promise.all([deleted, ...chunks]);
      expect.soft(gone.status, `round ${r}`).toBe(204);
      for (const answer of taken) expect.soft([200, 404], `round ${r}`).toContain(answer.status);
      expect.soft((await h.call(`/api/reviews/${review.id}`)).status, `round ${r}`).toBe(404);
    }
  });
});
