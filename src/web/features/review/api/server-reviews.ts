import { queryOptions, useQuery } from '@tanstack/react-query';
import {
  type CreateReviewRequest,
  type ExcludeRowRequest,
  type FixRowRequest,
  FixRowResponse,
  type ReviewChunkRequest,
  ReviewListResponse,
  ReviewRowResult,
  ReviewRowsResponse,
  type ReviewStatus,
  ReviewSummary,
} from '../../../../contract/index.ts';
import { apiFetch } from '../../../lib/api-client.ts';

/** Reviews are kept on the server, shared by every session of the account; keys from general to specific. */
export const reviewKeys = {
  all: ['review'] as const,
  list: (accountId: string) => ['review', 'list', accountId] as const,
};

/** States a review moves on from by itself (paused, done and cancelled wait for a reviewer). */
export const STILL_RUNNING: ReadonlySet<ReviewStatus> = new Set(['uploading', 'running', 'waiting']);

const base = '/api/reviews';
const at = (id: string) => `${base}/${encodeURIComponent(id)}`;

export const listReviews = (signal?: AbortSignal) =>
  apiFetch(base, ReviewListResponse, signal ? { signal } : {}).then((r) => r.reviews);

export const reviewListQueryOptions = (accountId: string) =>
  queryOptions({
    queryKey: reviewKeys.list(accountId),
    queryFn: ({ signal }) => listReviews(signal),
    // Reviews move on the server: the list follows while any of them runs.
    refetchInterval: (query) => (query.state.data?.some((r) => STILL_RUNNING.has(r.status)) ? 3_000 : false),
  });

/** The account's reviews, newest first, with their progress. */
export function useReviewList(accountId: string) {
  return useQuery(reviewListQueryOptions(accountId));
}

export const createReview = (request: CreateReviewRequest) =>
  apiFetch(base, ReviewSummary, { method: 'POST', body: request });

export const putChunk = (id: string, chunk: ReviewChunkRequest, signal?: AbortSignal) =>
  apiFetch(`${at(id)}/chunks`, ReviewSummary, { method: 'PUT', body: chunk, ...(signal ? { signal } : {}) });

/** The file a review was made from, byte for byte: its evidence packet carries it (`source/<name>`). */
export const putSource = (id: string, file: File, signal?: AbortSignal) =>
  apiFetch(`${at(id)}/source?name=${encodeURIComponent(file.name)}`, null, {
    method: 'PUT',
    bytes: file,
    ...(signal ? { signal } : {}),
  });

export const getReview = (id: string, signal?: AbortSignal) =>
  apiFetch(at(id), ReviewSummary, signal ? { signal } : {});

/**
 * A page of a run's rows as the review page's table shows them: without each CSV row's own cells (the export
 * has them), each property's attributes cut to its state (`brief`: getRow reads a row whole).
 */
export const getRowsPage = (
  id: string,
  run: number,
  cursor: string | null,
  signal?: AbortSignal,
  limit = 5_000,
) =>
  apiFetch(
    `${at(id)}/rows?run=${run}&limit=${limit}&cells=0&attributes=0${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`,
    ReviewRowsResponse,
    signal ? { signal } : {},
  );

/**
 * One row of the review's latest run, whole (its property's every attribute), as the table holds it: the same
 * answer (`seq`). A row answered again since (a colleague's Check again, a fix) is not mixed into the one shown
 * (hostile review H16b-F4): the read fails, and the row reopened once the page has its new answer reads that.
 */
export const getRow = async (id: string, index: number, seq: number, signal?: AbortSignal) => {
  const page = await apiFetch(
    `${at(id)}/rows?limit=1&cells=0${index > 0 ? `&cursor=${index - 1}` : ''}`,
    ReviewRowsResponse,
    signal ? { signal } : {},
  );
  const row = page.rows[0];
  if (row?.index !== index || row.seq !== seq)
    throw new Error('This row has changed since the table was read.');
  return row;
};

export const checkAgain = (id: string) => apiFetch(`${at(id)}/runs`, ReviewSummary, { method: 'POST' });

/** Looks an address up for one row now; the row takes the answer only when it finds one property. */
export const fixRow = (id: string, index: number, request: FixRowRequest) =>
  apiFetch(`${at(id)}/rows/${index}/fix`, FixRowResponse, { method: 'POST', body: request });

/** Excludes one row from the review (`reason` may be empty), or includes it again (null); the row as it now is. */
export const setRowExcluded = (id: string, index: number, reason: string | null) =>
  apiFetch(
    `${at(id)}/rows/${index}/exclusion`,
    ReviewRowResult,
    reason === null ? { method: 'DELETE' } : { method: 'PUT', body: { reason } satisfies ExcludeRowRequest },
  );

/** Pause, Resume or Cancel of a running review (any key of the account); the review as it now is. */
export const controlReview = (id: string, action: 'pause' | 'resume' | 'cancel') =>
  apiFetch(`${at(id)}/${action}`, ReviewSummary, { method: 'POST' });

export const deleteReview = (id: string) => apiFetch(at(id), null, { method: 'DELETE' });

/** The review page's live rows, as its pages read them: without each row's cells, attributes cut to the state. */
export const reviewEventsPath = (id: string) => `${at(id)}/events?cells=0&attributes=0`;
