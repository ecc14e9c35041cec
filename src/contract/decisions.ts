import * as z from 'zod/mini';
import { text } from './common.ts';

/*
 * Decisions on rows, and sign-off (issue 30): a reviewer's judgement of each row (Accept, Reject, Needs
 * follow-up), kept with its history, and the review signed off by one key and approved by another of the account.
 */

/** The longest note a reviewer gives with a decision. */
export const MAX_DECISION_NOTE = 2_000;
/** Most rows in one bulk decision (a larger selection is sent in parts). */
export const MAX_BULK_DECISION_ROWS = 5_000;

export const DecisionKind = z.enum(['accept', 'reject', 'follow_up']);
export type DecisionKind = z.infer<typeof DecisionKind>;

/** A row's current decision: what, why (may be empty), by which key, when. */
export const RowDecision = z.object({
  decision: DecisionKind,
  note: z.string(),
  /** Who decided: the key's fingerprint (never the key). */
  by: z.string(),
  /** ISO date-time. */
  at: z.string(),
});
export type RowDecision = z.infer<typeof RowDecision>;

/** One step of a row's decision history, oldest first: a decision, or `cleared` (the row undecided again). */
export const RowDecisionStep = z.object({
  decision: z.union([DecisionKind, z.literal('cleared')]),
  note: z.string(),
  by: z.string(),
  at: z.string(),
});
export type RowDecisionStep = z.infer<typeof RowDecisionStep>;

/** GET /api/reviews/:id/rows/:index/decisions: the row's decisions, oldest first (the last is the current one). */
export const RowDecisionHistory = z.object({ history: z.array(RowDecisionStep) });
export type RowDecisionHistory = z.infer<typeof RowDecisionHistory>;

const decisionNote = z.optional(
  text('note').check(z.trim(), z.maxLength(MAX_DECISION_NOTE, 'A note is at most 2,000 characters.')),
);

/** PUT /api/reviews/:id/rows/:index/decision (DELETE clears it: the row is undecided again). */
export const DecideRowRequest = z.object({ decision: DecisionKind, note: decisionNote });
export type DecideRowRequest = z.infer<typeof DecideRowRequest>;

/** POST /api/reviews/:id/decisions: one decision for many rows, all or none. */
export const BulkDecisionRequest = z.object({
  rows: z
    .array(z.int().check(z.nonnegative()))
    .check(
      z.minLength(1, 'Choose at least one row.'),
      z.maxLength(MAX_BULK_DECISION_ROWS, 'At most 5,000 rows at once.'),
    ),
  decision: DecisionKind,
  note: decisionNote,
});
export type BulkDecisionRequest = z.infer<typeof BulkDecisionRequest>;

/** The longest reason given for signing off a review with rows undecided. */
export const MAX_SIGN_OFF_REASON = 2_000;

/** POST /api/reviews/:id/sign-off: a reason is required while rows (not excluded) have no decision. */
export const SignOffRequest = z.object({
  reason: z.optional(
    text('reason').check(z.trim(), z.maxLength(MAX_SIGN_OFF_REASON, 'A reason is at most 2,000 characters.')),
  ),
});
export type SignOffRequest = z.infer<typeof SignOffRequest>;

/**
 * A review signed off (by one key, with a reason when rows were left undecided) and perhaps approved (by another
 * key of the account), as of one run. A decision made after the sign-off withdraws both (what was signed is no
 * longer what is), as do a row included again with no decision, and a later run that changed any row's answer;
 * a later run that changed none leaves it standing, still of its run ("Signed off on run 2; run 3 since").
 */
export const ReviewSignOff = z.object({
  by: z.string(),
  at: z.string(),
  /** The run whose answers were signed off (the review's latest when it was). */
  run: z.int().check(z.positive()),
  /** Why rows were left undecided; null when every row (not excluded) had a decision. */
  reason: z.nullable(z.string()),
  approved: z.nullable(z.object({ by: z.string(), at: z.string() })),
});
export type ReviewSignOff = z.infer<typeof ReviewSignOff>;

/** POST /api/reviews/:id/decisions: how many rows took the decision, and the rows as every view now reads them. */
export const BulkDecisionResponse = z.object({ decided: z.int().check(z.nonnegative()) });
export type BulkDecisionResponse = z.infer<typeof BulkDecisionResponse>;
