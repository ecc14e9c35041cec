import {
  type BulkDecisionRequest,
  BulkDecisionResponse,
  type DecideRowRequest,
  type DecisionKind,
  MAX_BULK_DECISION_ROWS,
  ReviewRowResult,
  ReviewSummary,
  RowDecisionHistory,
  type SignOffRequest,
} from '../../../../contract/index.ts';
import { apiFetch } from '../../../lib/api-client.ts';

/* The decisions API (issue 30): a row's decision, many rows' at once, the row's history, sign-off and approval. */

const at = (id: string) => `/api/reviews/${encodeURIComponent(id)}`;

/** Sets a row's decision (null clears it); the row as every view now reads it. */
export const decideRow = (id: string, index: number, decision: DecideRowRequest | null) =>
  apiFetch(
    `${at(id)}/rows/${index}/decision`,
    ReviewRowResult,
    decision === null ? { method: 'DELETE' } : { method: 'PUT', body: decision },
  );

/**
 * One decision for many rows: all or none in each request of at most MAX_BULK_DECISION_ROWS (a larger selection
 * goes in parts, one after another). How many rows took it.
 */
export async function decideRows(
  id: string,
  rows: readonly number[],
  decision: DecisionKind,
): Promise<number> {
  let decided = 0;
  for (let i = 0; i < rows.length; i += MAX_BULK_DECISION_ROWS) {
    const body: BulkDecisionRequest = { rows: rows.slice(i, i + MAX_BULK_DECISION_ROWS), decision };
    decided += (await apiFetch(`${at(id)}/decisions`, BulkDecisionResponse, { method: 'POST', body }))
      .decided;
  }
  return decided;
}

export const rowDecisionHistory = (id: string, index: number) =>
  apiFetch(`${at(id)}/rows/${index}/decisions`, RowDecisionHistory).then((r) => r.history);

export const signOffReview = (id: string, request: SignOffRequest) =>
  apiFetch(`${at(id)}/sign-off`, ReviewSummary, { method: 'POST', body: request });

export const approveReview = (id: string) => apiFetch(`${at(id)}/approve`, ReviewSummary, { method: 'POST' });
