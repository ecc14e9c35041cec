import type BetterSqlite3 from 'better-sqlite3';
import type { LeasedRow } from '../../reviews/leased-row.ts';
import type { RowResult } from '../../reviews/look-up-row.ts';
import { preparedAuditAppend } from '../audit/chain.ts';
import { byReview, type Completion, keptEntries } from './completions.ts';
import { type DueRow, dueRow, RECLAIM_BATCH } from './due-rows.ts';
import type { LeaseOrder, LeaseShares, OpenRun } from './lease-order.ts';

/**
 * The lease and the completions on the embedded SQLite, as SqlReviewQueue's Kysely versions do them, through
 * statements prepared once; each runs whole in one synchronous transaction (nothing else runs on the connection
 * meanwhile).
 */
export interface PreparedQueue {
  lease(
    order: LeaseOrder,
    owner: string,
    accountIds: readonly string[],
    limit: number,
    now: number,
    leaseMs: number,
    shares: LeaseShares,
    reclaim: boolean,
  ): LeasedRow[];
  /** True at each completion written. */
  complete(batch: readonly Completion[], now: number): boolean[];
}

export function prepareQueue(sqlite: BetterSqlite3.Database): PreparedQueue {
  return { lease: prepareLease(sqlite), complete: prepareComplete(sqlite) };
}

function prepareLease(sqlite: BetterSqlite3.Database): PreparedQueue['lease'] {
  const openRunsOf = sqlite.prepare<
    [string],
    { review_id: string; run: number; fresh: number; account_id: string; created_by: string }
  >(
    `select u.review_id, u.run, u.fresh, v.account_id, v.created_by from review_runs u join reviews v on v.id = u.review_id
     where u.finished_at is null and v.account_id in (select value from json_each(?))
     order by v.created_at, u.review_id, u.run`,
  );
  const take = sqlite.prepare(
    `update review_results set state = 'leased', lease_owner = ?, lease_until = ?
     where review_id = ? and run = ? and row_index = ? and state = 'pending'`,
  );
  const reclaim = prepareReclaim(sqlite);
  const dueRows = prepareDue(sqlite);
  return sqlite.transaction(
    (
      order: LeaseOrder,
      owner: string,
      accountIds: readonly string[],
      limit: number,
      now: number,
      leaseMs: number,
      shares: LeaseShares,
      reclaimNow: boolean,
    ): LeasedRow[] => {
      if (reclaimNow) reclaim(now);
      const runs = openRunsOf.all(JSON.stringify(accountIds));
      const fresh = new Set(runs.filter((r) => r.fresh === 1).map((r) => `${r.review_id}:${r.run}`));
      const open = runs.map((r) => ({
        reviewId: r.review_id,
        run: r.run,
        accountId: r.account_id,
        createdBy: r.created_by,
      }));
      const picked = order.pickNow(open, limit, shares, {
        one: (run, n) => dueRows(run, n, now),
        many: (asks) => asks.map((a) => dueRows(a.open, a.n, now)),
      });
      for (const d of picked) take.run(owner, now + leaseMs, d.reviewId, d.run, d.index);
      return picked.map((d) => ({ ...d, fresh: fresh.has(`${d.reviewId}:${d.run}`) }));
    },
  );
}

/** A run's next `n` due rows, first come first served. */
function prepareDue(sqlite: BetterSqlite3.Database) {
  // The state as a literal, so that SQLite serves it from the partial index review_results_next.
  const dueOf = sqlite.prepare<[string, number, number, number], DueRow>(
    `select r.row_index, r.attempts, w.address, w.fix, w.parcel, w.address_key from review_results r
     join review_rows w on w.review_id = r.review_id and w.row_index = r.row_index
     where r.review_id = ? and r.run = ? and r.state = 'pending' and r.not_before <= ?
     order by r.not_before, r.row_index limit ?`,
  );
  return (open: OpenRun, n: number, now: number): Omit<LeasedRow, 'fresh'>[] =>
    dueOf.all(open.reviewId, open.run, now, n).map((d) => dueRow(open, d));
}

/** Leases that ran out go back to pending, in their old place (SqlReviewQueue's #reclaim). */
function prepareReclaim(sqlite: BetterSqlite3.Database): (now: number) => void {
  const expiredOf = sqlite.prepare<[number, number], { review_id: string; run: number; row_index: number }>(
    `select review_id, run, row_index from review_results where state = 'leased' and lease_until < ? limit ?`,
  );
  const putBack = sqlite.prepare(
    `update review_results set state = 'pending', lease_owner = null
     where review_id = ? and run = ? and row_index = ? and state = 'leased' and lease_until < ?`,
  );
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
  return (now) => {
    for (const e of expiredOf.all(now, RECLAIM_BATCH)) {
      putBack.run(e.review_id, e.run, e.row_index, now);
      if (stateOf.get(e.review_id, e.run, e.row_index) === 'cancelled')
        numberRow.run(nextSeq.get(e.review_id), e.review_id, e.run, e.row_index);
    }
  };
}

/**
 * Completions review by review in id order: each row written only while its owner holds the lease, numbered
 * after the review's last sequence, and each run's counts moved once by what was written.
 */
function prepareComplete(sqlite: BetterSqlite3.Database): PreparedQueue['complete'] {
  const lastSeqOf = sqlite.prepare<[string], number>('select last_seq from reviews where id = ?').pluck();
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
  // The entries of the answers kept, beside them (ADR 010, addendum): chained and inserted as the audit store
  // does (with their folded search text).
  const audit = preparedAuditAppend(sqlite);
  return sqlite.transaction((batch: readonly Completion[], now: number): boolean[] => {
    const taken = batch.map(() => false);
    const reviews = byReview(batch);
    for (const reviewId of [...reviews.keys()].sort()) {
      const last = lastSeqOf.get(reviewId);
      // The review is gone (deleted meanwhile): nothing of it to write.
      if (last === undefined) continue;
      let seq = Number(last);
      const byRun = new Map<number, Record<'n' | RowResult['outcome'], number>>();
      for (const i of reviews.get(reviewId) as number[]) {
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
    audit([...keptEntries(batch, taken)]);
    return taken;
  });
}
