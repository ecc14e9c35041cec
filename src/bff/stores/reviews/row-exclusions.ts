import { sql, type Transaction } from 'kysely';
import type { RowExclusion } from '../../../contract/index.ts';
import type { DatabaseSchema } from '../../db/schema.ts';
import { finishedWhenDone } from './completions.ts';
import { latestRun } from './latest-run.ts';
import { settleSignOffAfterRun } from './row-decisions-sign-off.ts';

type Trx = Transaction<DatabaseSchema>;

/** Why a row cannot be excluded or included: no such review (in this account), no such row, or not uploaded yet. */
export type ExclusionRefusal = 'not_found' | 'no_such_row' | 'not_uploaded';

/** What an exclusion (or its undoing) did to the review's latest run. */
export interface ExclusionWritten {
  /** A row waiting to be asked was taken out of the run (excluded), or put back into it (included). */
  asked: 'taken_out' | 'put_back' | 'unchanged';
}

/**
 * Marks one row of a review excluded (`exclusion`) or includes it again (null), in the caller's transaction.
 * The row keeps its place and whatever answer it has; the change takes the review's next sequence number, so
 * every live view hears of it.
 *
 * Lookups are not spent on an excluded row: one still waiting in the latest run (pending or paused) is taken
 * out of it, 'cancelled' (not asked) and counted done, which finishes the run when it was the last; Check again
 * leaves excluded rows out (start-run.ts). Included again while its run is not cancelled, such a row waits to be
 * asked again (paused when the run is), and a run it had finished runs again for it. A row being asked at that
 * moment finishes and keeps its answer, marked.
 *
 * The review's row is updated first: on PostgreSQL that lock makes two changes of one review (an exclusion, a
 * fix, the worker's answer, a pause) take turns, so a count is never moved twice.
 */
export async function writeExclusion(
  trx: Trx,
  accountId: string,
  reviewId: string,
  index: number,
  exclusion: RowExclusion | null,
  now: number,
): Promise<ExclusionWritten | ExclusionRefusal> {
  const review = await trx
    .updateTable('reviews')
    .set((eb) => ({ last_seq: eb('last_seq', '+', 1) }))
    .where('id', '=', reviewId)
    .where('account_id', '=', accountId)
    .returning(['last_seq', 'total_rows', 'received_rows'])
    .executeTakeFirst();
  if (!review) return 'not_found';
  if (index >= review.total_rows) return 'no_such_row';
  const row = await trx
    .selectFrom('review_rows')
    .select('excluded')
    .where('review_id', '=', reviewId)
    .where('row_index', '=', index)
    .executeTakeFirst();
  if (!row) return 'not_uploaded';
  await trx
    .updateTable('review_rows')
    .set({ excluded: exclusion ? JSON.stringify(exclusion) : null })
    .where('review_id', '=', reviewId)
    .where('row_index', '=', index)
    .execute();
  const run = await latestRun(trx, reviewId);
  // Still uploading: no run yet; the first one leaves the row out (start-run.ts).
  if (!run) return { asked: 'unchanged' };
  const seq = Number(review.last_seq);
  const wasExcluded = row.excluded !== null;
  const result = () =>
    trx
      .updateTable('review_results')
      .where('review_id', '=', reviewId)
      .where('run', '=', run.run)
      .where('row_index', '=', index);
  // Each change of state says which state it changes from, so the database decides (a worker may lease the row
  // this moment): a row leased first is asked and keeps its answer, marked.
  let asked: ExclusionWritten['asked'] = 'unchanged';
  if (exclusion && !wasExcluded) {
    const out = await result()
      .set({ state: 'cancelled', lease_owner: null, seq })
      .where('state', 'in', ['pending', 'paused'])
      .executeTakeFirst();
    if (Number(out.numUpdatedRows) === 1) asked = 'taken_out';
  } else if (!exclusion && wasExcluded && run.cancelled_at === null) {
    const back = await result()
      .set({ state: run.paused_at === null ? 'pending' : 'paused', not_before: 0, seq })
      .where('state', '=', 'cancelled')
      .executeTakeFirst();
    if (Number(back.numUpdatedRows) === 1) asked = 'put_back';
  }
  // Whatever else: the row's next sequence number, so live views hear that its mark changed.
  if (asked === 'unchanged') await result().set({ seq }).execute();
  await countDone(trx, reviewId, run.run, asked, now);
  // The last row waiting taken out finishes the run: a sign-off of an earlier run stands if no answer changed.
  if (asked === 'taken_out') await settleSignOffAfterRun(trx, reviewId, now);
  return { asked };
}

/** The run's rows done move with a row taken out (finished when it was the last) or put back (open again). */
async function countDone(
  trx: Trx,
  reviewId: string,
  run: number,
  asked: ExclusionWritten['asked'],
  now: number,
): Promise<void> {
  if (asked === 'taken_out')
    await trx
      .updateTable('review_runs')
      .set((eb) => ({
        done: eb('done', '+', 1),
        finished_at: finishedWhenDone(eb, 1, now),
      }))
      .where('review_id', '=', reviewId)
      .where('run', '=', run)
      .execute();
  if (asked === 'put_back')
    await trx
      .updateTable('review_runs')
      .set((eb) => ({ done: eb('done', '-', 1), finished_at: sql<null>`null` }))
      .where('review_id', '=', reviewId)
      .where('run', '=', run)
      .execute();
}
