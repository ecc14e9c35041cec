import type { DecisionKind, ReviewRowResult } from '../../../../contract/index.ts';

/** A decision in the reviewer's words, wherever it is said (table, dialog, filter, summary, print). */
export const DECISION_TEXT: Record<DecisionKind, string> = {
  accept: 'Accepted',
  reject: 'Rejected',
  follow_up: 'Needs follow-up',
};

/** What a button that makes the decision says. */
export const DECIDE_TEXT: Record<DecisionKind, string> = {
  accept: 'Accept',
  reject: 'Reject',
  follow_up: 'Needs follow-up',
};

export const DECISIONS: readonly DecisionKind[] = ['accept', 'reject', 'follow_up'];

/** The Decision filter: one decision, or the rows with none yet. */
export type DecisionFilter = DecisionKind | 'undecided';

export const matchesDecision = (row: ReviewRowResult, f: DecisionFilter) =>
  f === 'undecided' ? row.decision === undefined : row.decision?.decision === f;

/** Rows by decision; rows excluded need none and are not counted undecided. */
export function decisionCounts(rows: readonly { row: ReviewRowResult }[]) {
  const counts = { accept: 0, reject: 0, follow_up: 0, undecided: 0 };
  for (const { row } of rows) {
    if (row.decision) counts[row.decision.decision] += 1;
    else if (!row.excluded) counts.undecided += 1;
  }
  return counts;
}
