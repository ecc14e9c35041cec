import { useState } from 'react';
import { Link } from 'react-router';
import { Button } from '../../../components/ui/button.tsx';
import { useRunSnapshot } from '../api/reviews.ts';
import { getReviewWorkspace } from '../lib/workspace.ts';
import type { Review } from '../model.ts';

const n = (x: number) => x.toLocaleString('en-US');

export function sourceLabel(review: Review): string {
  switch (review.source.kind) {
    case 'paste':
      return 'Pasted addresses';
    case 'file':
      return `File ${review.source.fileName}`;
    case 'area':
      return `Area ${review.source.query}`;
    case 'sample':
      return 'Sample addresses';
  }
}

const STATE_STYLE = {
  running: 'bg-teal-100 text-teal-900 dark:bg-teal-900/70 dark:text-teal-100',
  paused: 'bg-amber-100 text-amber-900 dark:bg-amber-900/60 dark:text-amber-100',
  done: 'bg-emerald-100 text-emerald-900 dark:bg-emerald-900/60 dark:text-emerald-100',
  cancelled: 'bg-slate-200 text-slate-800 dark:bg-slate-700 dark:text-slate-100',
} as const;

/** A review's state in words: a stored "running" with no runner in this page is one that will go on when opened. */
function useLiveState(review: Review) {
  const snapshot = useRunSnapshot(getReviewWorkspace().runner(review.id));
  if (!snapshot) {
    return {
      label:
        review.state === 'running'
          ? 'Interrupted: goes on when opened'
          : { paused: 'Paused', done: 'Done', cancelled: 'Cancelled' }[review.state],
      style: STATE_STYLE[review.state === 'running' ? 'paused' : review.state],
      finished: review.finished,
    };
  }
  const { status } = snapshot;
  const label =
    status.kind === 'running'
      ? snapshot.waitingUntil !== null
        ? 'Waiting for the rate limit'
        : 'Running'
      : status.kind === 'paused'
        ? status.reason === 'user'
          ? 'Paused'
          : status.reason === 'offline'
            ? 'Paused: offline'
            : status.reason === 'session'
              ? 'Paused: sign in again'
              : 'Paused'
        : status.kind === 'done'
          ? 'Done'
          : 'Cancelled';
  const style = STATE_STYLE[status.kind === 'running' ? 'running' : status.kind];
  return { label, style, finished: snapshot.finished };
}

function ReviewItem({ review, accountId }: { review: Review; accountId: string }) {
  const [confirm, setConfirm] = useState(false);
  const state = useLiveState(review);
  const created = new Date(review.createdAt);
  return (
    <li className="flex flex-col gap-3 px-4 py-3 sm:flex-row sm:items-center">
      <div className="min-w-0 flex-1">
        <Link
          to={`/review/${review.id}`}
          className="break-words font-semibold text-teal-800 underline-offset-2 hover:underline dark:text-teal-300"
        >
          {review.name}
        </Link>
        <p className="mt-0.5 flex flex-wrap items-center gap-x-2 gap-y-1 text-xs text-slate-600 dark:text-slate-400">
          <span className={`rounded-full px-2 py-0.5 font-medium ${state.style}`}>{state.label}</span>
          <span>
            {n(review.total)} {review.total === 1 ? 'address' : 'addresses'}
            {state.finished !== undefined && state.finished < review.total
              ? ` (${n(state.finished)} done)`
              : ''}
          </span>
          <span aria-hidden="true">·</span>
          <span>{sourceLabel(review)}</span>
          <span aria-hidden="true">·</span>
          <time dateTime={created.toISOString()}>
            {created.toLocaleString('en-US', { dateStyle: 'medium', timeStyle: 'short' })}
          </time>
        </p>
      </div>
      {confirm ? (
        <div className="flex flex-wrap items-center gap-2 text-sm">
          <span>Delete it and its results?</span>
          <Button
            variant="primary"
            className="bg-red-700 hover:bg-red-800 dark:bg-red-400 dark:hover:bg-red-300"
            aria-label={`Delete ${review.name}`}
            onClick={() => void getReviewWorkspace().remove(accountId, review.id)}
          >
            Delete
          </Button>
          <Button variant="secondary" onClick={() => setConfirm(false)}>
            Keep
          </Button>
        </div>
      ) : (
        <Button
          variant="ghost"
          className="self-start sm:self-auto"
          aria-label={`Delete review ${review.name}`}
          onClick={() => setConfirm(true)}
        >
          Delete
        </Button>
      )}
    </li>
  );
}

/** The account's reviews in this browser: name, state, size and date, each with "Delete". */
export function ReviewList({ reviews, accountId }: { reviews: Review[]; accountId: string }) {
  return (
    <section aria-labelledby="reviews-heading" className="space-y-2">
      <h2 id="reviews-heading" className="text-lg font-semibold">
        Your reviews
      </h2>
      {reviews.length === 0 ? (
        <p className="text-sm text-slate-600 dark:text-slate-400">
          No reviews yet. They are kept in this browser, for this account only.
        </p>
      ) : (
        <ul className="divide-y divide-slate-200 rounded-xl border border-slate-200 bg-white dark:divide-slate-800 dark:border-slate-800 dark:bg-slate-900">
          {reviews.map((r) => (
            <ReviewItem key={r.id} review={r} accountId={accountId} />
          ))}
        </ul>
      )}
    </section>
  );
}
