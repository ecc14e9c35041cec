import type { Kysely } from 'kysely';
import type { ReviewSignOff } from '../../../contract/index.ts';
import type { DatabaseSchema } from '../../db/schema.ts';
import { insertForChange } from '../audit/chain.ts';
import { type DecisionEntry, lockReview } from './row-decisions.ts';
import { toSignOff } from './to-api.ts';

type Db = Kysely<DatabaseSchema>;

/**
 * Why a review cannot be signed off: not in the account; still uploading or running; signed off already; or
 * rows (not excluded) without a decision and no reason given (`undecided`, with how many).
 */
export type SignOffRefusal = 'not_found' | 'not_finished' | 'signed_off' | { undecided: number };

/**
 * Why a review cannot be approved: not in the account, not signed off, approved already, by the key that signed it
 * off, or by a demo visitor other than the one who signed it off (`other_visitor`).
 */
export type ApprovalRefusal = 'not_found' | 'not_signed_off' | 'approved' | 'same_key' | 'other_visitor';

/**
 * Who signs off or approves: the key's fingerprint, and for a public demo visitor, the visitor (strangers share
 * the demo account and its keys: a visitor approves only a sign-off of their own visit); null for a real account.
 */
export interface Signer {
  by: string;
  visitor: string | null;
}

/** Sign-off and approval of a review (issue 30): each a conditional update of the review, audited with it. */
export class SqlReviewSignOff {
  constructor(
    private readonly db: Db,
    private readonly now: () => number = Date.now,
  ) {}

  /**
   * Signs the review off, as its latest run answered it (the run is recorded with the sign-off): allowed once
   * that run has finished, when every row (not excluded) has a decision, or with `reason` for those that do not.
   * Counted under the review's lock (row-decisions.ts lockReview), so a decision cleared at the same moment is
   * either counted or withdraws this sign-off.
   */
  async signOff(
    accountId: string,
    reviewId: string,
    { by, visitor }: Signer,
    reason: string,
    entry?: DecisionEntry,
  ): Promise<true | SignOffRefusal> {
    return this.db.transaction().execute(async (trx) => {
      const at = this.now();
      const review = await lockReview(trx, accountId, reviewId);
      if (!review) return 'not_found';
      if (review.signed_off_at != null) return 'signed_off';
      if (review.received_rows < review.total_rows || !review.latest_finished) return 'not_finished';
      const undecided = await trx
        .selectFrom('review_rows')
        .select((eb) => eb.fn.countAll<number | string>().as('n'))
        .where('review_id', '=', reviewId)
        .where('decision', 'is', null)
        .where('excluded', 'is', null)
        .executeTakeFirstOrThrow();
      const n = Number(undecided.n);
      if (n > 0 && !reason) return { undecided: n };
      const signed = await trx
        .updateTable('reviews')
        .set({
          signed_off_by: by,
          signed_off_at: at,
          signed_off_reason: n > 0 ? reason : null,
          signed_off_run: review.latest_run,
          signed_off_visitor: visitor,
        })
        .where('id', '=', reviewId)
        .where('signed_off_at', 'is', null)
        .executeTakeFirst();
      if (Number(signed.numUpdatedRows) !== 1) return 'signed_off';
      const what = `Run ${review.latest_run}${n > 0 ? `: ${reason}` : ''}`;
      if (entry) await insertForChange(trx, [entry('review_signed_off', null, what, at)]);
      return true;
    });
  }

  /**
   * Approves the signed-off review by `by`, a key of the account other than the one that signed it off; a demo
   * visitor approves only a sign-off made by the same visitor (`visitor`), whatever key of the demo they use.
   */
  async approve(
    accountId: string,
    reviewId: string,
    { by, visitor }: Signer,
    entry?: DecisionEntry,
  ): Promise<true | ApprovalRefusal> {
    return this.db.transaction().execute(async (trx) => {
      const at = this.now();
      const review = await lockReview(trx, accountId, reviewId);
      if (!review) return 'not_found';
      if (review.signed_off_at == null) return 'not_signed_off';
      if (review.approved_at != null) return 'approved';
      if (review.signed_off_by === by) return 'same_key';
      if (visitor !== null && review.signed_off_visitor !== visitor) return 'other_visitor';
      // The sign-off approved is the one read: a withdrawn or replaced one is not approved in its stead.
      const approved = await trx
        .updateTable('reviews')
        .set({ approved_by: by, approved_at: at })
        .where('id', '=', reviewId)
        .where('signed_off_at', '=', review.signed_off_at)
        .where('approved_at', 'is', null)
        .where('signed_off_by', '<>', by)
        .executeTakeFirst();
      if (Number(approved.numUpdatedRows) !== 1) return 'not_signed_off';
      if (entry) await insertForChange(trx, [entry('review_approved', null, null, at)]);
      return true;
    });
  }

  /** The review's sign-off and approval (null: not signed off; undefined: no such review): for the evidence manifest. */
  async signOffOf(accountId: string, reviewId: string): Promise<ReviewSignOff | null | undefined> {
    const review = await this.db
      .selectFrom('reviews')
      .selectAll()
      .where('id', '=', reviewId)
      .where('account_id', '=', accountId)
      .executeTakeFirst();
    return review ? toSignOff(review) : undefined;
  }
}
