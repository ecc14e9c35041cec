import { useQuery } from '@tanstack/react-query';
import { useEffect } from 'react';
import { Link, useParams } from 'react-router';
import type { SessionResponse } from '../../../contract/index.ts';
import { sessionQueryOptions } from '../../features/auth/api/get-session.ts';
import { useReviewRun } from '../../features/review/api/reviews.ts';
import { sourceLabel } from '../../features/review/components/review-list.tsx';
import { ReviewProgress } from '../../features/review/components/review-progress.tsx';
import { ReviewResults } from '../../features/review/components/review-results.tsx';
import { useReviewSessionRedirect } from './review-session.tsx';

const backLink = (
  <Link to="/review" className="text-sm text-teal-800 underline-offset-2 hover:underline dark:text-teal-300">
    <span aria-hidden="true">← </span>All reviews
  </Link>
);

/** /review/:id: runs the review (progress, pause, resume, cancel, retry) and shows its results. */
export function ReviewRunRoute() {
  const session = useQuery(sessionQueryOptions()).data;
  // The protected layout renders this only with a session; for the moment the session ends, render nothing.
  return session ? <ReviewRun session={session} /> : null;
}

function ReviewRun({ session }: { session: SessionResponse }) {
  const { id = '' } = useParams();
  useReviewSessionRedirect();
  const { runner, snapshot, error } = useReviewRun(session.accountId, id);
  const name = snapshot?.review.name;

  useEffect(() => {
    document.title = name ? `${name} · Reviews · PropLens` : 'Review · PropLens';
  }, [name]);

  if (runner === undefined) {
    return (
      <div className="space-y-4">
        {backLink}
        <p role="status" className="text-sm text-slate-600 dark:text-slate-400">
          Opening the review…
        </p>
      </div>
    );
  }
  if (runner === null || !snapshot) {
    return (
      <div className="space-y-4">
        {backLink}
        <h1 className="text-2xl font-bold tracking-tight">Review not found</h1>
        <p className="text-sm">
          {error
            ? 'This browser would not open its saved reviews (storage may be turned off for this site).'
            : 'There is no such review for this account in this browser. Reviews are kept in the browser they were started in, for the account that started them.'}
        </p>
      </div>
    );
  }
  const { review } = snapshot;
  const created = new Date(review.createdAt);
  return (
    <div className="space-y-6">
      <div className="space-y-1">
        {backLink}
        <h1 className="break-words text-2xl font-bold tracking-tight">{review.name}</h1>
        <p className="text-sm text-slate-600 dark:text-slate-400">
          {sourceLabel(review)} · {review.total.toLocaleString('en-US')}{' '}
          {review.total === 1 ? 'address' : 'addresses'} · started{' '}
          <time dateTime={created.toISOString()}>
            {created.toLocaleString('en-US', { dateStyle: 'medium', timeStyle: 'short' })}
          </time>
        </p>
      </div>
      <ReviewProgress runner={runner} snapshot={snapshot} />
      <ReviewResults review={review} rows={snapshot.rows} />
    </div>
  );
}
