import { setImmediate } from 'node:timers';
import type BetterSqlite3 from 'better-sqlite3';
import { type Kysely, sql } from 'kysely';
import { type Dialect, whenConnectionFree } from '../../db/database.ts';
import type { DatabaseSchema } from '../../db/schema.ts';
import type { LeasedRow } from '../../reviews/leased-row.ts';
import type { RowResult } from '../../reviews/look-up-row.ts';
import type { ReviewQueue } from '../../reviews/worker.ts';
import type { NewAuditEntry } from '../audit/audit-store.ts';
import { type Completion, writeCompletions } from './completions.ts';
import { dueRow, RECLAIM_BATCH } from './due-rows.ts';
import { LeaseOrder, type LeaseShares, type OpenRun } from './lease-order.ts';
import { type PreparedQueue, prepareQueue } from './queue-sqlite.ts';

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
  #completions: Completion[] = [];
  #completing: Promise<void> | null = null;
  readonly #statements: PreparedQueue | undefined;
  readonly #sqlite: BetterSqlite3.Database | undefined;

  /**
   * `sqlite`: the embedded file's own handle. Leases and completions then run through statements prepared once,
   * each in one synchronous transaction of its own, once no transaction of Kysely's is open on the file's one
   * connection (whenConnectionFree): Kysely compiles and prepares every statement anew, and that was most of a
   * cached row's CPU.
   */
  constructor(
    private readonly db: Db,
    private readonly dialect: Dialect,
    private readonly now: () => number = Date.now,
    sqlite?: BetterSqlite3.Database,
  ) {
    this.#statements = sqlite ? prepareQueue(sqlite) : undefined;
    this.#sqlite = sqlite;
  }

  /** `run` on the prepared statements (SQLite) once Kysely's one connection is free; undefined without them. */
  #prepared<T>(run: (prepared: PreparedQueue) => T): Promise<T> | undefined {
    const prepared = this.#statements;
    if (!prepared || !this.#sqlite) return undefined;
    return whenConnectionFree(this.db, this.#sqlite, () => run(prepared));
  }

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
    const viaPrepared = this.#prepared((prepared) => {
      const now = this.now();
      return prepared.lease(
        this.#order,
        owner,
        accountIds,
        limit,
        now,
        leaseMs,
        shares,
        this.#reclaimDue(now),
      );
    });
    if (viaPrepared) return viaPrepared;
    const now = this.now();
    let reclaimed: Key[] = [];
    const leased = await this.db.transaction().execute(async (trx) => {
      reclaimed = await this.#reclaim(trx, now);
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
    await this.#announceCancelled(reclaimed);
    return leased;
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
    const byRun = new Map(asks.map((a) => [`${a.open.reviewId}:${a.open.run}`, [] as typeof rows]));
    for (const d of rows) byRun.get(`${d.review_id}:${d.run}`)?.push(d);
    return asks.map((a) =>
      (byRun.get(`${a.open.reviewId}:${a.open.run}`) ?? []).map((d) => dueRow(a.open, d)),
    );
  }

  /** A run's next due rows, in order, from the index alone (PostgreSQL: skipping rows another replica is taking). */
  async #next(trx: Db, run: OpenRun, n: number, now: number): Promise<Omit<LeasedRow, 'fresh'>[]> {
    const rows = await this.#due(trx, run, n, now)
      .$if(this.dialect === 'postgres', (q) => q.forUpdate('r').skipLocked())
      .execute();
    return rows.map((d) => dueRow(run, d));
  }

  /** A run's next `n` due rows, first come first served: one seek in review_results_next, no sort. */
  #due(trx: Db, run: OpenRun, n: number, now: number) {
    return trx
      .selectFrom('review_results as r')
      .innerJoin('review_rows as w', (j) =>
        j.onRef('w.review_id', '=', 'r.review_id').onRef('w.row_index', '=', 'r.row_index'),
      )
      .select([
        'r.review_id',
        'r.run',
        'r.row_index',
        'r.attempts',
        'w.address',
        'w.fix',
        'w.parcel',
        'w.address_key',
      ])
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
  async #reclaim(trx: Db, now: number): Promise<Key[]> {
    if (!this.#reclaimDue(now)) return [];
    const expired = await trx
      .selectFrom('review_results')
      .select(['review_id', 'run', 'row_index'])
      .where('state', '=', sql.lit('leased'))
      .where('lease_until', '<', now)
      .limit(RECLAIM_BATCH)
      .$if(this.dialect === 'postgres', (q) => q.forUpdate().skipLocked())
      .execute();
    if (expired.length === 0) return [];
    const keys = expired.map((e) => ({ reviewId: e.review_id, run: e.run, index: e.row_index }));
    await trx
      .updateTable('review_results')
      .set({ state: 'pending', lease_owner: null })
      .where('state', '=', 'leased')
      .where('lease_until', '<', now)
      .where((eb) => eb.or(keys.map((k) => whereKey(eb, k))))
      .execute();
    return keys;
  }

  /**
   * Rows put back to wait (given back, to be asked again later, or a dead replica's) are held by the trigger of
   * migration 0005 when their run is paused or cancelled. A cancelled one is final: it takes a sequence number
   * past the review's last, as cancel() numbers the rows it cancels, or live views (which page "rows since N")
   * would show it pending for good. Numbered after the put-back commits, the review's row locked first (the
   * order cancel, Check again and completions lock in), so this never waits on them the other way round.
   */
  async #announceCancelled(keys: readonly Key[]): Promise<void> {
    if (keys.length === 0) return;
    const reviewIds = [...new Set(keys.map((k) => k.reviewId))].sort();
    await this.db.transaction().execute(async (trx) => {
      for (const reviewId of reviewIds) {
        const review = await trx
          .selectFrom('reviews')
          .select('last_seq')
          .where('id', '=', reviewId)
          .$if(this.dialect === 'postgres', (q) => q.forUpdate())
          .executeTakeFirst();
        if (!review) continue;
        const cancelled = await trx
          .selectFrom('review_results')
          .select(['run', 'row_index'])
          .where('state', '=', sql.lit('cancelled'))
          .where((eb) => eb.or(keys.filter((k) => k.reviewId === reviewId).map((k) => whereKey(eb, k))))
          .execute();
        if (cancelled.length === 0) continue;
        let seq = Number(review.last_seq);
        // In row order, sorted here: a few rows, and the database is asked for no sort (fair-leasing.test.ts).
        cancelled.sort((a, b) => a.run - b.run || a.row_index - b.row_index);
        for (const c of cancelled) {
          await trx
            .updateTable('review_results')
            .set({ seq: ++seq })
            .where((eb) => whereKey(eb, { reviewId, run: c.run, index: c.row_index }))
            .execute();
        }
        await trx.updateTable('reviews').set({ last_seq: seq }).where('id', '=', reviewId).execute();
      }
    });
  }

  /** A lease runs out after tens of seconds: looking once a second is soon enough, and saves a query a lease. */
  #reclaimDue(now: number): boolean {
    if (now - this.#reclaimedAt < RECLAIM_EVERY_MS && now >= this.#reclaimedAt) return false;
    this.#reclaimedAt = now;
    return true;
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
    await this.#announceCancelled(rows);
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

  /**
   * The row's outcome and the audit entry of its lookup, written only while `owner` holds its lease (false: the
   * lease was lost, the row is another's or done, and neither is written). Completions asked in the same turn of
   * the event loop, or while a batch commits, share the next transaction (group commit): a review answered from
   * the cache writes thousands of rows a second.
   */
  complete(owner: string, row: LeasedRow, result: RowResult, entry?: NewAuditEntry): Promise<boolean> {
    return new Promise((taken, failed) => {
      this.#completions.push({ owner, row, result, entry, taken, failed });
      // From node:timers, so a test's fake timers (which replace the global) do not hold completions back.
      if (!this.#completing)
        this.#completing = new Promise((go) => setImmediate(go)).then(() => this.#drainCompletions());
    });
  }

  async #drainCompletions(): Promise<void> {
    while (this.#completions.length > 0) {
      const batch = this.#completions.splice(0, COMPLETE_BATCH);
      try {
        const taken = await this.#completeMany(batch);
        for (const [i, c] of batch.entries()) c.taken(taken[i] === true);
      } catch (err) {
        // Nothing of the batch was written: each row's lease runs out and it is asked again.
        for (const c of batch) c.failed(err);
      }
    }
    this.#completing = null;
  }

  /**
   * One transaction for many rows, in a few statements a review whatever the batch's size: on the embedded SQLite
   * through the statements prepared once, else through Kysely (completions.ts), which compiles every statement.
   */
  async #completeMany(batch: readonly Completion[]): Promise<boolean[]> {
    return (
      this.#prepared((prepared) => prepared.complete(batch, this.now())) ??
      writeCompletions(this.db, this.dialect, batch, this.now())
    );
  }

  async retryLater(owner: string, row: LeasedRow, notBefore: number): Promise<void> {
    await this.db
      .updateTable('review_results')
      .set({ state: 'pending', lease_owner: null, not_before: notBefore, attempts: row.attempts + 1 })
      .where((eb) => whereKey(eb, row))
      .where('state', '=', 'leased')
      .where('lease_owner', '=', owner)
      .execute();
    await this.#announceCancelled([row]);
  }
}

/** Rows written in one transaction at most (more wait for the next). */
const COMPLETE_BATCH = 500;
const RECLAIM_EVERY_MS = 1_000;

/**
 * Runs not finished yet of these accounts (review_runs_open: as many as there are running reviews, whatever
 * their rows), oldest review first: ties in the round-robin go to the review that came first.
 */
async function openRuns(db: Db, accountIds: readonly string[]) {
  const runs = await db
    .selectFrom('review_runs as u')
    .innerJoin('reviews as v', 'v.id', 'u.review_id')
    .select(['u.review_id', 'u.run', 'u.fresh', 'v.account_id', 'v.created_by'])
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
    createdBy: r.created_by,
    fresh: r.fresh === 1,
  }));
}

// biome-ignore lint/suspicious/noExplicitAny: Kysely's expression builder for review_results, in any query
function whereKey(eb: any, key: Key) {
  return eb.and([
    eb('review_id', '=', key.reviewId),
    eb('run', '=', key.run),
    eb('row_index', '=', key.index),
  ]);
}
