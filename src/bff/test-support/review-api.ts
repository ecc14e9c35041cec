import { expect, vi } from 'vitest';
import {
  type CreateReviewRequest,
  type ReviewInputRow,
  type ReviewRowResult,
  ReviewRowsResponse,
  ReviewSummary,
} from '../../contract/index.ts';
import type { Harness } from './review-database.ts';

/*
 * A review through the BFF's own API, as the SPA makes one: created, its rows put in one chunk, then read back.
 * The HTTP tests of reviews share these instead of each writing its own (issue 28 step 5).
 */

/** A client token no other review of the test has. */
export const clientToken = () => `t${Math.random().toString(36).slice(2, 14)}`;

/** Rows of a file with one address column: each address its own row, the header on line 1. */
export const fileRows = (addresses: readonly string[]): ReviewInputRow[] =>
  addresses.map((address, i) => ({ address, cells: [address], sourceRow: i + 2 }));

/**
 * A review of `rows` (addresses, or rows as a file gives them), every row in; its id. The harness's worker is
 * not started: the test starts it when it wants the review to run.
 */
export async function uploadReview(
  h: Harness,
  rows: readonly (string | ReviewInputRow)[],
  over: Partial<CreateReviewRequest> = {},
): Promise<string> {
  const made = await h.call('/api/reviews', {
    method: 'POST',
    body: {
      clientToken: clientToken(),
      name: 'Collateral',
      kind: 'paste',
      columns: [],
      totalRows: rows.length,
      ...over,
    },
  });
  expect(made.status, await made.clone().text()).toBe(201);
  const { id } = ReviewSummary.parse(await made.json());
  const put = await h.call(`/api/reviews/${id}/chunks`, {
    method: 'PUT',
    body: {
      index: 0,
      firstRow: 0,
      rows: rows.map((r) => (typeof r === 'string' ? { address: r } : r)),
      last: true,
    },
  });
  expect(put.status, await put.clone().text()).toBe(200);
  return id;
}

/** A review of `rows`, run by the harness's worker to the end of its first run. */
export async function finishedReview(
  h: Harness,
  rows: readonly (string | ReviewInputRow)[],
  over: Partial<CreateReviewRequest> = {},
): Promise<ReviewSummary> {
  const id = await uploadReview(h, rows, over);
  h.reviews?.worker.start();
  return finished(h, id);
}

export const summaryOf = async (h: Harness, id: string) =>
  ReviewSummary.parse(await (await h.call(`/api/reviews/${id}`)).json());

/** The review once its `run` (1-based) has finished. */
export const finished = (h: Harness, id: string, run = 1) =>
  vi.waitFor(
    async () => {
      const s = await summaryOf(h, id);
      expect(s.runs[run - 1]?.finishedAt).toBeTruthy();
      return s;
    },
    { timeout: 10_000, interval: 20 },
  );

/** The review's rows as of its latest run, or of `run`. */
export const rowsOf = async (h: Harness, id: string, run?: number): Promise<ReviewRowResult[]> =>
  ReviewRowsResponse.parse(await (await h.call(`/api/reviews/${id}/rows${run ? `?run=${run}` : ''}`)).json())
    .rows;

/** Check again: a new run of the review. */
export async function checkAgain(h: Harness, id: string): Promise<void> {
  const res = await h.call(`/api/reviews/${id}/runs`, { method: 'POST' });
  expect(res.status, await res.clone().text()).toBe(201);
}
