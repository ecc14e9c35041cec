import { useCallback, useEffect, useState, useSyncExternalStore } from 'react';
import type { ReviewRowResult } from '../../../../contract/index.ts';
import { readEventStream } from '../../../lib/event-stream.ts';
import { LiveReview, type LiveReviewSnapshot } from '../run/live-review.ts';
import { takePreloadedReview } from './preload-review.ts';
import { getReview, getRowsPage, reviewEventsPath } from './server-reviews.ts';

const LOADING: LiveReviewSnapshot = { state: 'loading', summary: null, rows: [], loaded: 0, live: false };
const noSubscribe = () => () => {};
const loading = () => LOADING;

/**
 * Follows a review kept on the server while the page shows it: its summary and rows, kept live; `applyRows`
 * shows rows this page changed itself at once (the server's event about them follows).
 */
export function useLiveReview(id: string): {
  snapshot: LiveReviewSnapshot;
  applyRows: (rows: readonly ReviewRowResult[]) => void;
} {
  const [live, setLive] = useState<LiveReview | null>(null);
  useEffect(() => {
    const review = new LiveReview(id, {
      getReview,
      getRowsPage,
      events: (reviewId, lastEventId, signal) =>
        readEventStream(reviewEventsPath(reviewId), { lastEventId, signal }),
      opening: takePreloadedReview(id),
    });
    setLive(review);
    void review.start();
    return () => review.stop();
  }, [id]);
  const snapshot = useSyncExternalStore(
    live ? live.subscribe : noSubscribe,
    live ? live.getSnapshot : loading,
  );
  const applyRows = useCallback((rows: readonly ReviewRowResult[]) => live?.applyRows(rows), [live]);
  return { snapshot, applyRows };
}
