import { type Kysely, sql } from 'kysely';
import { RowFix } from '../../../contract/index.ts';
import type { Dialect } from '../../db/database.ts';
import type { DatabaseSchema } from '../../db/schema.ts';
import type { RowResult } from '../../reviews/look-up-row.ts';
import type { LeasedRow, ReviewQueue } from '../../reviews/worker.ts';
import { LeaseOrder, type LeaseShares, type OpenRun } from './lease-order.ts';

type Db = Kysely<DatabaseSchema>;
type Key = Pick<LeasedRow, 'reviewId' | 'run' | 'index'>;

/** The run's count column of each outcome. */
export const OUTCOME_COLUMN = {
  matched: 'matched',
  not_found: 'not_found',
  ambiguous: 'ambiguous',
  failed: 'failed',
} as const;

/**
 * The review worker's side of the review store: leases in the database, so that on several replicas exactly
 * one works a row at a time (PostgreSQL: FOR UPDATE SKIP LOCKED; the embedded SQLite has one replica), a lease
 * past its time is handed out again (a killed replica's rows), and a row gets exactly one outcome per run (a
 * late answer from a lease that ran out is dropped).
 */
export class SqlReviewQueue implements ReviewQueue {
  readonly #order = new LeaseOrder();
  #reclaimedAt = Number.NEGATIVE_INFINITY;

  constructor(
    private readonly db: Db,
    private readonly dialect: Dialect,
    private readonly now: () => number = Date.now,
  ) {}

  /**
   * Up to `limit` due rows of these accounts, leased to `owner`: round-robin over the accounts (fewest held by
   * this replica first, `shares`), then over each account's reviews, first come first served within a review.
   * Each review's next rows come from one seek in review_results_next, so a lease costs the same beside a
   * million pending rows as beside none; leases that ran out go back to pending first, in their old place.
   */
  async lease(
    owner: string,
    accountIds: readonly string[],
    limit: number,
    leaseMs: number,
    shares: LeaseShares = {},
  ): Promise<LeasedRow[]> {
    if (accountIds.length === 0 || limit <= 0) return [];
    const now = this.now();
    return this.db.transaction().execute(async (trx) => {
      await this.#reclaim(trx, now);
      const runs = await openRuns(trx, accountIds);
      const fresh = new Map(runs.map((r) => [`${r.reviewId}:${r.run}`, r.fresh]));
      const picked = await this.#order.pick(runs, limit, shares, {
        one: (run, n) => this.#next(trx, run, n, now),
        // SQLite runs one statement at a time on the event loop: one query for every run's share costs less than
        // a query per run. PostgreSQL locks each run's rows (FOR UPDATE, which a UNION does not take).
        ...(this.dialect === 'sqlite' ? { many: (asks) => this.#nextMany(trx, asks, now) } : {}),
      });
      if (picked.length === 0) return [];
      await trx
        .updateTable('review_results')
        .set({ state: 'leased', lease_owner: owner, lease_until: now + leaseMs })
        .where((eb) => eb.or(picked.map((d) => whereKey(eb, d))))
        .execute();
      return picked.map((d) => ({ ...d, fresh: fresh.get(`${d.reviewId}:${d.run}`) === true }));
    });
  }

  /** Several runs' next due rows in one query (SQLite): each run's part is the same seek as #next's. */
  async #nextMany(
    trx: Db,
    asks: readonly { open: OpenRun; n: number }[],
    now: number,
  ): Promise<Omit<LeasedRow, 'fresh'>[][]> {
    const part = (ask: { open: OpenRun; n: number }, i: number) =>
      trx.selectFrom(this.#due(trx, ask.open, ask.n, now).as(`p${i}`)).selectAll();
    let query = part(asks[0] as { open: OpenRun; n: number }, 0);
    for (const [i, ask] of asks.entries()) if (i > 0) query = query.unionAll(part(ask, i));
    const rows = await query.execute();
    const byRun = new Map(
      asks.map((a) => [`${a.open.reviewId}:${a.open.run}`, [] as Omit<LeasedRow, 'fresh'>[]]),
    );
    for (const d of rows)
      byRun.get(`${d.review_id}:${d.run}`)?.push({
        reviewId: d.review_id,
        accountId: asks.find((a) => a.open.reviewId === d.review_id)?.open.accountId ?? '',
        run: d.run,
        index: d.row_index,
        address: lookupAddress(d.address, d.fix),
        attempts: d.attempts,
      });
    return asks.map((a) => byRun.get(`${a.open.reviewId}:${a.open.run}`) ?? []);
  }

  /** A run's next due rows, in order, from the index alone (PostgreSQL: skipping rows another replica is taking). */
  async #next(trx: Db, run: OpenRun, n: number, now: number): Promise<Omit<LeasedRow, 'fresh'>[]> {
    const rows = await this.#due(trx, run, n, now)
      .$if(this.dialect === 'postgres', (q) => q.forUpdate('r').skipLocked())
      .execute();
    return rows.map((d) => ({
      reviewId: run.reviewId,
      accountId: run.accountId,
      run: run.run,
      index: d.row_index,
      address: lookupAddress(d.address, d.fix),
      attempts: d.attempts,
    }));
  }

  /** A run's next `n` due rows, first come first served: one seek in review_results_next, no sort. */
  #due(trx: Db, run: OpenRun, n: number, now: number) {
    return trx
      .selectFrom('review_results as r')
      .innerJoin('review_rows as w', (j) =>
        j.onRef('w.review_id', '=', 'r.review_id').onRef('w.row_index', '=', 'r.row_index'),
      )
      .select(['r.review_id', 'r.run', 'r.row_index', 'r.attempts', 'w.address', 'w.fix'])
      .where('r.review_id', '=', run.reviewId)
      .where('r.run', '=', run.run)
      .where('r.state', '=', sql.lit('pending'))
      .where('r.not_before', '<=', now)
      .orderBy('r.not_before')
      .orderBy('r.row_index')
      .limit(n);
  }

  /**
   * Leases that ran out (a replica died or stalled) go back to pending, keeping their place in the run's order
   * (not_before is untouched). Few rows are leased at any time, and review_results_leased holds only those.
   */
  async #reclaim(trx: Db, now: number): Promise<void> {
    // A lease runs out after tens of seconds: looking once a second is soon enough, and saves a query a lease.
    if (now - this.#reclaimedAt < RECLAIM_EVERY_MS && now >= this.#reclaimedAt) return;
    this.#reclaimedAt = now;
    const expired = await trx
      .selectFrom('review_results')
      .select(['review_id', 'run', 'row_index'])
      .where('state', '=', sql.lit('leased'))
      .where('lease_until', '<', now)
      .limit(RECLAIM_BATCH)
      .$if(this.dialect === 'postgres', (q) => q.forUpdate().skipLocked())
      .execute();
    if (expired.length === 0) return;
    await trx
      .updateTable('review_results')
      .set({ state: 'pending', lease_owner: null })
      .where('state', '=', 'leased')
      .where('lease_until', '<', now)
      .where((eb) =>
        eb.or(expired.map((e) => whereKey(eb, { reviewId: e.review_id, run: e.run, index: e.row_index }))),
      )
      .execute();
  }

  /** Gives rows back untouched (no attempt counted, same place in line): this replica let go of them. */
  async release(owner: string, rows: readonly LeasedRow[]): Promise<void> {
    if (rows.length === 0) return;
    await this.db
      .updateTable('review_results')
      .set({ state: 'pending', lease_owner: null, lease_until: 0 })
      .where('state', '=', 'leased')
      .where('lease_owner', '=', owner)
      .where((eb) => eb.or(rows.map((r) => whereKey(eb, r))))
      .execute();
  }

  async extend(owner: string, rows: readonly LeasedRow[], leaseMs: number): Promise<void> {
    if (rows.length === 0) return;
    await this.db
      .updateTable('review_results')
      .set({ lease_until: this.now() + leaseMs })
      .where('state', '=', 'leased')
      .where('lease_owner', '=', owner)
      .where((eb) => eb.or(rows.map((r) => whereKey(eb, r))))
      .execute();
  }

  async complete(owner: string, row: LeasedRow, result: RowResult): Promise<boolean> {
    const now = this.now();
    return this.db.transaction().execute(async (trx) => {
      const taken = await trx
        .updateTable('review_results')
        .set({ state: 'done', outcome: result.outcome, result: JSON.stringify(result), lease_owner: null })
        .where((eb) => whereKey(eb, row))
        .where('state', '=', 'leased')
        .where('lease_owner', '=', owner)
        .executeTakeFirst();
      if (Number(taken.numUpdatedRows) !== 1) return false;
      const { last_seq } = await trx
        .updateTable('reviews')
        .set((eb) => ({ last_seq: eb('last_seq', '+', 1) }))
        .where('id', '=', row.reviewId)
        .returning('last_seq')
        .executeTakeFirstOrThrow();
      await trx
        .updateTable('review_results')
        .set({ seq: last_seq })
        .where((eb) => whereKey(eb, row))
        .execute();
      const column = OUTCOME_COLUMN[result.outcome];
      await trx
        .updateTable('review_runs')
        .set((eb) => ({
          done: eb('done', '+', 1),
          [column]: eb(column, '+', 1),
          finished_at: eb
            .case()
            .when('done', '>=', eb('total', '-', 1))
            .then(now)
            .else(eb.ref('finished_at'))
            .end(),
        }))
        .where('review_id', '=', row.reviewId)
        .where('run', '=', row.run)
        .execute();
      return true;
    });
  }

  async retryLater(owner: string, row: LeasedRow, notBefore: number): Promise<void> {
    await this.db
      .updateTable('review_results')
      .set({ state: 'pending', lease_owner: null, not_before: notBefore, attempts: row.attempts + 1 })
      .where((eb) => whereKey(eb, row))
      .where('state', '=', 'leased')
      .where('lease_owner', '=', owner)
      .execute();
  }
}

/** Expired leases taken back per lease call (more wait for the next). */
const RECLAIM_BATCH = 256;
const RECLAIM_EVERY_MS = 1_000;

/**
 * Runs not finished yet of these accounts (review_runs_open: as many as there are running reviews, whatever
 * their rows), oldest review first: ties in the round-robin go to the review that came first.
 */
async function openRuns(db: Db, accountIds: readonly string[]) {
  const runs = await db
    .selectFrom('review_runs as u')
    .innerJoin('reviews as v', 'v.id', 'u.review_id')
    .select(['u.review_id', 'u.run', 'u.fresh', 'v.account_id'])
    .where('u.finished_at', 'is', null)
    .where('v.account_id', 'in', [...accountIds])
    .orderBy('v.created_at')
    .orderBy('u.review_id')
    .orderBy('u.run')
    .execute();
  return runs.map((r) => ({
    reviewId: r.review_id,
    run: r.run,
    accountId: r.account_id,
    fresh: r.fresh === 1,
  }));
}

/** What a row asks: the address a reviewer fixed it to, else the input. */
function lookupAddress(input: string, fix: string | null): string {
  if (!fix) return input;
  const parsed = RowFix.safeParse(JSON.parse(fix));
  return parsed.success ? parsed.data.address : input;
}

// biome-ignore lint/suspicious/noExplicitAny: Kysely's expression builder for review_results, in any query
function whereKey(eb: any, key: Key) {
  return eb.and([
    eb('review_id', '=', key.reviewId),
    eb('run', '=', key.run),
    eb('row_index', '=', key.index),
  ]);
}
