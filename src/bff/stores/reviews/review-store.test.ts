import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type Kysely, sql, type Transaction } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CreateReviewRequest, Property, ReviewInputRow } from '../../../contract/index.ts';
import { type Database, DatabaseTooNew, inDatabase, openDatabase } from '../../db/database.ts';
import type { DatabaseSchema } from '../../db/schema.ts';
import { ApiError } from '../../errors.ts';
import type { RowResult } from '../../reviews/look-up-row.ts';
import { PostgresServer, postgresAvailable } from '../../test-support/postgres-process.ts';
import { SqlReviewQueue } from './queue.ts';
import { SqlReviewStore } from './review-store.ts';

const property = (id: string, over: Partial<Property> = {}): Property => ({
  id,
  address: `${id} Main St, Springfield, IL 62701`,
  source: 'Sangamon County Assessor',
  sourceKind: 'assessor',
  confidence: 'high',
  lastVerified: '2026-01-01',
  attributes: {},
  ...over,
});
const matched = (p: Property): RowResult => ({
  outcome: 'matched',
  property: p,
  cached: false,
  retrievedAt: '2026-11-24T10:00:00.000Z',
});
const request = (over: Partial<CreateReviewRequest> = {}): CreateReviewRequest => ({
  clientToken: `tok-${Math.random().toString(36).slice(2, 12)}`,
  name: 'Listings',
  kind: 'csv',
  columns: ['loan_id', 'street', 'city'],
  totalRows: 5,
  ...over,
});
const rows = (n: number, from = 0): ReviewInputRow[] =>
  Array.from({ length: n }, (_, i) => ({
    address: `${from + i} Main St`,
    cells: [`L${from + i}`, `${from + i} Main St`, 'Springfield'],
  }));

/** `db`, but `after` runs as each of its transactions commits, before the caller goes on. */
function afterCommit(db: Kysely<DatabaseSchema>, after: () => Promise<void>): Kysely<DatabaseSchema> {
  return new Proxy(db, {
    get(target, prop) {
      if (prop === 'transaction')
        return () => ({
          execute: async <T>(work: (trx: Transaction<DatabaseSchema>) => Promise<T>) => {
            const out = await target.transaction().execute(work);
            await after();
            return out;
          },
        });
      const value = Reflect.get(target, prop);
      return typeof value === 'function' ? value.bind(target) : value;
    },
  });
}

interface Backend {
  name: string;
  open(): Promise<Database>;
  close(): Promise<void>;
  server?: PostgresServer;
}

const sqliteBackend = (): Backend => {
  const dir = mkdtempSync(join(tmpdir(), 'proplens-db-'));
  return {
    name: 'SQLite',
    open: () => openDatabase({ dir }),
    close: async () => rmSync(dir, { recursive: true, force: true }),
  };
};
const postgresBackend = (): Backend => {
  const backend: Backend = {
    name: 'PostgreSQL',
    open: async () => {
      backend.server ??= await PostgresServer.start();
      return openDatabase({ url: backend.server.url, dir: '' });
    },
    close: async () => backend.server?.destroy(),
  };
  return backend;
};

const backends = [sqliteBackend(), ...(postgresAvailable() ? [postgresBackend()] : [])];

describe.each(backends)('review store on $name', (backend) => {
  let database: Database;
  let store: SqlReviewStore;
  let now = Date.parse('2026-11-24T10:00:00Z');
  const clock = () => now;
  const queue = () => new SqlReviewQueue(database.db, database.dialect, clock, database.sqlite);

  beforeAll(async () => {
    database = await backend.open();
    store = new SqlReviewStore(database.db, clock);
  }, 60_000);
  afterAll(async () => {
    await database?.close();
    await backend.close();
  });

  it('migrates once, and refuses a database from a newer PropLens with what to do', async () => {
    const again = await backend.open();
    await again.close();
    await sql`insert into kysely_migration (name, timestamp) values ('9999-from-the-future', '2027-01-01')`.execute(
      database.db,
    );
    await expect(backend.open()).rejects.toThrow(DatabaseTooNew);
    await expect(backend.open()).rejects.toThrow(
      /newer than this PropLens: it has migration 9999-from-the-future.*Upgrade PropLens/,
    );
    await sql`delete from kysely_migration where name = '9999-from-the-future'`.execute(database.db);
  });

  it('makes one review per start click, and shows it to its account only', async () => {
    const req = request();
    const a = await store.create('acct-1', 'fp-aaaa', req);
    const again = await store.create('acct-1', 'fp-bbbb', req);
    expect(again.id).toBe(a.id);
    const other = await store.create('acct-1', 'fp-aaaa', request());
    expect(other.id).not.toBe(a.id);
    expect(a).toMatchObject({
      status: 'uploading',
      createdBy: 'fp-aaaa',
      totalRows: 5,
      receivedRows: 0,
      columns: ['loan_id', 'street', 'city'],
    });
    expect(await store.summary('acct-2', a.id)).toBeUndefined();
    expect(await store.rows('acct-2', a.id, { limit: 10 })).toBeUndefined();
    expect(await store.addChunk('acct-2', a.id, { index: 0, firstRow: 0, rows: rows(5), last: true })).toBe(
      'not_found',
    );
    expect(await store.delete('acct-2', a.id)).toBe(false);
    expect((await store.list('acct-2')).map((r) => r.id)).not.toContain(a.id);
    expect((await store.list('acct-1')).map((r) => r.id)).toEqual(expect.arrayContaining([a.id, other.id]));
  });

  it('takes chunks in any order, a chunk sent twice once, and starts when every row is in', async () => {
    const review = await store.create('acct-1', 'fp', request({ totalRows: 5 }));
    const second = await store.addChunk('acct-1', review.id, {
      index: 1,
      firstRow: 3,
      rows: rows(2, 3),
      last: true,
    });
    expect(second).toMatchObject({ status: 'uploading', receivedRows: 2 });
    expect(
      await store.addChunk('acct-1', review.id, { index: 1, firstRow: 3, rows: rows(2, 3), last: true }),
    ).toMatchObject({ receivedRows: 2 });
    expect(
      await store.addChunk('acct-1', review.id, { index: 2, firstRow: 4, rows: rows(2, 4), last: true }),
    ).toBe('out_of_range');
    const all = await store.addChunk('acct-1', review.id, {
      index: 0,
      firstRow: 0,
      rows: rows(3),
      last: false,
    });
    expect(all).toMatchObject({
      status: 'running',
      receivedRows: 5,
      runs: [{ number: 1, finishedAt: null, counts: { total: 5, done: 0 } }],
    });
    expect(
      await store.addChunk('acct-1', review.id, { index: 3, firstRow: 0, rows: rows(1), last: true }),
    ).toBe('not_uploading');
    const page = await store.rows('acct-1', review.id, { limit: 3 });
    expect(page?.rows.map((r) => [r.index, r.outcome, r.cells?.[0]])).toEqual([
      [0, 'pending', 'L0'],
      [1, 'pending', 'L1'],
      [2, 'pending', 'L2'],
    ]);
    expect(page?.last).toBe(false);
    const rest = await store.rows('acct-1', review.id, { limit: 3, after: 2 });
    expect(rest?.rows.map((r) => r.index)).toEqual([3, 4]);
    expect(rest?.last).toBe(true);
  });

  it('leases each row to one worker, hands out an expired lease again, and keeps exactly one outcome', async () => {
    const review = await store.create('acct-q', 'fp', request({ totalRows: 6 }));
    await store.addChunk('acct-q', review.id, { index: 0, firstRow: 0, rows: rows(6), last: true });
    const [q1, q2] = [queue(), queue()];
    const [a, b] = await Promise.all([
      q1.lease('w1', ['acct-q'], 3, 30_000),
      q2.lease('w2', ['acct-q'], 3, 30_000),
    ]);
    const keys = [...a, ...b].map((r) => r.index);
    expect(new Set(keys).size).toBe(keys.length);
    expect(keys.sort()).toEqual([0, 1, 2, 3, 4, 5]);
    expect(await q1.lease('w1', ['acct-q'], 3, 30_000)).toEqual([]);
    expect(await q1.lease('w1', ['someone-else'], 3, 30_000)).toEqual([]);
    const [first] = a;
    if (!first) throw new Error('nothing leased');
    expect(await q2.complete('w2', first, matched(property('p0')))).toBe(false); // not w2's lease
    now += 20_000;
    await q2.extend('w2', b, 30_000); // w2 lives on
    now += 11_000; // w1 died: its leases ran out
    const retaken = await q2.lease('w2', ['acct-q'], 10, 30_000);
    expect(retaken.map((r) => r.index).sort()).toEqual(a.map((r) => r.index).sort());
    expect(await q1.complete('w1', first, matched(property('late')))).toBe(false); // too late
    for (const row of [...retaken, ...b])
      expect(await q2.complete('w2', row, matched(property(`p${row.index}`)))).toBe(true);
    expect(await q2.complete('w2', first, matched(property('twice')))).toBe(false);
    const summary = await store.summary('acct-q', review.id);
    expect(summary).toMatchObject({ status: 'done', runs: [{ counts: { total: 6, done: 6, matched: 6 } }] });
    expect(summary?.runs[0]?.finishedAt).not.toBeNull();
    const page = await store.rows('acct-q', review.id, { limit: 10 });
    expect(page?.rows.map((r) => r.property?.id)).toEqual(['p0', 'p1', 'p2', 'p3', 'p4', 'p5']);
    const seqs = page?.rows.map((r) => r.seq) ?? [];
    expect(new Set(seqs).size).toBe(6);
    const since = await store.rows('acct-q', review.id, { limit: 10, sinceSeq: Math.max(...seqs) - 2 });
    expect(since?.rows).toHaveLength(2);
  });

  it('a replica that lost its lease cannot extend, put back or complete the row the next one took', async () => {
    const review = await store.create('acct-l', 'fp', request({ totalRows: 2 }));
    await store.addChunk('acct-l', review.id, { index: 0, firstRow: 0, rows: rows(2), last: true });
    const [q1, q2] = [queue(), queue()];
    const lost = await q1.lease('w1', ['acct-l'], 5, 30_000);
    now += 31_000; // w1 stalled past its lease: w2 takes the rows
    const retaken = await q2.lease('w2', ['acct-l'], 5, 30_000);
    expect(retaken.map((r) => r.index)).toEqual([0, 1]);
    const leases = () =>
      database.db
        .selectFrom('review_results')
        .select(['row_index', 'state', 'lease_owner', 'lease_until', 'not_before', 'attempts'])
        .where('review_id', '=', review.id)
        .orderBy('row_index')
        .execute();
    const w2Holds = await leases();
    expect(w2Holds.every((r) => r.state === 'leased' && r.lease_owner === 'w2')).toBe(true);
    now += 1_000;
    const [first, second] = lost;
    if (!first || !second) throw new Error('nothing leased');
    await q1.extend('w1', lost, 60_000);
    await q1.retryLater('w1', first, now + 60_000);
    expect(await q1.complete('w1', second, matched(property('late')))).toBe(false);
    expect(await leases()).toEqual(w2Holds);
    for (const row of retaken)
      expect(await q2.complete('w2', row, matched(property(`p${row.index}`)))).toBe(true);
    expect(await store.summary('acct-l', review.id)).toMatchObject({
      status: 'done',
      runs: [{ counts: { total: 2, done: 2, matched: 2 } }],
    });
    const page = await store.rows('acct-l', review.id, { limit: 5 });
    expect(page?.rows.map((r) => r.property?.id)).toEqual(['p0', 'p1']);
  });

  it('counts the rows a chunk adds, not the rows it carries: an overlapping chunk under a new index', async () => {
    const review = await store.create('acct-o', 'fp', request({ totalRows: 4 }));
    await store.addChunk('acct-o', review.id, { index: 0, firstRow: 0, rows: rows(2), last: false });
    // Rows 1 and 2 again under a new index (a client bug): only row 2 is new.
    const overlapping = await store.addChunk('acct-o', review.id, {
      index: 1,
      firstRow: 1,
      rows: rows(2, 1),
      last: false,
    });
    expect(overlapping).toMatchObject({ status: 'uploading', receivedRows: 3, runs: [] });
    const all = await store.addChunk('acct-o', review.id, {
      index: 2,
      firstRow: 3,
      rows: rows(1, 3),
      last: true,
    });
    expect(all).toMatchObject({ status: 'running', receivedRows: 4, runs: [{ counts: { total: 4 } }] });
    const page = await store.rows('acct-o', review.id, { limit: 10 });
    expect(page?.rows.map((r) => r.index)).toEqual([0, 1, 2, 3]);
  });

  it('a record whose source changed between runs is a change, and says the source it had before', async () => {
    const review = await store.create('acct-s', 'fp', request({ totalRows: 2 }));
    await store.addChunk('acct-s', review.id, { index: 0, firstRow: 0, rows: rows(2), last: true });
    const q = queue();
    for (const row of await q.lease('w', ['acct-s'], 5, 30_000))
      await q.complete('w', row, matched(property(`p${row.index}`)));
    await store.checkAgain('acct-s', review.id);
    for (const row of await q.lease('w', ['acct-s'], 5, 30_000))
      await q.complete(
        'w',
        row,
        matched(property(`p${row.index}`, row.index === 0 ? { source: 'Sangamon County Recorder' } : {})),
      );
    const page = await store.rows('acct-s', review.id, { limit: 5 });
    expect(page?.rows.map((r) => r.previous ?? null)).toEqual([
      {
        outcome: 'matched',
        propertyId: 'p0',
        source: 'Sangamon County Assessor',
        confidence: 'high',
        lastVerified: '2026-01-01',
      },
      null,
    ]);
    expect(page?.rows[0]?.property?.source).toBe('Sangamon County Recorder');
  });

  it('fixes an answered row once, moving its run’s counts once even when two fixes race', async () => {
    const review = await store.create('acct-f', 'fp', request({ totalRows: 2 }));
    await store.addChunk('acct-f', review.id, { index: 0, firstRow: 0, rows: rows(2), last: true });
    const q = queue();
    const leased = await q.lease('w', ['acct-f'], 5, 30_000);
    const [first, second] = leased;
    if (!first || !second) throw new Error('nothing leased');
    // Row 1 stays leased (being looked up): it cannot be fixed until it has an answer of its own.
    const notFound: RowResult = { outcome: 'not_found', cached: false, retrievedAt: '2026-11-24T10:00:00Z' };
    await q.complete('w', first, notFound);
    const answeredSeq = (await store.row('acct-f', review.id, 0))?.seq ?? Number.NaN;
    expect(answeredSeq).toBeGreaterThan(0);
    const fix = (address: string) => ({
      address,
      how: 'edited' as const,
      by: 'fp2',
      at: '2026-11-24T11:00:00Z',
    });
    expect(await store.fixRow('acct-f', review.id, 1, fix('1 Elm St'), matched(property('e1')))).toBe(
      'not_answered',
    );
    expect(await store.fixRow('acct-other', review.id, 0, fix('1 Elm St'), matched(property('e1')))).toBe(
      'not_found',
    );
    expect(await store.fixRow('acct-f', review.id, 7, fix('1 Elm St'), matched(property('e1')))).toBe(
      'no_such_row',
    );
    const [a, b] = await Promise.all([
      store.fixRow('acct-f', review.id, 0, fix('0 Elm St'), matched(property('e0'))),
      store.fixRow('acct-f', review.id, 0, fix('0 Oak St'), matched(property('o0'))),
    ]);
    expect(typeof a === 'object' && typeof b === 'object').toBe(true);
    const summary = await store.summary('acct-f', review.id);
    expect(summary?.runs[0]?.counts).toMatchObject({ total: 2, done: 1, notFound: 0, matched: 1 });
    const row = await store.row('acct-f', review.id, 0);
    expect(row).toMatchObject({ input: '0 Main St', outcome: 'matched' });
    // Whichever fix came last holds the row, whole: its address and its record together.
    expect([
      ['0 Elm St', 'e0'],
      ['0 Oak St', 'o0'],
    ]).toContainEqual([row?.fix?.address, row?.property?.id]);
    // The row's sequence moved, so live views hear of the fix.
    expect(row?.seq).toBeGreaterThan(answeredSeq);
    await q.complete('w', second, matched(property('m1')));
    await store.checkAgain('acct-f', review.id);
    const again = await q.lease('w', ['acct-f'], 5, 30_000);
    expect(again.find((r) => r.index === 0)?.address).toBe(row?.fix?.address);
    expect(again.find((r) => r.index === 1)?.address).toBe('1 Main St');
  });

  it('a row fixed in a run says no "previous" for it: the fix changed it, not the service', async () => {
    const review = await store.create('acct-p', 'fp', request({ totalRows: 2 }));
    await store.addChunk('acct-p', review.id, { index: 0, firstRow: 0, rows: rows(2), last: true });
    const q = queue();
    const ambiguous: RowResult = { outcome: 'ambiguous', cached: false, retrievedAt: '2026-11-24T10:00:00Z' };
    for (const row of await q.lease('w', ['acct-p'], 5, 30_000)) await q.complete('w', row, ambiguous);
    await store.checkAgain('acct-p', review.id);
    for (const row of await q.lease('w', ['acct-p'], 5, 30_000))
      await q.complete('w', row, row.index === 1 ? matched(property('m1')) : ambiguous);
    const fix = { address: '0 Elm St', how: 'candidate' as const, by: 'fp', at: '2026-11-24T11:00:00Z' };
    await store.fixRow('acct-p', review.id, 0, fix, matched(property('e0')));
    const page = await store.rows('acct-p', review.id, { limit: 5 });
    expect(page?.rows[0]).toMatchObject({ outcome: 'matched', fix: { run: 2 } });
    expect(page?.rows[0]?.previous).toBeUndefined();
    // Row 1 changed by the service's own answer: it still says what it was.
    expect(page?.rows[1]?.previous).toMatchObject({ outcome: 'ambiguous' });
    // The next run compares with the fixed answer like any other.
    await store.checkAgain('acct-p', review.id);
    for (const row of await q.lease('w', ['acct-p'], 5, 30_000))
      await q.complete('w', row, matched(property(row.index === 0 ? 'e0-moved' : 'm1')));
    const third = await store.rows('acct-p', review.id, { limit: 5 });
    expect(third?.rows[0]?.previous).toMatchObject({ outcome: 'matched', propertyId: 'e0' });
    expect(third?.rows[1]?.previous).toBeUndefined();
  });

  it('backs a retried row off until its time, counting the attempt', async () => {
    const review = await store.create('acct-r', 'fp', request({ totalRows: 1 }));
    await store.addChunk('acct-r', review.id, { index: 0, firstRow: 0, rows: rows(1), last: true });
    const q = queue();
    const [row] = await q.lease('w', ['acct-r'], 5, 30_000);
    if (!row) throw new Error('nothing leased');
    await q.retryLater('w', row, now + 10_000);
    expect(await q.lease('w', ['acct-r'], 5, 30_000)).toEqual([]);
    now += 10_000;
    expect(await q.lease('w', ['acct-r'], 5, 30_000)).toMatchObject([{ index: 0, attempts: 1 }]);
  });

  it('checks a finished review again as a new run, and says what changed since the last', async () => {
    const review = await store.create('acct-c', 'fp', request({ totalRows: 3 }));
    await store.addChunk('acct-c', review.id, { index: 0, firstRow: 0, rows: rows(3), last: true });
    expect(await store.checkAgain('acct-c', review.id)).toBe('busy');
    const q = queue();
    for (const row of await q.lease('w', ['acct-c'], 5, 30_000))
      await q.complete('w', row, matched(property(`p${row.index}`)));
    const second = await store.checkAgain('acct-c', review.id);
    expect(second).toMatchObject({
      status: 'running',
      runs: [{ number: 1 }, { number: 2, finishedAt: null }],
    });
    const leased = await q.lease('w', ['acct-c'], 5, 30_000);
    expect(leased.every((r) => r.fresh && r.run === 2)).toBe(true);
    for (const row of leased) {
      const p =
        row.index === 0
          ? property('p0', { confidence: 'medium' })
          : row.index === 1
            ? property('p1', { lastVerified: '2026-11-24' })
            : property('p2');
      await q.complete('w', row, matched(p));
    }
    const page = await store.rows('acct-c', review.id, { limit: 10 });
    expect(page?.rows.map((r) => r.previous ?? null)).toEqual([
      {
        outcome: 'matched',
        propertyId: 'p0',
        source: 'Sangamon County Assessor',
        confidence: 'high',
        lastVerified: '2026-01-01',
      },
      expect.objectContaining({ lastVerified: '2026-01-01' }),
      null,
    ]);
    expect(await store.checkAgain('acct-x', review.id)).toBeUndefined();
  });

  it('a chunk whose review is deleted the moment it is in answers the review as it left it, then not found', async () => {
    const review = await store.create('acct-dc', 'fp', request({ totalRows: 2 }));
    let deleteNext = true;
    const racing = new SqlReviewStore(
      afterCommit(database.db, async () => {
        if (deleteNext) await store.delete('acct-dc', review.id);
        deleteNext = false;
      }),
      clock,
    );
    const taken = await racing.addChunk('acct-dc', review.id, {
      index: 0,
      firstRow: 0,
      rows: rows(1),
      last: false,
    });
    expect(taken).toMatchObject({ id: review.id, status: 'uploading', receivedRows: 1 });
    expect(
      await racing.addChunk('acct-dc', review.id, { index: 1, firstRow: 1, rows: rows(1, 1), last: true }),
    ).toBe('not_found');
    for (const table of ['review_chunks', 'review_rows', 'review_runs', 'review_results'] as const)
      expect(
        await database.db.selectFrom(table).select('review_id').where('review_id', '=', review.id).execute(),
      ).toEqual([]);
  });

  it('deletes a review with all its rows for the whole account, and nothing of any other review', async () => {
    const review = await store.create('acct-d', 'fp', request({ totalRows: 2 }));
    await store.addChunk('acct-d', review.id, { index: 0, firstRow: 0, rows: rows(2), last: true });
    const kept = await store.create('acct-d', 'fp', request({ totalRows: 3 }));
    await store.addChunk('acct-d', kept.id, { index: 0, firstRow: 0, rows: rows(3), last: true });
    const theirs = await store.create('acct-e', 'fp', request({ totalRows: 2 }));
    await store.addChunk('acct-e', theirs.id, { index: 0, firstRow: 0, rows: rows(2), last: true });
    const rowsOf = async (id: string) =>
      (await database.db.selectFrom('review_rows').select('row_index').where('review_id', '=', id).execute())
        .length;
    const resultsOf = async (id: string) =>
      (
        await database.db
          .selectFrom('review_results')
          .select('row_index')
          .where('review_id', '=', id)
          .execute()
      ).length;

    // Another account's delete is refused, and takes nothing of the review with it.
    expect(await store.delete('acct-d', theirs.id)).toBe(false);
    expect([await rowsOf(theirs.id), await resultsOf(theirs.id)]).toEqual([2, 2]);

    expect(await store.delete('acct-d', review.id)).toBe(true);
    expect(await store.summary('acct-d', review.id)).toBeUndefined();
    expect([await rowsOf(review.id), await resultsOf(review.id)]).toEqual([0, 0]);
    // The account's other review, and the other account's, keep every row.
    expect([await rowsOf(kept.id), await resultsOf(kept.id)]).toEqual([3, 3]);
    expect([await rowsOf(theirs.id), await resultsOf(theirs.id)]).toEqual([2, 2]);
    expect((await queue().lease('w', ['acct-d'], 5, 30_000)).map((r) => r.reviewId)).toEqual([
      kept.id,
      kept.id,
      kept.id,
    ]);
  });

  it('appends 20,000 rows in chunks of 2,000 quickly', async () => {
    const total = 20_000;
    const review = await store.create('acct-big', 'fp', request({ totalRows: total }));
    const started = performance.now();
    for (let i = 0; i < total / 2000; i++)
      await store.addChunk('acct-big', review.id, {
        index: i,
        firstRow: i * 2000,
        rows: rows(2000, i * 2000),
        last: i === total / 2000 - 1,
      });
    const seconds = (performance.now() - started) / 1000;
    console.log(
      `${backend.name}: ${total} rows appended in ${seconds.toFixed(2)} s (${Math.round(total / seconds)} rows/s)`,
    );
    expect((await store.summary('acct-big', review.id))?.runs[0]?.counts.total).toBe(total);
  }, 60_000);
});

describe.skipIf(!postgresAvailable())('PostgreSQL away', () => {
  it('answers 503 store_unavailable within about 2 s while it is down, and works again once it is back', async () => {
    const server = await PostgresServer.start();
    const database = await openDatabase({ url: server.url, dir: '' });
    const store = new SqlReviewStore(database.db);
    try {
      expect(await database.ping()).toBe(true);
      await server.stop();
      const started = Date.now();
      const failure = await inDatabase(() => store.list('acct')).catch((e) => e);
      expect(failure).toBeInstanceOf(ApiError);
      expect((failure as ApiError).code).toBe('store_unavailable');
      expect(Date.now() - started).toBeLessThan(3_000);
      expect(await database.ping()).toBe(false);
      await server.start();
      expect(await inDatabase(() => store.list('acct'))).toEqual([]);
      expect(await database.ping()).toBe(true);
    } finally {
      await database.close();
      await server.destroy();
    }
  }, 60_000);
});
