import type { Transaction } from 'kysely';
import { askedKey, LookupOutcome, type RowFix } from '../../../contract/index.ts';
import type { DatabaseSchema } from '../../db/schema.ts';
import type { RowResult } from '../../reviews/look-up-row.ts';
import { OUTCOME_COLUMN } from './queue.ts';

type Trx = Transaction<DatabaseSchema>;

/** Why a row cannot be fixed: no such review (in this account), no such row, or it has no answer yet. */
export type FixRefusal = 'not_found' | 'no_such_row' | 'not_answered';

/**
 * Writes a reviewer's fix of one row, in the caller's transaction: the latest run's answer becomes `result`,
 * that run's counts move with it, the row takes the review's next sequence number (live views hear of it) and
 * keeps `fix` for later runs. The review's row is updated first: on PostgreSQL that lock makes two fixes of
 * one review (or a fix and the worker's answer) take turns, so a count is never moved twice.
 */
export async function writeFix(
  trx: Trx,
  accountId: string,
  reviewId: string,
  index: number,
  fix: RowFix,
  result: RowResult,
): Promise<FixRefusal | null> {
  const review = await trx
    .updateTable('reviews')
    .set((eb) => ({ last_seq: eb('last_seq', '+', 1) }))
    .where('id', '=', reviewId)
    .where('account_id', '=', accountId)
    .returning(['last_seq', 'total_rows'])
    .executeTakeFirst();
  if (!review) return 'not_found';
  if (index >= review.total_rows) return 'no_such_row';
  const latest = await trx
    .selectFrom('review_results')
    .select(['run', 'state', 'outcome'])
    .where('review_id', '=', reviewId)
    .where('row_index', '=', index)
    .orderBy('run', 'desc')
    .executeTakeFirst();
  const before = LookupOutcome.safeParse(latest?.outcome);
  if (latest?.state !== 'done' || !before.success) return 'not_answered';
  await trx
    .updateTable('review_results')
    .set({ outcome: result.outcome, result: JSON.stringify(result), seq: review.last_seq })
    .where('review_id', '=', reviewId)
    .where('run', '=', latest.run)
    .where('row_index', '=', index)
    .execute();
  await trx
    .updateTable('review_rows')
    // The row now asks the fixed address: its key goes with it, so that a later run shares one lookup between it
    // and a row that already asked that address (review finding R29).
    .set({ fix: JSON.stringify({ ...fix, run: latest.run }), address_key: askedKey(fix.address, undefined) })
    .where('review_id', '=', reviewId)
    .where('row_index', '=', index)
    .execute();
  const from = OUTCOME_COLUMN[before.data];
  const to = OUTCOME_COLUMN[result.outcome];
  if (from !== to)
    await trx
      .updateTable('review_runs')
      .set((eb) => ({ [from]: eb(from, '-', 1), [to]: eb(to, '+', 1) }))
      .where('review_id', '=', reviewId)
      .where('run', '=', latest.run)
      .execute();
  return null;
}
