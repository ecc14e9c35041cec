import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ReviewInputRow, ReviewSummary } from '../../../contract/index.ts';
import { type Database, openDatabase } from '../../db/database.ts';
import type { RowResult } from '../../reviews/look-up-row.ts';
import type { LeasedRow } from '../../reviews/worker.ts';
import { PostgresServer, postgresAvailable } from '../../test-support/postgres-process.ts';
import { tempDatabaseAll } from '../../test-support/temp-database.ts';
import { SqlReviewQueue } from './queue.ts';
import { SqlReviewStore } from './review-store.ts';

/*
 * Races raced: on one real PostgreSQL, two replicas' pools (10 connections each) send the same work at once,
 * round after round, so that each protection (a row lock, SKIP LOCKED, a locking update) is what keeps the
 * answer right: without it these tests fail in most rounds. The embedded SQLite has one writer, so none of this
 * can race there.
 */

const ROUNDS = 10;
const answered: RowResult = { outcome: 'not_found', cached: false, retrievedAt: '2026-11-24T10:00:00.000Z' };
const rows = (n: number, from = 0): ReviewInputRow[] =>
  Array.from({ length: n }, (_, i) => ({ address: `${from + i} Main St` }));
const kindOf = (outcome: PromiseSettledResult<unknown>) =>
  outcome.status === 'rejected'
    ? `threw ${String((outcome.reason as Error)?.message)}`
    : typeof outcome.value === 'object' && outcome.value !== null
      ? 'summary'
      : String(outcome.value);

describe.skipIf(!postgresAvailable())('review store races on PostgreSQL', () => {
  let server: PostgresServer;
  let replicas: Database[] = [];
  let round = 0;
  const account = () => `acct-race-${++round}`;
  const stores = () => replicas.map((d) => new SqlReviewStore(d.db));
  const queues = () => replicas.map((d) => new SqlReviewQueue(d.db, d.dialect));
  /** The i-th of many callers, spread over both replicas. */
  const pick = <T>(list: T[], i: number) => list[i % list.length] as T;

  beforeAll(async () => {
    server = await PostgresServer.start();
    replicas = await Promise.all([0, 1].map(() => openDatabase({ url: server.url, dir: '' })));
  }, 60_000);
  afterAll(async () => {
    await Promise.all(replicas.map((d) => d.close()));
    await server?.destroy();
  });

  /** A review of `total` rows, every row in: run 1 running. */
  async function running(accountId: string, total: number, label = ''): Promise<string> {
    const [store] = stores();
    const review = await store!.create(accountId, 'fp', {
      clientToken: `tok-${accountId}${label}`,
      name: 'Race',
      kind: 'paste',
      columns: [],
      totalRows: total,
    });
    await store!.addChunk(accountId, review.id, { index: 0, firstRow: 0, rows: rows(total), last: true });
    return review.id;
  }

  const leftOf = async (reviewId: string) => {
    const db = replicas[0]!.db;
    const counts = await Promise.all(
      (['review_chunks', 'review_rows', 'review_runs', 'review_results'] as const).map(async (table) => {
        const found = await db
          .selectFrom(table)
          .select('review_id')
          .where('review_id', '=', reviewId)
          .execute();
        return [table, found.length] as const;
      }),
    );
    return Object.fromEntries(counts);
  };

  it('many workers leasing at once, round the accounts and reviews: every row is leased to exactly one', async () => {
    const workers = 10;
    for (let r = 0; r < ROUNDS; r++) {
      // Two accounts of two reviews each: the round-robin sends every worker to the same few rows first.
      const accounts = [account(), account()];
      const reviews = await Promise.all(accounts.flatMap((a) => [running(a, 10, 'x'), running(a, 10, 'y')]));
      const qs = queues();
      const leased = await Promise.all(
        Array.from({ length: workers }, (_, w) =>
          pick(qs, w).lease(`w${w}`, accounts, 3, 30_000, {
            heldByAccount: new Map([[accounts[w % 2] as string, w]]),
          }),
        ),
      );
      const key = (row: LeasedRow) => `${row.reviewId}:${row.index}`;
      const keys = leased.flat().map(key);
      expect.soft(new Set(keys).size, `round ${r}: a row leased twice`).toBe(keys.length);
      // What nobody took is still there for the next ask, and each row is in the database under its one owner.
      const rest = (await pick(qs, 0).lease('late', accounts, 100, 30_000)).map(key);
      const all = reviews.flatMap((id) => Array.from({ length: 10 }, (_, i) => `${id}:${i}`));
      expect.soft([...keys, ...rest].sort(), `round ${r}`).toEqual(all.sort());
      const owners = await replicas[0]!.db
        .selectFrom('review_results')
        .select(['review_id', 'row_index', 'lease_owner'])
        .where('review_id', 'in', reviews)
        .execute();
      const ownerOf = new Map(owners.map((o) => [`${o.review_id}:${o.row_index}`, o.lease_owner]));
      expect
        .soft(
          leased.flatMap((batch) => batch.map((row) => ownerOf.get(key(row)))),
          `round ${r}`,
        )
        .toEqual(leased.flatMap((batch, w) => batch.map(() => `w${w}`)));
    }
  }, 60_000);

  it('many workers taking back leases that ran out at once: each row goes to exactly one', async () => {
    const workers = 10;
    // Two minutes on: every lease of a replica that died is over.
    const later = () => replicas.map((d) => new SqlReviewQueue(d.db, d.dialect, () => Date.now() + 120_000));
    for (let r = 0; r < ROUNDS; r++) {
      const accountId = account();
      const reviewId = await running(accountId, 20);
      expect(await queues()[0]!.lease('dead', [accountId], 20, 30_000)).toHaveLength(20);
      const qs = later();
      const leased = await Promise.all(
        Array.from({ length: workers }, (_, w) => pick(qs, w).lease(`w${w}`, [accountId], 3, 30_000)),
      );
      const indexes = leased.flat().map((row) => row.index);
      expect.soft(new Set(indexes).size, `round ${r}: a row leased twice`).toBe(indexes.length);
      expect.soft(indexes.length, `round ${r}`).toBeGreaterThan(0);
      const held = await replicas[0]!.db
        .selectFrom('review_results')
        .select(['row_index', 'lease_owner'])
        .where('review_id', '=', reviewId)
        .where('state', '=', 'leased')
        .execute();
      // The dead replica keeps none it lost, and nobody holds a row the database gives someone else.
      const owners = new Map(held.map((h) => [h.row_index, h.lease_owner]));
      for (const [w, batch] of leased.entries())
        for (const row of batch) expect.soft(owners.get(row.index), `round ${r}`).toBe(`w${w}`);
    }
  }, 60_000);

  it(
    'batched completions racing leases taken over: each row is completed once, by its lease holder only',
    () =>
      completionsUnderLease({
        replicas,
        running,
        account,
        queues,
        later: () => replicas.map((d) => new SqlReviewQueue(d.db, d.dialect, () => Date.now() + 120_000)),
      }),
    60_000,
  );

  it('a worker leasing while another replica holds a row skips that row rather than wait for it', async () => {
    const accountId = account();
    const reviewId = await running(accountId, 3);
    const [holder, asker] = replicas as [Database, Database];
    const queue = new SqlReviewQueue(asker.db, asker.dialect);
    const waiting = async (): Promise<'waiting'> => {
      for (;;) {
        const { rows: blocked } = await sql<{ n: number }>`
          select count(*)::int as n from pg_stat_activity where wait_event_type = 'Lock'`.execute(holder.db);
        if ((blocked[0]?.n ?? 0) > 0) return 'waiting';
        await new Promise((resolve) => setImmediate(resolve));
      }
    };
    await holder.db.transaction().execute(async (trx) => {
      // Another replica's lease transaction, caught between its SELECT … FOR UPDATE and its commit.
      await sql`select 1 from review_results where review_id = ${reviewId} and row_index = 0 for update`.execute(
        trx,
      );
      const first = await Promise.race([queue.lease('w', [accountId], 10, 30_000), waiting()]);
      expect(first === 'waiting' ? first : first.map((row) => row.index)).toEqual([1, 2]);
    });
  });

  it('two Check again at once: one starts the next run, the other is told the review is busy', async () => {
    for (let r = 0; r < ROUNDS; r++) {
      const accountId = account();
      const reviewId = await running(accountId, 2);
      const [q] = queues();
      for (const row of await q!.lease('w', [accountId], 10, 30_000)) await q!.complete('w', row, answered);
      const outcomes = await Promise.allSettled(
        Array.from({ length: 2 }, (_, i) => pick(stores(), i).checkAgain(accountId, reviewId)),
      );
      expect.soft(outcomes.map(kindOf).sort(), `round ${r}`).toEqual(['busy', 'summary']);
      const started = outcomes.find((o) => kindOf(o) === 'summary') as PromiseFulfilledResult<ReviewSummary>;
      expect
        .soft(
          started?.value.runs.map((run) => run.number),
          `round ${r}`,
        )
        .toEqual([1, 2]);
      expect.soft((await leftOf(reviewId)).review_results, `round ${r}`).toBe(4);
    }
  });

  it('exclusions racing two replicas’ workers: each row is answered or taken out once, and the counts agree', async () => {
    const TOTAL = 30;
    for (let r = 0; r < ROUNDS; r++) {
      const accountId = account();
      const reviewId = await running(accountId, TOTAL);
      const qs = queues();
      /** Leases and answers until no row is due (each replica its own worker). */
      const work = (i: number) => async () => {
        const q = pick(qs, i);
        for (;;) {
          const leased = await q.lease(`w${i}`, [accountId], 4, 30_000);
          if (leased.length === 0) return;
          for (const row of leased) await q.complete(`w${i}`, row, answered);
        }
      };
      // Even rows excluded for good; odd rows excluded and included again at once after.
      const reviewer = (index: number) => async () => {
        const store = pick(stores(), index);
        await store.excludeRow(accountId, { reviewId, index }, { reason: '', by: 'fp' });
        if (index % 2 === 1) await store.excludeRow(accountId, { reviewId, index }, null);
      };
      const racers = [
        ...Array.from({ length: 4 }, (_, i) => work(i)),
        ...Array.from({ length: TOTAL }, (_, i) => reviewer(i)),
      ];
      await Promise.all(racers.map((f) => f()));
      await work(0)();
      const db = replicas[0]!.db;
      const results = await db
        .selectFrom('review_results')
        .select(['row_index', 'state'])
        .where('review_id', '=', reviewId)
        .orderBy('row_index')
        .execute();
      const run = await db
        .selectFrom('review_runs')
        .selectAll()
        .where('review_id', '=', reviewId)
        .executeTakeFirstOrThrow();
      const answeredRows = results.filter((x) => x.state === 'done').length;
      const takenOut = results.filter((x) => x.state === 'cancelled');
      // A row taken out is one excluded for good; every other was answered once, and counted once.
      expect
        .soft(
          takenOut.every((x) => x.row_index % 2 === 0),
          `round ${r}`,
        )
        .toBe(true);
      expect.soft(answeredRows + takenOut.length, `round ${r}`).toBe(TOTAL);
      expect
        .soft([run.done, run.not_found, run.finished_at !== null], `round ${r}`)
        .toEqual([TOTAL, answeredRows, true]);
    }
  }, 60_000);

  it('chunks of one review sent at once: every row is counted and run 1 starts once', async () => {
    for (let r = 0; r < ROUNDS; r++) {
      const accountId = account();
      const store = stores();
      const review = await store[0]!.create(accountId, 'fp', {
        clientToken: `tok-${accountId}`,
        name: 'Race',
        kind: 'paste',
        columns: [],
        totalRows: 8,
      });
      const outcomes = await Promise.allSettled(
        [0, 1, 2, 3].map((index) =>
          pick(store, index).addChunk(accountId, review.id, {
            index,
            firstRow: index * 2,
            rows: rows(2, index * 2),
            last: index === 3,
          }),
        ),
      );
      expect.soft(outcomes.map(kindOf), `round ${r}`).toEqual(['summary', 'summary', 'summary', 'summary']);
      const summary = await store[0]!.summary(accountId, review.id);
      expect.soft(summary, `round ${r}`).toMatchObject({
        status: 'running',
        receivedRows: 8,
        runs: [{ number: 1, counts: { total: 8 } }],
      });
      expect.soft(await leftOf(review.id), `round ${r}`).toEqual({
        review_chunks: 4,
        review_rows: 8,
        review_runs: 1,
        review_results: 8,
      });
    }
  });

  it('a DELETE racing chunk uploads: chunks are taken or not found, and nothing of the review is left', async () => {
    for (let r = 0; r < ROUNDS; r++) {
      const accountId = account();
      const store = stores();
      const review = await store[0]!.create(accountId, 'fp', {
        clientToken: `tok-${accountId}`,
        name: 'Race',
        kind: 'paste',
        columns: [],
        totalRows: 8,
      });
      const chunks = [0, 1, 2, 3].map((index) =>
        pick(store, index).addChunk(accountId, review.id, {
          index,
          firstRow: index * 2,
          rows: rows(2, index * 2),
          last: index === 3,
        }),
      );
      // Even rounds delete at once; odd ones once a chunk is in, while the others are still being taken.
      const go = r % 2 === 0 ? Promise.resolve() : Promise.race(chunks).catch(() => {});
      const deleted = go.then(() => pick(store, r).delete(accountId, review.id));
      const [gone, ...taken] = await Promise.allSettled([deleted, ...chunks]);
      expect.soft(gone, `round ${r}`).toEqual({ status: 'fulfilled', value: true });
      for (const outcome of taken)
        expect.soft(['summary', 'not_found'], `round ${r}`).toContain(kindOf(outcome));
      expect.soft(await leftOf(review.id), `round ${r}`).toEqual({
        review_chunks: 0,
        review_rows: 0,
        review_runs: 0,
        review_results: 0,
      });
    }
  });

  it('the same client token in two accounts at once: two reviews, each seen by its own account only', async () => {
    for (let r = 0; r < ROUNDS; r++) {
      const [a, b] = [account(), account()];
      const request = {
        clientToken: `shared-token-${r}`,
        name: 'Same click',
        kind: 'paste' as const,
        columns: [],
        totalRows: 1,
      };
      const store = stores();
      const made = await Promise.all(
        [a, b, a, b].map((accountId, i) => pick(store, i).create(accountId, 'fp', request)),
      );
      const [a1, b1, a2, b2] = made.map((s) => s?.id);
      expect.soft(a1).toBeDefined();
      expect.soft(b1).toBeDefined();
      expect.soft([a2, b2]).toEqual([a1, b1]);
      expect.soft(a1).not.toBe(b1);
      expect.soft(await store[0]!.summary(a, b1 as string)).toBeUndefined();
      expect.soft(await store[0]!.summary(b, a1 as string)).toBeUndefined();
      expect.soft((await store[1]!.list(a)).map((s) => s.id)).toEqual([a1]);
      expect.soft((await store[1]!.list(b)).map((s) => s.id)).toEqual([b1]);
    }
  });
});

/*
 * The embedded SQLite has one writer and one replica, but its completions and leases run through statements of
 * their own (prepared once, a synchronous transaction each): the same batch, on one file, through that path.
 */
describe('review store completions on SQLite (prepared statements)', () => {
  const temp = tempDatabaseAll('review-races');
  let round = 0;
  const account = () => `acct-sqlite-race-${++round}`;
  const queueAt = (now: () => number) =>
    new SqlReviewQueue(temp.database.db, temp.database.dialect, now, temp.database.sqlite);

  async function running(accountId: string, total: number, label = ''): Promise<string> {
    const store = new SqlReviewStore(temp.database.db);
    const review = await store.create(accountId, 'fp', {
      clientToken: `tok-${accountId}${label}`,
      name: 'Race',
      kind: 'paste',
      columns: [],
      totalRows: total,
    });
    await store.addChunk(accountId, review.id, { index: 0, firstRow: 0, rows: rows(total), last: true });
    return review.id;
  }

  it(
    'batched completions beside leases taken over: each row is completed once, by its lease holder only',
    () =>
      completionsUnderLease({
        replicas: [temp.database],
        running,
        account,
        queues: () => [queueAt(Date.now)],
        later: () => [queueAt(() => Date.now() + 120_000), queueAt(() => Date.now() + 120_000)],
      }),
    60_000,
  );
});

interface RaceContext {
  replicas: Database[];
  running(accountId: string, total: number, label?: string): Promise<string>;
  account(): string;
  queues(): SqlReviewQueue[];
  /** Queues whose clock is two minutes on: every lease of the first ones has run out. */
  later(): SqlReviewQueue[];
}

/**
 * A stale holder's completions batched with a live holder's, while other workers complete the rows they took
 * back: each row is written once, by its lease holder only, numbered once, counted once.
 */
async function completionsUnderLease({ replicas, running, account, queues, later }: RaceContext) {
  const pick = <T>(list: T[], i: number) => list[i % list.length] as T;
  const workers = 10;
  const tagged = (owner: string): RowResult => ({ ...answered, retrievedAt: owner });
  const key = (row: LeasedRow) => `${row.reviewId}:${row.index}`;
  for (let r = 0; r < ROUNDS; r++) {
    // Two reviews of one account, 15 rows each: batches span both, on both replicas, as the worker's do.
    const accountId = account();
    const reviews = [await running(accountId, 15, 'x'), await running(accountId, 15, 'y')];
    const [q0] = queues();
    const stale = await q0!.lease('stale', [accountId], 30, 30_000);
    expect(stale).toHaveLength(30);
    // The stale holder's leases run out; ten workers on both replicas take back two rows each (20 of 30), and
    // a live holder on the stale one's replica the other 10.
    const qs = later();
    const retaken = await Promise.all(
      Array.from({ length: workers }, (_, w) => pick(qs, w).lease(`w${w}`, [accountId], 2, 30_000)),
    );
    const live = await q0!.lease('live', [accountId], 30, 30_000);
    const owner = new Map<string, string>(live.map((row) => [key(row), 'live']));
    for (const [w, batch] of retaken.entries()) for (const row of batch) owner.set(key(row), `w${w}`);
    expect(owner.size).toBe(30);
    // All at once: the stale holder's 30 and the live holder's 10 in one batch of q0, each worker its own.
    const [staleTaken, liveTaken, ...newTaken] = await Promise.all([
      Promise.all(stale.map((row) => q0!.complete('stale', row, tagged('stale')))),
      Promise.all(live.map((row) => q0!.complete('live', row, tagged('live')))),
      ...retaken.map((batch, w) =>
        Promise.all(batch.map((row) => pick(qs, w).complete(`w${w}`, row, tagged(`w${w}`)))),
      ),
    ]);
    expect.soft(staleTaken?.filter(Boolean), `round ${r}: the stale holder completed rows`).toEqual([]);
    expect.soft([...(liveTaken ?? []), ...newTaken.flat()].every(Boolean), `round ${r}`).toBe(true);
    const written = await replicas[0]!.db
      .selectFrom('review_results')
      .select(['review_id', 'row_index', 'state', 'result', 'seq'])
      .where('review_id', 'in', reviews)
      .execute();
    expect
      .soft(
        written.map((w) => `${w.state} ${JSON.parse(w.result ?? '{}').retrievedAt}`).sort(),
        `round ${r}: whose answer`,
      )
      .toEqual(written.map((w) => `done ${owner.get(`${w.review_id}:${w.row_index}`)}`).sort());
    // Each review's rows numbered 1..15 once, and its run counted 15 done, no more.
    for (const reviewId of reviews) {
      const seqs = written.filter((w) => w.review_id === reviewId).map((w) => Number(w.seq));
      expect
        .soft(
          seqs.sort((a, b) => a - b),
          `round ${r}`,
        )
        .toEqual(Array.from({ length: 15 }, (_, i) => i + 1));
      const run = await replicas[0]!.db
        .selectFrom('review_runs')
        .select(['done', 'not_found', 'finished_at'])
        .where('review_id', '=', reviewId)
        .executeTakeFirstOrThrow();
      expect.soft([run.done, run.not_found, run.finished_at !== null], `round ${r}`).toEqual([15, 15, true]);
    }
  }
}
