import { useQuery } from '@tanstack/react-query';
import { useEffect } from 'react';
import { useNavigate, useSearchParams } from 'react-router';
import type { ReviewSummary, SessionResponse } from '../../../contract/index.ts';
import { sessionQueryOptions } from '../../features/auth/api/get-session.ts';
import { MonitoredReviews } from '../../features/monitoring/monitored-reviews.tsx';
import { useReviewList } from '../../features/review/api/server-reviews.ts';
import { ReviewList } from '../../features/review/run/review-list.tsx';
import { SampleReview } from '../../features/review/start/sample-review.tsx';
import { StartReview } from '../../features/review/start/start-review.tsx';

/** /review: start a review (paste, file, area, or the sample with a demo key) and the account's reviews. */
export function ReviewRoute() {
  const session = useQuery(sessionQueryOptions()).data;
  // The protected layout renders this only with a session; for the moment the session ends, render nothing.
  return session ? <ReviewHome session={session} /> : null;
}

function ReviewHome({ session }: { session: SessionResponse }) {
  const navigate = useNavigate();
  const list = useReviewList(session.accountId);
  const started = (review: ReviewSummary) => navigate(`/review/${review.id}`);
  // "Review this area" on the search screen's ZIP listing links here with ?area=<ZIP>.
  const area = /^\d{5}$/.exec(useSearchParams()[0].get('area') ?? '')?.[0] ?? null;

  useEffect(() => {
    document.title = 'Reviews · PropLens';
  }, []);

  return (
    <div className="space-y-8">
      <div>
        <h1 className="text-2xl font-bold tracking-tight">Review many addresses</h1>
        <p className="mt-1 max-w-3xl text-sm text-slate-600 dark:text-slate-300">
          Look up a whole portfolio, deal or area at once and see how far each record can be relied on.
          PropLens works through it on the server as fast as your rate limit allows: close this page and come
          back, or open it on another computer signed in to the same account.
        </p>
      </div>
      {session.demo ? <SampleReview onStarted={started} /> : null}
      <MonitoredReviews />
      {/* Wide screens: the account's reviews beside the form, where a returning reviewer looks first. */}
      <div className="grid items-start gap-8 lg:grid-cols-[minmax(0,3fr)_minmax(0,2fr)]">
        <StartReview initialArea={area} onStarted={started} />
        {list.data ? (
          <ReviewList reviews={list.data} accountId={session.accountId} />
        ) : list.isError ? (
          <p role="alert" className="text-sm">
            The account’s reviews could not be loaded. Reload the page to try again.
          </p>
        ) : null}
      </div>
    </div>
  );
}
