import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { Link } from 'react-router';
import type { ReviewSummary } from '../../../../contract/index.ts';
import { Button } from '../../../components/ui/button.tsx';
import { formatCount, formatDateTime } from '../../../lib/format.ts';
import { KeyLabel } from '../../auth/index.ts';
import { preloadReview } from '../api/preload-review.ts';
import { deleteReview, reviewKeys } from '../api/server-reviews.ts';

const n = formatCount;

/** Where a server review's rows came from, in words. */
export function originLabel(review: Pick<ReviewSummary, 'kind' | 'origin'>): string {
  switch (review.kind) {
    case 'csv':
      return `File ${review.origin ?? ''}`.trim();
    case 'area':
      return `Area ${review.origin ?? ''}`.trim();
    case 'sample':
      return 'Sample addresses';
    default:
      return 'Pasted addresses';
  }
}

const STATE_STYLE = {
  running: 'bg-teal-100 text-teal-900 dark:bg-teal-900/70 dark:text-teal-100',
  waiting: 'bg-amber-100 text-amber-900 dark:bg-amber-900/60 dark:text-amber-100',
  paused: 'bg-amber-100 text-amber-900 dark:bg-amber-900/60 dark:text-amber-100',
  done: 'bg-emerald-100 text-emerald-900 dark:bg-emerald-900/60 dark:text-emerald-100',
  cancelled: 'bg-slate-200 text-slate-800 dark:bg-slate-700 dark:text-slate-100',
  uploading: 'bg-slate-200 text-slate-800 dark:bg-slate-700 dark:text-slate-100',
} as const satisfies Record<ReviewSummary['status'], string>;

/** The review's state in words, as the server reports it. */
export function statusLabel(review: ReviewSummary): string {
  const runs = review.runs.length;
  switch (review.status) {
    case 'uploading':
      return `Uploading: ${n(review.receivedRows)} of ${n(review.totalRows)} rows in`;
    case 'waiting':
      return 'Waiting for a sign-in';
    case 'running':
      return runs > 1 ? 'Checking again' : 'Running';
    case 'paused':
      return 'Paused';
    case 'done':
      return runs > 1 ? `Done (checked ${runs} times)` : 'Done';
    case 'cancelled':
      // Cancelled before every row came (its page closed mid-upload): what arrived, of what was announced.
      return review.receivedRows < review.totalRows && runs === 1
        ? `Upload cancelled: ${n(review.receivedRows)} of ${n(review.totalRows)} rows in`
        : 'Cancelled';
  }
}

/** "Signed off", "Signed off and approved": where a reviewer stands with the review, at a glance in the list. */
function SignOffBadge({ review }: { review: ReviewSummary }) {
  if (!review.signOff) return null;
  return (
    <span className="rounded-full border border-teal-700 px-2 py-0.5 font-medium text-teal-900 dark:border-teal-400 dark:text-teal-100">
      {review.signOff.approved ? 'Signed off and approved' : 'Signed off'}
    </span>
  );
}

function ReviewItem({ review, accountId }: { review: ReviewSummary; accountId: string }) {
  const [confirm, setConfirm] = useState(false);
  const queryClient = useQueryClient();
  const remove = useMutation({
    mutationFn: () => deleteReview(review.id),
    onSettled: () => queryClient.invalidateQueries({ queryKey: reviewKeys.list(accountId) }),
  });
  const created = new Date(review.createdAt);
  const counts = review.runs.at(-1)?.counts;
  return (
    <li className="flex flex-col gap-3 px-4 py-3 sm:flex-row sm:items-center">
      <div className="min-w-0 flex-1">
        <Link
          to={`/review/${review.id}`}
          // Its summary and first rows are asked now, while the review's page code loads, not after.
          onClick={() => preloadReview(review.id)}
          className="break-words font-semibold text-teal-800 underline-offset-2 hover:underline dark:text-teal-300"
        >
          {review.name}
        </Link>
        <p className="mt-0.5 flex flex-wrap items-center gap-x-2 gap-y-1 text-xs text-slate-600 dark:text-slate-400">
          <span className={`rounded-full px-2 py-0.5 font-medium ${STATE_STYLE[review.status]}`}>
            {statusLabel(review)}
          </span>
          <SignOffBadge review={review} />
          <span>
            {n(review.totalRows)} {review.totalRows === 1 ? 'address' : 'addresses'}
            {counts && counts.done < counts.total ? ` (${n(counts.done)} done)` : ''}
          </span>
          <span aria-hidden="true">·</span>
          <span>{originLabel(review)}</span>
          <span aria-hidden="true">·</span>
          <time dateTime={created.toISOString()}>{formatDateTime(created)}</time>
          <span aria-hidden="true">·</span>
          <span>
            started by <KeyLabel fingerprint={review.createdBy} />
          </span>
        </p>
        {remove.isError ? (
          <p role="alert" className="mt-1 text-xs font-medium text-red-700 dark:text-red-300">
            It could not be deleted. Try again.
          </p>
        ) : null}
      </div>
      {confirm ? (
        <div className="flex flex-wrap items-center gap-2 text-sm">
          <span>
            Delete it and its results for everyone in the account
            {review.signOff
              ? `, its sign-off${review.signOff.approved ? ' and approval' : ''} with them`
              : ''}
            ?
          </span>
          <Button
            variant="primary"
            className="bg-red-700 hover:bg-red-800 dark:bg-red-400 dark:hover:bg-red-300"
            aria-label={`Delete ${review.name}`}
            disabled={remove.isPending}
            onClick={() => remove.mutate()}
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

/** The account's reviews, kept on the server: name, state with progress, size, date and who started it. */
export function ReviewList({ reviews, accountId }: { reviews: ReviewSummary[]; accountId: string }) {
  return (
    <section aria-labelledby="reviews-heading" className="space-y-2">
      <h2 id="reviews-heading" className="text-lg font-semibold">
        Your reviews
      </h2>
      {reviews.length === 0 ? (
        <p className="text-sm text-slate-600 dark:text-slate-400">
          No reviews yet. They are kept for your account, and everyone signed in to it sees them.
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
