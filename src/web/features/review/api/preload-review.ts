import type { ReviewRowsResponse, ReviewSummary } from '../../../../contract/index.ts';
import { getReview, getRowsPage } from './server-reviews.ts';

/** Rows read first when a review opens (a screenful, drawn at once); the rest follow in larger pages. */
export const FIRST_PAGE = 100;

export interface ReviewOpening {
  summary: ReviewSummary;
  /** The first page of the summary's latest run. */
  firstPage: ReviewRowsResponse;
}

/** A preload is taken only this soon after it started: later, the rows may have moved on without it. */
const FRESH_MS = 10_000;

let preloaded: { id: string; at: number; opening: Promise<ReviewOpening> } | null = null;

/**
 * The review's summary and first rows, asked the moment the page's script runs for a /review/:id address (a
 * reload, a link, a bookmark): beside the session check and the review page's code instead of after both,
 * where the page would otherwise ask (100,000-row reviews: issue 26's "first rows within 2 s").
 */
export function preloadReview(id: string, now = Date.now()): void {
  const opening = getReview(id).then(async (summary) => ({
    summary,
    firstPage: await getRowsPage(id, summary.runs.at(-1)?.number ?? 1, null, undefined, FIRST_PAGE),
  }));
  // Nobody may take it (the session ended, another page was opened): its failure is no one's to report.
  opening.catch(() => {});
  preloaded = { id, at: now, opening };
}

/**
 * What `preloadReview` asked for review `id`, taken once and only while fresh; undefined otherwise (the view
 * then asks itself). A failed preload is the view's to ask again, not to show: it may be from before a sign-in.
 */
export function takePreloadedReview(
  id: string,
  now = Date.now(),
): Promise<ReviewOpening | undefined> | undefined {
  const taken = preloaded;
  preloaded = null;
  if (!taken || taken.id !== id || now - taken.at > FRESH_MS) return undefined;
  return taken.opening.catch(() => undefined);
}
