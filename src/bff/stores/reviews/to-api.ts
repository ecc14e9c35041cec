import {
  type ReviewRowResult,
  type ReviewRun,
  type ReviewStatus,
  type ReviewSummary,
  RowFix,
} from '../../../contract/index.ts';
import type { ReviewRunsTable, ReviewsTable } from '../../db/schema.ts';
import { StoredAnswer } from '../../reviews/look-up-row.ts';
import { previousIfChanged } from './changes.ts';

/* Database rows as the API speaks them. */

export function toSummary(review: ReviewsTable, runs: ReviewRunsTable[]): ReviewSummary {
  const latest = runs.at(-1);
  const status: ReviewStatus =
    review.received_rows < review.total_rows || !latest
      ? 'uploading'
      : latest.finished_at === null
        ? latest.paused_at === null
          ? 'running'
          : 'paused'
        : latest.cancelled_at === null
          ? 'done'
          : 'cancelled';
  return {
    id: review.id,
    name: review.name,
    kind: review.kind as ReviewSummary['kind'],
    origin: review.origin,
    createdBy: review.created_by,
    createdAt: new Date(Number(review.created_at)).toISOString(),
    status,
    columns: JSON.parse(review.columns) as string[],
    totalRows: review.total_rows,
    receivedRows: review.received_rows,
    skippedBlank: review.skipped_blank,
    runs: runs.map(toRun),
  };
}

function toRun(u: ReviewRunsTable): ReviewRun {
  return {
    number: u.run,
    startedAt: new Date(Number(u.started_at)).toISOString(),
    finishedAt: u.finished_at === null ? null : new Date(Number(u.finished_at)).toISOString(),
    counts: {
      total: u.total,
      done: u.done,
      matched: u.matched,
      notFound: u.not_found,
      ambiguous: u.ambiguous,
      failed: u.failed,
    },
  };
}

export interface JoinedRow {
  row_index: number;
  address: string;
  cells: string | null;
  fix: string | null;
  state: string | null;
  result: string | null;
  seq: number | null;
  previous: string | null;
}

function readFix(text: string | null): RowFix | undefined {
  if (!text) return undefined;
  const parsed = RowFix.safeParse(JSON.parse(text));
  return parsed.success ? parsed.data : undefined;
}

export function readResult(text: string | null): StoredAnswer | undefined {
  if (!text) return undefined;
  const parsed = StoredAnswer.safeParse(JSON.parse(text));
  return parsed.success ? parsed.data : undefined;
}

/**
 * A row of run `run` as the API gives it. A row a reviewer fixed in this run says no "previous": its answer
 * changed by the fix, not because the service's record did.
 */
export function toRowResult(row: JoinedRow, run: number): ReviewRowResult {
  const result = row.state === 'done' ? readResult(row.result) : undefined;
  const fix = readFix(row.fix);
  const previous =
    result && fix?.run !== run ? previousIfChanged(readResult(row.previous), result) : undefined;
  return {
    index: row.row_index,
    input: row.address,
    ...(fix ? { fix } : {}),
    ...(row.cells ? { cells: JSON.parse(row.cells) as string[] } : {}),
    outcome: result?.outcome ?? (row.state === 'cancelled' ? 'not_asked' : 'pending'),
    ...(result?.property ? { property: result.property } : {}),
    ...(result && result.match !== undefined ? { match: result.match } : {}),
    ...(result?.candidates ? { candidates: result.candidates } : {}),
    ...(result?.error ? { error: result.error } : {}),
    ...(result?.cached !== undefined ? { cached: result.cached } : {}),
    ...(result?.retrievedAt ? { retrievedAt: result.retrievedAt } : {}),
    ...(previous ? { previous } : {}),
    seq: Number(row.seq ?? 0),
  };
}
