import { queryOptions, useQuery, useQueryClient } from '@tanstack/react-query';
import { useEffect, useState, useSyncExternalStore } from 'react';
import type { ReviewRunner, RunSnapshot } from '../lib/runner.ts';
import { getReviewWorkspace } from '../lib/workspace.ts';

/** Reviews live in this browser (IndexedDB), not on the server; React Query caches the reads all the same. */
export const reviewKeys = {
  all: ['review'] as const,
  list: (accountId: string) => ['review', 'list', accountId] as const,
};

export const reviewListQueryOptions = (accountId: string) =>
  queryOptions({
    queryKey: reviewKeys.list(accountId),
    queryFn: () => getReviewWorkspace().list(accountId),
    staleTime: Number.POSITIVE_INFINITY,
  });

/** The account's reviews, newest first, kept current as reviews are made, deleted, or change state. */
export function useReviewList(accountId: string) {
  const queryClient = useQueryClient();
  useEffect(
    () =>
      getReviewWorkspace().subscribe(() => {
        void queryClient.invalidateQueries({ queryKey: reviewKeys.list(accountId) });
      }),
    [queryClient, accountId],
  );
  return useQuery(reviewListQueryOptions(accountId));
}

const noSubscribe = () => () => {};
const noSnapshot = () => null;

/** A live runner's snapshot (null when none is working on the review in this page). */
export function useRunSnapshot(runner: ReviewRunner | null | undefined): RunSnapshot | null {
  return useSyncExternalStore(
    runner ? runner.subscribe : noSubscribe,
    runner ? runner.getSnapshot : noSnapshot,
  );
}

/**
 * Opens a review of the account and its runner: a review that was running (a reload, a closed tab, a
 * session that ended) goes on where it stopped. `runner` is undefined while loading, null when the account
 * has no such review.
 */
export function useReviewRun(accountId: string, id: string) {
  const [opened, setOpened] = useState<{ key: string; runner: ReviewRunner | null; error?: unknown } | null>(
    null,
  );
  const key = `${accountId}/${id}`;
  useEffect(() => {
    let live = true;
    getReviewWorkspace()
      .open(accountId, id)
      .then(
        (runner) => {
          if (!live) return;
          setOpened({ key: `${accountId}/${id}`, runner });
          // Mounted under the protected layout means signed in: a review the session stopped goes on.
          runner?.resumeAfterSignIn();
        },
        (error: unknown) => live && setOpened({ key: `${accountId}/${id}`, runner: null, error }),
      );
    return () => {
      live = false;
    };
  }, [accountId, id]);
  const current = opened?.key === key ? opened : null;
  const snapshot = useRunSnapshot(current?.runner);
  return { runner: current ? current.runner : undefined, snapshot, error: current?.error };
}
