import type { Kysely } from 'kysely';
import { NOT_A_LOOKUP } from '../../audit/audit.ts';
import type { DatabaseSchema } from '../../db/schema.ts';
import type { StoredAnswer } from '../../reviews/look-up-row.ts';
import { insertForChange } from '../audit/chain.ts';
import { previousIfChanged } from './changes.ts';
import { latestRun } from './latest-run.ts';
import { withdrawSignOff } from './row-decisions.ts';

/** The change's transaction (the worker's batch types its own as Kysely). */
type Trx = Kysely<DatabaseSchema>;

/** Rows of each of the two runs read at once (a 100,000-row review is never read whole). */
const PAGE = 1_000;

/*
 * When a review's sign-off no longer holds without anyone deciding anything (issue 30). A sign-off is of the
 * review as its latest run then answered it (its run, `signed_off_run`). Both rules run in the transaction of the
 * change, after the review's row is locked (its last_seq moved), so they read the sign-off as it stands.
 */

/**
 * A later run of a signed-off review has finished (the worker's last answer, a Cancel, the last waiting row
 * excluded): the sign-off is withdrawn, with an entry of the audit trail, when any row (not excluded) answers
 * otherwise than in the run signed off ("Changes since"'s rule: another outcome or record, source, confidence
 * or verification; or no answer now, as a cancelled run leaves its rows never asked). Otherwise it is kept and
 * stays "of run N". Does nothing when the review is not signed off, or signed off on its latest run, or that run
 * is not finished: safe to call at every finish. Answers the number of rows changed (0: kept or nothing to do).
 */
export async function settleSignOffAfterRun(trx: Trx, reviewId: string, now: number): Promise<number> {
  const review = await trx
    .selectFrom('reviews')
    .select(['account_id', 'signed_off_at', 'signed_off_by', 'signed_off_run'])
    .where('id', '=', reviewId)
    .executeTakeFirst();
  if (review?.signed_off_at == null || review.signed_off_run == null) return 0;
  const signed = Number(review.signed_off_run);
  const latest = await latestRun(trx, reviewId);
  if (!latest || latest.finished_at === null || Number(latest.run) <= signed) return 0;
  const run = Number(latest.run);
  const changed = await rowsChanged(trx, reviewId, signed, run);
  if (changed === 0) return 0;
  await withdrawSignOff(trx, reviewId);
  await insertForChange(trx, [
    {
      at: now,
      account_id: review.account_id,
      // Whose sign-off it was: no person withdrew it, the run did.
      key_fingerprint: review.signed_off_by ?? '',
      session_ref: null,
      kind: 'review_sign_off_withdrawn',
      query: `Run ${run} changed the answer of ${changed.toLocaleString('en-US')} ${changed === 1 ? 'row' : 'rows'} since the sign-off of run ${signed}`,
      outcome: 'ok',
      ...NOT_A_LOOKUP,
      review_id: reviewId,
      row_index: null,
    },
  ]);
  return changed;
}

/** Rows (not excluded) whose answer in `after` is not the one they had in `before`. */
async function rowsChanged(trx: Trx, reviewId: string, before: number, after: number): Promise<number> {
  let changed = 0;
  const { n } = await trx
    .selectFrom('review_rows')
    .select((eb) => eb.fn.max('row_index').as('n'))
    .where('review_id', '=', reviewId)
    .executeTakeFirstOrThrow();
  const last = n === null ? -1 : Number(n);
  for (let from = 0; from <= last; from += PAGE) {
    const page = await trx
      .selectFrom('review_rows as w')
      .leftJoin('review_results as a', (j) =>
        j
          .onRef('a.review_id', '=', 'w.review_id')
          .onRef('a.row_index', '=', 'w.row_index')
          .on('a.run', '=', before),
      )
      .leftJoin('review_results as b', (j) =>
        j
          .onRef('b.review_id', '=', 'w.review_id')
          .onRef('b.row_index', '=', 'w.row_index')
          .on('b.run', '=', after),
      )
      .select(['a.result as was', 'b.result as now'])
      .where('w.review_id', '=', reviewId)
      .where('w.excluded', 'is', null)
      .where('w.row_index', '>=', from)
      .where('w.row_index', '<', from + PAGE)
      .execute();
    for (const r of page) if (answerChanged(parse(r.was), parse(r.now))) changed++;
  }
  return changed;
}

function answerChanged(was: StoredAnswer | undefined, now: StoredAnswer | undefined): boolean {
  if (!was || !now) return was !== now;
  return previousIfChanged(was, now) !== undefined;
}

/**
 * A stored answer, or undefined for none (or one that does not read as JSON). Not checked against its schema:
 * these are PropLens's own answers, only compared field by field (previousIfChanged), and checking 200,000 of them
 * took most of a 100,000-row review's comparison.
 */
function parse(text: string | null): StoredAnswer | undefined {
  if (!text) return undefined;
  try {
    const answer = JSON.parse(text) as StoredAnswer | null;
    return answer && typeof answer === 'object' ? answer : undefined;
  } catch {
    return undefined;
  }
}

/**
 * A row of a signed-off review was included again: when it has no decision, the sign-off's rule (every row not
 * excluded decided, or a reason given for those that are not) no longer holds for what was signed, and the
 * sign-off and its approval are withdrawn. A row included with a decision leaves the sign-off standing. Answers
 * the withdrawal's words for its audit entry, or null when nothing was withdrawn.
 */
export async function withdrawSignOffOnInclude(
  trx: Trx,
  reviewId: string,
  index: number,
): Promise<string | null> {
  const review = await trx
    .selectFrom('reviews')
    .select('signed_off_at')
    .where('id', '=', reviewId)
    .executeTakeFirst();
  if (review?.signed_off_at == null) return null;
  const row = await trx
    .selectFrom('review_rows')
    .select(['decision', 'excluded'])
    .where('review_id', '=', reviewId)
    .where('row_index', '=', index)
    .executeTakeFirst();
  if (!row || row.excluded !== null || row.decision !== null) return null;
  await withdrawSignOff(trx, reviewId);
  return `Row ${index + 1} included again, with no decision`;
}

/**
 * A row of a signed-off review was changed in place after the sign-off (hostile review F4): a fix rewrites the
 * answer of the run signed off, an exclusion takes a row out of what was signed. The sign-off and its approval
 * were given to the review as it was, so they are withdrawn. Answers the withdrawal's words for its audit entry,
 * or null when the review was not signed off.
 */
export async function withdrawSignOffOnEdit(
  trx: Trx,
  reviewId: string,
  index: number,
  edit: 'fixed' | 'excluded',
): Promise<string | null> {
  const review = await trx
    .selectFrom('reviews')
    .select('signed_off_at')
    .where('id', '=', reviewId)
    .executeTakeFirst();
  if (review?.signed_off_at == null) return null;
  await withdrawSignOff(trx, reviewId);
  return `Row ${index + 1} ${edit} after the sign-off`;
}

/** A fix after the sign-off (withdrawSignOffOnEdit), with its audit entry by the fixing key. Answers null. */
export async function withdrawSignOffOnFix(
  trx: Trx,
  fix: { accountId: string; reviewId: string; index: number; by: string; at: number },
): Promise<null> {
  const withdrawn = await withdrawSignOffOnEdit(trx, fix.reviewId, fix.index, 'fixed');
  if (withdrawn)
    await insertForChange(trx, [
      {
        at: fix.at,
        account_id: fix.accountId,
        key_fingerprint: fix.by,
        session_ref: null,
        kind: 'review_sign_off_withdrawn',
        query: withdrawn,
        outcome: 'ok',
        ...NOT_A_LOOKUP,
        review_id: fix.reviewId,
        row_index: fix.index,
      },
    ]);
  return null;
}
