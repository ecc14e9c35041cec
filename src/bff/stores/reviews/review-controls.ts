import { sql, type Transaction } from 'kysely';
import type { DatabaseSchema, ReviewRunsTable } from '../../db/schema.ts';
import { latestRun } from './latest-run.ts';
import { settleSignOffAfterRun } from './row-decisions-sign-off.ts';
import { startRun } from './start-run.ts';

type Trx = Transaction<DatabaseSchema>;

/** What a reviewer can do to a review's latest run while it is being worked. */
export type ReviewAction = 'pause' | 'resume' | 'cancel';

/**
 * Why an action was refused: no such review in this account, rows still uploading, the run already finished
 * (done), cancelled, paused already (pause), or not paused (resume).
 */
export type ActionRefusal = 'not_found' | 'uploading' | 'finished' | 'cancelled' | 'paused' | 'not_paused';

/**
 * Pauses, resumes or cancels the review's latest run, in the caller's transaction; null once done. An upload not
 * finished has no run yet: pause and resume are refused, cancel ends it (its rows received not asked). The review's
 * row is locked first, as Check again and a fix do: on PostgreSQL two actions on one review take turns, so each
 * decides on the run as the one before left it, and a cancel's sequence numbers are the review's alone (the
 * worker's completion takes the next one under the same lock).
 *
 * Rows: pause moves the run's waiting rows (pending, and leased ones whose lease ran out: their replica is gone)
 * to 'paused', resume moves them back, cancel makes every row still waiting 'cancelled' and finishes the run.
 * Rows being asked at that moment finish and keep their answer; one put back to wait becomes 'paused' or
 * 'cancelled' by the trigger of migration 0005.
 */
export async function controlRun(
  trx: Trx,
  accountId: string,
  reviewId: string,
  action: ReviewAction,
  now: number,
): Promise<ActionRefusal | null> {
  const review = await trx
    .updateTable('reviews')
    .set((eb) => ({ last_seq: eb.ref('last_seq') }))
    .where('id', '=', reviewId)
    .where('account_id', '=', accountId)
    .returning(['id', 'account_id', 'last_seq', 'total_rows', 'received_rows'])
    .executeTakeFirst();
  if (!review) return 'not_found';
  const latest = () => latestRun(trx, reviewId);
  const run = await latest();
  if (!run) {
    // An upload not finished (a tab closed mid-way): it can only be cancelled. Its rows received get a run,
    // cancelled at once (each 'not asked'), so it holds no rows against the quota and takes no more.
    if (action !== 'cancel') return 'uploading';
    await startRun(trx, { review, run: 1, fresh: false, rows: review.received_rows, now });
    await cancel(trx, (await latest()) as ReviewRunsTable, Number(review.last_seq), review.total_rows, now);
    return null;
  }
  const refusal = refusalFor(run, action);
  if (refusal) return refusal;
  if (action === 'pause') await pause(trx, run, now);
  else if (action === 'resume') await resume(trx, run);
  else {
    await cancel(trx, run, Number(review.last_seq), review.total_rows, now);
    // Its rows never asked have no answer now: a sign-off of an earlier run is withdrawn.
    await settleSignOffAfterRun(trx, reviewId, now);
  }
  return null;
}

function refusalFor(run: ReviewRunsTable, action: ReviewAction): ActionRefusal | null {
  if (run.cancelled_at !== null) return 'cancelled';
  if (run.finished_at !== null) return 'finished';
  if (action === 'pause' && run.paused_at !== null) return 'paused';
  if (action === 'resume' && run.paused_at === null) return 'not_paused';
  return null;
}

/** The run's rows waiting to be asked (pending, or leased by a replica whose lease ran out) become 'paused'. */
async function pause(trx: Trx, run: ReviewRunsTable, now: number): Promise<void> {
  await trx
    .updateTable('review_runs')
    .set({ paused_at: now })
    .where('review_id', '=', run.review_id)
    .where('run', '=', run.run)
    .execute();
  await trx
    .updateTable('review_results')
    .set({ state: 'paused', lease_owner: null })
    .where('review_id', '=', run.review_id)
    .where('run', '=', run.run)
    .where((eb) =>
      eb.or([eb('state', '=', 'pending'), eb.and([eb('state', '=', 'leased'), eb('lease_until', '<', now)])]),
    )
    .execute();
}

async function resume(trx: Trx, run: ReviewRunsTable): Promise<void> {
  await trx
    .updateTable('review_runs')
    .set({ paused_at: null })
    .where('review_id', '=', run.review_id)
    .where('run', '=', run.run)
    .execute();
  await trx
    .updateTable('review_results')
    .set({ state: 'pending' })
    .where('review_id', '=', run.review_id)
    .where('run', '=', run.run)
    .where('state', '=', 'paused')
    .execute();
}

/**
 * The run ends now; its rows never asked become 'cancelled', each with a sequence number of its own past the
 * review's last (base + 1 + its index), so live views hear of every one of them ("rows since N" pages by it).
 */
async function cancel(trx: Trx, run: ReviewRunsTable, lastSeq: number, totalRows: number, now: number) {
  await trx
    .updateTable('review_runs')
    .set({ cancelled_at: now, finished_at: now, paused_at: null })
    .where('review_id', '=', run.review_id)
    .where('run', '=', run.run)
    .execute();
  await trx
    .updateTable('review_results')
    .set({
      state: 'cancelled',
      lease_owner: null,
      seq: sql<number>`cast(${lastSeq + 1} as bigint) + row_index`,
    })
    .where('review_id', '=', run.review_id)
    .where('run', '=', run.run)
    .where((eb) =>
      eb.or([
        eb('state', 'in', ['pending', 'paused']),
        eb.and([eb('state', '=', 'leased'), eb('lease_until', '<', now)]),
      ]),
    )
    .execute();
  await trx
    .updateTable('reviews')
    .set({ last_seq: lastSeq + totalRows })
    .where('id', '=', run.review_id)
    .execute();
}
