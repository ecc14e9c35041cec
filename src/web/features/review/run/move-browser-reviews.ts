import { type QueryClient, useQueryClient } from '@tanstack/react-query';
import { useEffect, useState } from 'react';
import type { ImportedResult, ReviewInputRow, SessionResponse } from '../../../../contract/index.ts';
import { createReview, putChunk, reviewKeys } from '../api/server-reviews.ts';
import type { Review, ReviewRow } from '../model.ts';
import { type ReviewUpload, uploadReview } from '../start/upload.ts';
import { openReviewStore, type ReviewStore } from './review-store.ts';

/** A review kept in this browser, as the server takes it: answered rows come in answered, the rest pending. */
export function fromBrowserReview(review: Review, rows: readonly ReviewRow[]): ReviewUpload {
  const source = review.source;
  return {
    name: review.name,
    kind: source.kind === 'file' ? 'csv' : source.kind,
    ...(source.kind === 'file'
      ? { origin: source.fileName }
      : source.kind === 'area'
        ? { origin: source.query }
        : {}),
    columns: [],
    skippedBlank: review.skippedBlank,
    rows: [...rows]
      .sort((a, b) => a.index - b.index)
      .map((r): ReviewInputRow => {
        if (r.outcome === 'pending') return { address: r.input.slice(0, 2000) };
        const imported: ImportedResult = {
          outcome: r.outcome,
          ...(r.property ? { property: r.property } : {}),
          ...(r.match !== undefined ? { match: r.match } : {}),
          ...(r.candidates ? { candidates: r.candidates } : {}),
          ...(r.error ? { error: r.error } : {}),
          ...(r.cached !== undefined ? { cached: r.cached } : {}),
          ...(r.retrievedAt ? { retrievedAt: r.retrievedAt } : {}),
        };
        return { address: r.input.slice(0, 2000), imported };
      }),
  };
}

export interface MoveDeps {
  store: ReviewStore;
  upload: (upload: ReviewUpload, token: string) => Promise<unknown>;
}

/**
 * Moves the reviews this browser kept for the account (before reviews were kept on the server) to the server,
 * once: each is uploaded with its answers, then removed here. One that fails stays, to be tried next visit.
 * Resolves with how many moved.
 */
export async function moveBrowserReviews(accountIds: readonly string[], deps: MoveDeps): Promise<number> {
  let moved = 0;
  for (const accountId of new Set(accountIds)) {
    for (const review of await deps.store.listReviews(accountId)) {
      try {
        const rows = await deps.store.getRows(review.id);
        if (rows.length > 0)
          await deps.upload(fromBrowserReview(review, rows), `moved-${review.id}`.slice(0, 64));
        await deps.store.deleteReview(accountId, review.id);
        moved++;
      } catch {
        // Kept here; the next visit tries again (the same token makes it the same review on the server).
      }
    }
  }
  return moved;
}

/** Accounts whose move this page (its query client) has begun: once per page and account. */
const started = new WeakMap<QueryClient, Set<string>>();

/** On the account's first visit to the reviews in this page, moves its browser-kept reviews to the server. */
export function useMoveBrowserReviews(session: SessionResponse): string | null {
  const queryClient = useQueryClient();
  const [message, setMessage] = useState<string | null>(null);
  useEffect(() => {
    const begun = started.get(queryClient) ?? new Set<string>();
    started.set(queryClient, begun);
    if (begun.has(session.accountId) || typeof indexedDB === 'undefined') return;
    begun.add(session.accountId);
    const ids = [session.accountId, ...(session.legacyAccountId ? [session.legacyAccountId] : [])];
    void moveBrowserReviews(ids, {
      store: openReviewStore(),
      upload: (upload, token) =>
        uploadReview(upload, { create: createReview, put: putChunk, token: () => token }),
    })
      .then((moved) => {
        if (moved === 0) return;
        setMessage(
          `${moved} ${moved === 1 ? 'review' : 'reviews'} kept in this browser moved to your account: they are listed below for everyone signed in to it.`,
        );
        void queryClient.invalidateQueries({ queryKey: reviewKeys.list(session.accountId) });
      })
      .catch(() => begun.delete(session.accountId));
  }, [session.accountId, session.legacyAccountId, queryClient]);
  return message;
}
