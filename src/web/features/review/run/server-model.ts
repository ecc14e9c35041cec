import type { ReviewRowResult, ReviewSummary } from '../../../../contract/index.ts';
import type { Review, ReviewRow, ReviewSource } from '../model.ts';

function sourceOf(summary: ReviewSummary): ReviewSource {
  switch (summary.kind) {
    case 'csv':
      return { kind: 'file', fileName: summary.origin ?? 'file' };
    case 'area':
      return { kind: 'area', query: summary.origin ?? '', cap: summary.totalRows };
    case 'sample':
      return { kind: 'sample' };
    default:
      return { kind: 'paste' };
  }
}

/** A server review as the results read it; `accountName` is the signed-in account's, for the evidence. */
export function toReview(summary: ReviewSummary, accountId: string, accountName: string): Review {
  const latest = summary.runs.at(-1);
  const createdAt = Date.parse(summary.createdAt);
  return {
    id: summary.id,
    accountId,
    name: summary.name,
    source: sourceOf(summary),
    createdAt,
    updatedAt: latest ? Date.parse(latest.finishedAt ?? latest.startedAt) : createdAt,
    total: summary.totalRows,
    skippedBlank: summary.skippedBlank,
    accountName,
    finished: latest?.counts.done ?? 0,
    columns: summary.columns,
    createdBy: summary.createdBy,
    status: summary.status,
    runs: summary.runs,
  };
}

/**
 * A row as the page keeps it. A CSV row's own cells are left out: only the server's export shows them, and a
 * 100,000-row review's page holds every row.
 */
export function toReviewRow(reviewId: string, r: ReviewRowResult): ReviewRow {
  return {
    reviewId,
    index: r.index,
    input: r.input,
    outcome: r.outcome,
    ...(r.property ? { property: r.property } : {}),
    ...(r.match !== undefined ? { match: r.match } : {}),
    ...(r.candidates ? { candidates: r.candidates } : {}),
    ...(r.error ? { error: r.error } : {}),
    ...(r.retrievedAt ? { retrievedAt: r.retrievedAt } : {}),
    ...(r.cached !== undefined ? { cached: r.cached } : {}),
    ...(r.previous ? { previous: r.previous } : {}),
    ...(r.fix ? { fix: r.fix } : {}),
  };
}
