import type { FixRowRequest, FixRowResponse, ReviewRowResult } from '../../contract/index.ts';
import type { HeldEntry } from '../audit/audit.ts';
import { inDatabase } from '../db/database.ts';
import { ApiError, toApiError } from '../errors.ts';
import type { Lookups } from '../lookups.ts';
import { keyFingerprint, type Session } from '../stores/sessions/types.ts';
import type { DurableReviews } from './durable-reviews.ts';
import { answerOfError, matchRow, type RowResult } from './look-up-row.ts';

/** Answers that are the address's own (no match, several): said to the reviewer, the row left as it was. */
const ANSWERS = new Set(['not_found', 'unit_not_found', 'ambiguous']);

export interface FixRowDeps {
  reviews: DurableReviews;
  lookups: Lookups;
  now?: () => number;
}

/**
 * A reviewer fixes one row without leaving the review: the address (a candidate's, or the input edited) is
 * looked up at once in the interactive lane, and only when it finds one property (the candidate's, when one
 * was chosen) does the row take that answer, for every view of the review and for later runs. A lookup that
 * could not be made (rate limit, service away, a key that stopped working) is thrown and changes nothing.
 */
export async function fixReviewRow(
  deps: FixRowDeps,
  session: Session,
  target: { reviewId: string; index: number },
  request: FixRowRequest,
): Promise<FixRowResponse> {
  const { store } = deps.reviews;
  const current = await currentRow(store, session.accountId, target);
  const now = deps.now ?? Date.now;
  // The lookup's entry, held (ADR 010, addendum): committed in the fix's own transaction when the row takes its
  // answer, so what a reader of the review sees change comes with its entry (an evidence packet being read
  // notices the change by it); alone otherwise, for the lookup was made. Either before the answer leaves.
  let held: HeldEntry | undefined;
  const alone = async () => {
    const entry = held;
    held = undefined;
    await entry?.commit();
  };
  const hold = (h: HeldEntry) => {
    held = h;
  };
  let result: RowResult;
  try {
    result = await matchRow(deps.lookups, session, request.address, {
      fresh: false,
      lane: 'interactive',
      now,
      audit: { kind: 'review_fix', reviewId: target.reviewId, row: target.index, hold },
    });
  } catch (err) {
    await alone();
    const e = toApiError(err);
    if (!ANSWERS.has(e.code)) throw e;
    const attempt = answerOfError(e, new Date(now()).toISOString());
    return {
      fixed: false,
      row: current,
      attempt: {
        outcome: attempt.outcome,
        ...(attempt.candidates ? { candidates: attempt.candidates } : {}),
        ...(attempt.error ? { error: attempt.error } : {}),
      },
    };
  }
  const found = result.property;
  if (request.candidateId !== undefined && found && found.id !== request.candidateId) {
    await alone();
    return { fixed: false, row: current, attempt: otherProperty(found) };
  }
  const fix = {
    address: request.address,
    how: request.candidateId === undefined ? ('edited' as const) : ('candidate' as const),
    by: keyFingerprint(session.keyHash),
    at: new Date(now()).toISOString(),
  };
  const written = await inDatabase(() =>
    store.fixRow(session.accountId, target.reviewId, target.index, fix, result, held?.entry),
  ).catch(async (err: unknown) => {
    // Rolled back, its entry with it: the lookup is recorded alone (or the answer is audit_unavailable). Past the
    // deadline the transaction may yet commit: the lookup is then on record twice, rather than perhaps never.
    await alone();
    throw err;
  });
  if (typeof written === 'string') {
    await alone();
    throw refused(written);
  }
  deps.reviews.announce(target.reviewId);
  return { fixed: true, row: written };
}

/** The row as it stands, when it can be fixed: it has an answer of its own (not waiting for the worker). */
async function currentRow(
  store: DurableReviews['store'],
  accountId: string,
  target: { reviewId: string; index: number },
): Promise<ReviewRowResult> {
  const row = await inDatabase(() => store.row(accountId, target.reviewId, target.index));
  if (!row) {
    const review = await inDatabase(() => store.summary(accountId, target.reviewId));
    if (!review) throw refused('not_found');
    // A row of the review not uploaded yet has no answer either.
    throw refused(target.index < review.totalRows ? 'not_answered' : 'no_such_row');
  }
  if (row.outcome === 'pending') throw refused('not_answered');
  return row;
}

/** The candidate's address now finds another property: offered as the candidate to choose instead. */
function otherProperty(found: NonNullable<RowResult['property']>): FixRowResponse['attempt'] {
  return {
    outcome: 'matched',
    candidates: [{ id: found.id, address: found.address, confidence: found.confidence }],
    error: {
      code: 'conflict',
      message: 'That address now finds another property than the one chosen. Check it before you use it.',
    },
  };
}

function refused(why: 'not_found' | 'no_such_row' | 'not_answered'): ApiError {
  if (why === 'not_found') return new ApiError(404, 'not_found', 'There is no such review in this account.');
  if (why === 'no_such_row') return new ApiError(404, 'not_found', 'This review has no such row.');
  return new ApiError(
    409,
    'conflict',
    'This row is still being looked up. Fix it once it has an answer of its own.',
  );
}
