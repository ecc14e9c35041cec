import { type ExpressionBuilder, type Kysely, sql } from 'kysely';
import type { Dialect } from '../../db/database.ts';
import type { DatabaseSchema } from '../../db/schema.ts';
import type { LeasedRow } from '../../reviews/leased-row.ts';
import type { RowResult } from '../../reviews/look-up-row.ts';
import type { NewAuditEntry } from '../audit/audit-store.ts';
import { insertChained } from '../audit/chain.ts';
import { settleSignOffAfterRun } from './row-decisions-sign-off.ts';

type Db = Kysely<DatabaseSchema>;

/** A completion waiting for its batch's transaction (SqlReviewQueue.complete). */
export interface Completion {
  owner: string;
  row: LeasedRow;
  result: RowResult;
  /** The audit entry of the lookup that gave the result: written with it, or not at all. */
  entry: NewAuditEntry | undefined;
  taken: (written: boolean) => void;
  failed: (err: unknown) => void;
}

/** A completion to write, numbered after its review's last sequence. */
interface Numbered {
  c: Completion;
  seq: number;
}

/** The batch's positions by review, each in the order asked. */
export function byReview(batch: readonly Completion[]): Map<string, number[]> {
  const reviews = new Map<string, number[]>();
  for (const [i, c] of batch.entries()) {
    const list = reviews.get(c.row.reviewId);
    if (list) list.push(i);
    else reviews.set(c.row.reviewId, [i]);
  }
  return reviews;
}

/** The audit entries of the completions written, in the order asked. */
export function keptEntries(batch: readonly Completion[], taken: readonly boolean[]): NewAuditEntry[] {
  const entries: NewAuditEntry[] = [];
  for (const [i, c] of batch.entries()) if (taken[i] && c.entry) entries.push(c.entry);
  return entries;
}

/**
 * One transaction for many rows, through Kysely, in a few statements a review whatever the batch's size: review
 * by review in id order, so two replicas lock reviews in the same order as pause and Check again do (the review
 * row first); then the rows still leased to their owners are read (and locked, on PostgreSQL), numbered after
 * the review's last sequence and written in one update a run, and the run's counts moved once by what was
 * written. True at each completion written.
 */
export async function writeCompletions(
  db: Db,
  dialect: Dialect,
  batch: readonly Completion[],
  now: number,
): Promise<boolean[]> {
  const reviews = byReview(batch);
  const taken = batch.map(() => false);
  await db.transaction().execute(async (trx) => {
    for (const reviewId of [...reviews.keys()].sort()) {
      const asked = reviews.get(reviewId) as number[];
      await writeReview(trx, dialect, reviewId, asked, batch, taken, now);
    }
    // The entries of the answers kept, beside them (ADR 010, addendum), chained as the audit store chains them
    // (with their folded search text; the Activity search index follows the table, whoever wrote to it).
    const entries = keptEntries(batch, taken);
    await insertChained(trx, entries);
  });
  return taken;
}

/** One review's completions (`asked`: their positions in the batch), marked in `taken` when written. */
async function writeReview(
  trx: Db,
  dialect: Dialect,
  reviewId: string,
  asked: readonly number[],
  batch: readonly Completion[],
  taken: boolean[],
  now: number,
): Promise<void> {
  const { last_seq } = await trx
    .updateTable('reviews')
    .set((eb) => ({ last_seq: eb.ref('last_seq') }))
    .where('id', '=', reviewId)
    .returning('last_seq')
    .executeTakeFirstOrThrow();
  const holder = await leaseHolders(
    trx,
    dialect,
    reviewId,
    asked.map((i) => (batch[i] as Completion).row),
  );
  // Written in the order asked; a row asked twice in one batch (it cannot be, but) is written once.
  const byRun = new Map<number, Numbered[]>();
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
  if (byRun.size === 0) return;
  for (const [run, rows] of byRun) await writeRun(trx, reviewId, run, rows, now);
  await trx.updateTable('reviews').set({ last_seq: seq }).where('id', '=', reviewId).execute();
}

/**
 * Who holds each of these rows of a review still leased, by "run:index", run by run (a seek in the primary key:
 * review, run, row); locked on PostgreSQL.
 */
async function leaseHolders(
  trx: Db,
  dialect: Dialect,
  reviewId: string,
  rows: readonly LeasedRow[],
): Promise<Map<string, string | null>> {
  const holder = new Map<string, string | null>();
  for (const run of new Set(rows.map((r) => r.run))) {
    const leased = await trx
      .selectFrom('review_results')
      .select(['row_index', 'lease_owner'])
      .where('review_id', '=', reviewId)
      .where('run', '=', run)
      .where('row_index', 'in', [...new Set(rows.filter((r) => r.run === run).map((r) => r.index))])
      .where('state', '=', sql.lit('leased'))
      .$if(dialect === 'postgres', (q) => q.forUpdate())
      .execute();
    for (const l of leased) holder.set(`${run}:${l.row_index}`, l.lease_owner);
  }
  return holder;
}

/** A run's rows written in one update, and its counts moved once by them (finished when the last is in). */
async function writeRun(
  trx: Db,
  reviewId: string,
  run: number,
  rows: readonly Numbered[],
  now: number,
): Promise<void> {
  const when = (value: (r: Numbered) => unknown, type: string) =>
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
  const counted = await trx
    .updateTable('review_runs')
    .set((eb) => ({
      done: eb('done', '+', n),
      matched: eb('matched', '+', counts.matched),
      not_found: eb('not_found', '+', counts.not_found),
      ambiguous: eb('ambiguous', '+', counts.ambiguous),
      failed: eb('failed', '+', counts.failed),
      finished_at: finishedWhenDone(eb, n, now),
    }))
    .where('review_id', '=', reviewId)
    .where('run', '=', run)
    .returning('finished_at')
    .executeTakeFirst();
  // Finished by these rows: a sign-off of an earlier run stands only if no answer changed.
  if (counted?.finished_at != null && Number(counted.finished_at) === now)
    await settleSignOffAfterRun(trx, reviewId, now);
}

/**
 * A run's finished_at as `n` more of its rows are done: now when they are its last, else as it was (set with
 * done + n in the same update; SQL reads `done` as it was before it).
 */
export function finishedWhenDone(
  eb: ExpressionBuilder<DatabaseSchema, 'review_runs'>,
  n: number,
  now: number,
) {
  return eb
    .case()
    .when('done', '>=', eb('total', '-', n))
    .then(now)
    .else(eb.ref('finished_at'))
    .end();
}
