import { setImmediate } from 'node:timers';
import type BetterSqlite3 from 'better-sqlite3';
import { type Kysely, sql } from 'kysely';
import { RowFix } from '../../../contract/index.ts';
import type { Dialect } from '../../db/database.ts';
import type { DatabaseSchema } from '../../db/schema.ts';
import type { RowResult } from '../../reviews/look-up-row.ts';
import type { LeasedRow, ReviewQueue } from '../../reviews/worker.ts';
import { auditRow, type NewAuditEntry, preparedAuditInsert } from '../audit/audit-store.ts';
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
  #completions: Completion[] = [];
  #completing: Promise<void> | null = null;
  readonly #prepared: Prepared | undefined;

  /**
   * `sqlite`: the embedded file's own handle. Leases and completions then run through statements prepared once,
   * each in one synchronous transaction of its own, whenever no transaction of Kysely's is open on the file's one
   * connection (else through Kysely, which waits its turn): Kysely compiles and prepares every statement anew,
   * and that was most of a cached row's CPU.
   */
  constructor(
    private readonly db: Db,
    private readonly dialect: Dialect,
    private readonly now: () => number = Date.now,
    private readonly sqlite?: BetterSqlite3.Database,
  ) {
    this.#prepared = sqlite ? prepare(sqlite) : undefined;
  }

  /** The prepared statements, when they may run now (nothing of Kysely's half done on the connection). */
  #now(): Prepared | undefined {
    return this.sqlite?.inTransaction === false ? this.#prepared : undefined;
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
    const now = this.now();
    const prepared = this.#now();
    if (prepared)
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
    const byRun = new Map(
      asks.map((a) => [`${a.open.reviewId}:${a.open.run}`, [] as Omit<LeasedRow, 'fresh'>[]]),
    );
    for (const d of rows)
      byRun.get(`${d.review_id}:${d.run}`)?.push({
        reviewId: d.review_id,
        accountId: asks.find((a) => a.open.reviewId === d.review_id)?.open.accountId ?? '',
        run: d.run,
        index: d.row_index,
        address: lookupAddress(d.address, d.fix, d.parcel),
        key: d.fix ? null : d.address_key,
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
      address: lookupAddress(d.address, d.fix, d.parcel),
      key: d.fix ? null : d.address_key,
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
   * One transaction for many rows, in a few statements a review whatever the batch's size (the embedded SQLite
   * compiles and prepares every statement anew, on the event loop): review by review in id order, so two
   * replicas lock reviews in the same order as pause and Check again do (the review row first); then the rows
   * still leased to their owners are read (and locked, on PostgreSQL), numbered after the review's last
   * sequence and written in one update a run, and the run's counts moved once by what was written.
   */
  async #completeMany(batch: readonly Completion[]): Promise<boolean[]> {
    const now = this.now();
    const prepared = this.#now();
    if (prepared) return prepared.complete(batch, now);
    const byReview = new Map<string, number[]>();
    for (const [i, c] of batch.entries()) {
      const list = byReview.get(c.row.reviewId) ?? [];
      list.push(i);
      byReview.set(c.row.reviewId, list);
    }
    const taken = batch.map(() => false);
    await this.db.transaction().execute(async (trx) => {
      for (const reviewId of [...byReview.keys()].sort()) {
        const asked = byReview.get(reviewId) as number[];
        const { last_seq } = await trx
          .updateTable('reviews')
          .set((eb) => ({ last_seq: eb.ref('last_seq') }))
          .where('id', '=', reviewId)
          .returning('last_seq')
          .executeTakeFirstOrThrow();
        // The rows still leased, by their run (a seek in the primary key: review, run, row).
        const holder = new Map<string, string | null>();
        for (const run of new Set(asked.map((i) => (batch[i] as Completion).row.run))) {
          const leased = await trx
            .selectFrom('review_results')
            .select(['row_index', 'lease_owner'])
            .where('review_id', '=', reviewId)
            .where('run', '=', run)
            .where('row_index', 'in', [
              ...new Set(
                asked
                  .map((i) => (batch[i] as Completion).row)
                  .filter((r) => r.run === run)
                  .map((r) => r.index),
              ),
            ])
            .where('state', '=', sql.lit('leased'))
            .$if(this.dialect === 'postgres', (q) => q.forUpdate())
            .execute();
          for (const l of leased) holder.set(`${run}:${l.row_index}`, l.lease_owner);
        }
        // Written in the order asked; a row asked twice in one batch (it cannot be, but) is written once.
        const byRun = new Map<number, { c: Completion; seq: number }[]>();
        let seq = Number(last_seq);
        for (const i of asked) {
          const c = batch[i] as Completion;
          const at = `${c.row.run}:${c.row.index}`;
          if (holder.get(at) !== c.owner) continue;
          holder.delete(at);
          taken[i] = true;
          const list = byRun.get(c.row.run) ?? [];
          list.push({ c, seq: ++seq });
          byRun.set(c.row.run, list);
        }
        if (byRun.size === 0) continue;
        for (const [run, rows] of byRun) {
          const when = (value: (r: { c: Completion; seq: number }) => unknown, type: string) =>
            sql<never>`case row_index ${sql.join(
              rows.map((r) => sql`when ${r.c.row.index} then cast(${value(r)} as ${sql.raw(type)})`),
              sql` `,
            )} end`;
          await trx
            .updateTable('review_results')
            .set({
              state: 'done',
              lease_owner: null,
              outcome: when((r) => r.c.result.outcome, 'text'),
              result: when((r) => JSON.stringify(r.c.result), 'text'),
              seq: when((r) => r.seq, 'bigint'),
            })
            .where('review_id', '=', reviewId)
            .where('run', '=', run)
            .where(
              'row_index',
              'in',
              rows.map((r) => r.c.row.index),
            )
            .execute();
          const counts = { matched: 0, not_found: 0, ambiguous: 0, failed: 0 };
          for (const r of rows) counts[r.c.result.outcome]++;
          const n = rows.length;
          await trx
            .updateTable('review_runs')
            .set((eb) => ({
              done: eb('done', '+', n),
              matched: eb('matched', '+', counts.matched),
              not_found: eb('not_found', '+', counts.not_found),
              ambiguous: eb('ambiguous', '+', counts.ambiguous),
              failed: eb('failed', '+', counts.failed),
              finished_at: eb
                .case()
                .when('done', '>=', eb('total', '-', n))
                .then(now)
                .else(eb.ref('finished_at'))
                .end(),
            }))
            .where('review_id', '=', reviewId)
            .where('run', '=', run)
            .execute();
        }
        await trx.updateTable('reviews').set({ last_seq: seq }).where('id', '=', reviewId).execute();
      }
      // The entries of the answers kept, beside them (ADR 010, addendum), as the audit store inserts them (with
      // their folded search text; the Activity search index follows the table, whoever wrote to it).
      const entries = keptEntries(batch, taken);
      if (entries.length > 0) await trx.insertInto('audit_entries').values(entries.map(auditRow)).execute();
    });
    return taken;
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

/** A completion waiting for its batch's transaction. */
interface Completion {
  owner: string;
  row: LeasedRow;
  result: RowResult;
  /** The audit entry of the lookup that gave the result: written with it, or not at all. */
  entry: NewAuditEntry | undefined;
  taken: (written: boolean) => void;
  failed: (err: unknown) => void;
}

/** The audit entries of the completions written, in the order asked. */
function keptEntries(batch: readonly Completion[], taken: readonly boolean[]): NewAuditEntry[] {
  const entries: NewAuditEntry[] = [];
  for (const [i, c] of batch.entries()) if (taken[i] && c.entry) entries.push(c.entry);
  return entries;
}

/** Rows written in one transaction at most (more wait for the next). */
const COMPLETE_BATCH = 500;
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

/**
 * What a row asks: the address a reviewer fixed it to, else the input, else (a row of a file with no address)
 * its parcel number; blank when it has none of them (the row is answered no_address, never sent).
 */
function lookupAddress(input: string, fix: string | null, parcel: string | null): string {
  if (fix) {
    const parsed = RowFix.safeParse(JSON.parse(fix));
    if (parsed.success) return parsed.data.address;
  }
  return input.trim() === '' && parcel ? parcel : input;
}

// biome-ignore lint/suspicious/noExplicitAny: Kysely's expression builder for review_results, in any query
function whereKey(eb: any, key: Key) {
  return eb.and([
    eb('review_id', '=', key.reviewId),
    eb('run', '=', key.run),
    eb('row_index', '=', key.index),
  ]);
}

type Prepared = ReturnType<typeof prepare>;

/**
 * The lease and the completions on the embedded SQLite, as the Kysely versions above do them, through statements
 * prepared once; each runs whole in one synchronous transaction (nothing else runs on the connection meanwhile).
 */
function prepare(sqlite: BetterSqlite3.Database) {
  const openRunsOf = sqlite.prepare<
    [string],
    { review_id: string; run: number; fresh: number; account_id: string }
  >(
    `select u.review_id, u.run, u.fresh, v.account_id from review_runs u join reviews v on v.id = u.review_id
     where u.finished_at is null and v.account_id in (select value from json_each(?))
     order by v.created_at, u.review_id, u.run`,
  );
  // The state as a literal, so that SQLite serves it from the partial index review_results_next.
  const dueOf = sqlite.prepare<
    [string, number, number, number],
    {
      row_index: number;
      attempts: number;
      address: string;
      fix: string | null;
      parcel: string | null;
      address_key: string | null;
    }
  >(
    `select r.row_index, r.attempts, w.address, w.fix, w.parcel, w.address_key from review_results r
     join review_rows w on w.review_id = r.review_id and w.row_index = r.row_index
     where r.review_id = ? and r.run = ? and r.state = 'pending' and r.not_before <= ?
     order by r.not_before, r.row_index limit ?`,
  );
  const expiredOf = sqlite.prepare<[number, number], { review_id: string; run: number; row_index: number }>(
    `select review_id, run, row_index from review_results where state = 'leased' and lease_until < ? limit ?`,
  );
  const putBack = sqlite.prepare(
    `update review_results set state = 'pending', lease_owner = null
     where review_id = ? and run = ? and row_index = ? and state = 'leased' and lease_until < ?`,
  );
  const take = sqlite.prepare(
    `update review_results set state = 'leased', lease_owner = ?, lease_until = ?
     where review_id = ? and run = ? and row_index = ? and state = 'pending'`,
  );
  const lastSeqOf = sqlite.prepare<[string], number>('select last_seq from reviews where id = ?').pluck();
  // A row put back into a cancelled run is cancelled by migration 0005's trigger: numbered, so live views hear of
  // it (SqlReviewQueue.#announceCancelled says why; one connection, so no lock order to keep here).
  const stateOf = sqlite
    .prepare<[string, number, number], string>(
      'select state from review_results where review_id = ? and run = ? and row_index = ?',
    )
    .pluck();
  const nextSeq = sqlite
    .prepare<[string], number>('update reviews set last_seq = last_seq + 1 where id = ? returning last_seq')
    .pluck();
  const numberRow = sqlite.prepare(
    'update review_results set seq = ? where review_id = ? and run = ? and row_index = ?',
  );
  // Written only while `owner` holds the lease: a row whose lease ran out (another has it, or it is done) is not.
  const write = sqlite.prepare(
    `update review_results set state = 'done', lease_owner = null, outcome = ?, result = ?, seq = ?
     where review_id = ? and run = ? and row_index = ? and state = 'leased' and lease_owner = ?`,
  );
  const count = sqlite.prepare(
    `update review_runs set done = done + @n, matched = matched + @matched, not_found = not_found + @not_found,
       ambiguous = ambiguous + @ambiguous, failed = failed + @failed,
       finished_at = case when done >= total - @n then @now else finished_at end
     where review_id = @reviewId and run = @run`,
  );
  const setLastSeq = sqlite.prepare('update reviews set last_seq = ? where id = ?');
  // The entries of the answers kept, beside them (ADR 010, addendum): inserted as the audit store inserts them
  // (with their folded search text).
  const audit = preparedAuditInsert(sqlite);

  const dueRows = (open: OpenRun, n: number, now: number): Omit<LeasedRow, 'fresh'>[] =>
    dueOf.all(open.reviewId, open.run, now, n).map((d) => ({
      reviewId: open.reviewId,
      accountId: open.accountId,
      run: open.run,
      index: d.row_index,
      address: lookupAddress(d.address, d.fix, d.parcel),
      key: d.fix ? null : d.address_key,
      attempts: d.attempts,
    }));

  const lease = sqlite.transaction(
    (
      order: LeaseOrder,
      owner: string,
      accountIds: readonly string[],
      limit: number,
      now: number,
      leaseMs: number,
      shares: LeaseShares,
      reclaim: boolean,
    ): LeasedRow[] => {
      if (reclaim)
        for (const e of expiredOf.all(now, RECLAIM_BATCH)) {
          putBack.run(e.review_id, e.run, e.row_index, now);
          if (stateOf.get(e.review_id, e.run, e.row_index) === 'cancelled')
            numberRow.run(nextSeq.get(e.review_id), e.review_id, e.run, e.row_index);
        }
      const runs = openRunsOf.all(JSON.stringify(accountIds));
      const fresh = new Set(runs.filter((r) => r.fresh === 1).map((r) => `${r.review_id}:${r.run}`));
      const open = runs.map((r) => ({ reviewId: r.review_id, run: r.run, accountId: r.account_id }));
      const picked = order.pickNow(open, limit, shares, {
        one: (run, n) => dueRows(run, n, now),
        many: (asks) => asks.map((a) => dueRows(a.open, a.n, now)),
      });
      for (const d of picked) take.run(owner, now + leaseMs, d.reviewId, d.run, d.index);
      return picked.map((d) => ({ ...d, fresh: fresh.has(`${d.reviewId}:${d.run}`) }));
    },
  );

  const complete = sqlite.transaction((batch: readonly Completion[], now: number): boolean[] => {
    const taken = batch.map(() => false);
    const byReview = new Map<string, number[]>();
    for (const [i, c] of batch.entries()) {
      const list = byReview.get(c.row.reviewId);
      if (list) list.push(i);
      else byReview.set(c.row.reviewId, [i]);
    }
    for (const reviewId of [...byReview.keys()].sort()) {
      const last = lastSeqOf.get(reviewId);
      // The review is gone (deleted meanwhile): nothing of it to write.
      if (last === undefined) continue;
      let seq = Number(last);
      const byRun = new Map<number, Record<'n' | keyof typeof OUTCOME_COLUMN, number>>();
      for (const i of byReview.get(reviewId) as number[]) {
        const { owner, row, result } = batch[i] as Completion;
        const written = write.run(
          result.outcome,
          JSON.stringify(result),
          seq + 1,
          reviewId,
          row.run,
          row.index,
          owner,
        );
        if (written.changes !== 1) continue;
        seq++;
        taken[i] = true;
        let counts = byRun.get(row.run);
        if (!counts) {
          counts = { n: 0, matched: 0, not_found: 0, ambiguous: 0, failed: 0 };
          byRun.set(row.run, counts);
        }
        counts.n++;
        counts[result.outcome]++;
      }
      if (byRun.size === 0) continue;
      for (const [run, counts] of byRun) count.run({ ...counts, now, reviewId, run });
      setLastSeq.run(seq, reviewId);
    }
    for (const entry of keptEntries(batch, taken)) audit(entry);
    return taken;
  });

  return { lease, complete };
}
