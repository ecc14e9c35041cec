import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useEffect, useMemo, useState } from 'react';
import { Link, useParams } from 'react-router';
import type { ReviewSummary, SessionResponse } from '../../../contract/index.ts';
import { sessionQueryOptions } from '../../features/auth/api/get-session.ts';
import { KeyLabel } from '../../features/auth/index.ts';
import { ReviewMonitor } from '../../features/monitoring/review-monitor.tsx';
import { checkAgain, reviewKeys } from '../../features/review/api/server-reviews.ts';
import { useLiveReview } from '../../features/review/api/use-live-review.ts';
import { ReviewResults } from '../../features/review/results/review-results.tsx';
import { countLooks } from '../../features/review/results/stats.ts';
import { ReviewChanges } from '../../features/review/run/review-changes.tsx';
import { originLabel } from '../../features/review/run/review-list.tsx';
import { ReviewProgress } from '../../features/review/run/review-progress.tsx';
import { ApiRequestError } from '../../lib/api-client.ts';
import { formatCount, formatDateTime } from '../../lib/format.ts';

const backLink = (
  <Link
    to="/review"
    className="text-sm text-teal-800 underline-offset-2 hover:underline dark:text-teal-300 print:hidden"
  >
    <span aria-hidden="true">← </span>All reviews
  </Link>
);

/** /review/:id: a review kept on the server, followed live (progress, Check again) with its results. */
export function ReviewRunRoute() {
  const session = useQuery(sessionQueryOptions()).data;
  // The protected layout renders this only with a session; for the moment the session ends, render nothing.
  return session ? <ReviewRun session={session} /> : null;
}

function ReviewRun({ session }: { session: SessionResponse }) {
  const { id = '' } = useParams();
  const { snapshot, applyRows } = useLiveReview(id);
  const queryClient = useQueryClient();
  const again = useMutation({
    mutationFn: () => checkAgain(id),
    onSettled: () => queryClient.invalidateQueries({ queryKey: reviewKeys.list(session.accountId) }),
  });
  const { summary } = snapshot;
  const looks = useMemo(() => countLooks(snapshot.rows), [snapshot.rows]);

  useEffect(() => {
    document.title = summary ? `${summary.name} · Reviews · PropLens` : 'Review · PropLens';
  }, [summary]);
  // While rows load, a line says how many are in; once all are, it says so and keeps its room, so the results
  // below do not move up as the last page comes (44 px at 1280 px). A review whose rows came at once has none.
  const loading = summary !== null && snapshot.loaded < Math.min(summary.receivedRows, summary.totalRows);
  const [lineFor, setLineFor] = useState<string | null>(null);
  useEffect(() => {
    if (loading) setLineFor(id);
  }, [loading, id]);

  if (snapshot.state === 'not_found' || snapshot.state === 'error') {
    return <ReviewNotFound error={snapshot.state === 'error'} />;
  }
  if (!summary) {
    return (
      <div className="space-y-4">
        {backLink}
        <p role="status" className="text-sm text-slate-600 dark:text-slate-400">
          Opening the review…
        </p>
      </div>
    );
  }
  const runs = summary.runs;
  const previous = runs.length >= 2 && summary.status === 'done' ? runs[runs.length - 2] : undefined;
  const checkError =
    again.error instanceof ApiRequestError
      ? again.error.message
      : again.error
        ? 'It could not be checked again. Try again.'
        : null;
  return (
    <div className="space-y-6">
      <ReviewRunHeader summary={summary} />
      <ReviewProgress
        summary={summary}
        live={snapshot.live}
        onCheckAgain={() => again.mutate()}
        checking={again.isPending}
        checkError={checkError}
        looks={looks}
      />
      <ReviewMonitor review={summary} />
      {previous ? <ReviewChanges previous={previous} rows={snapshot.rows} /> : null}
      {loading || lineFor === id ? (
        <p role="status" className="text-sm text-slate-600 dark:text-slate-400">
          {loading
            ? `Loading results: ${formatCount(snapshot.loaded)} of ${formatCount(summary.totalRows)} rows…`
            : `Every row is in: ${formatCount(snapshot.loaded)} rows.`}
        </p>
      ) : null}
      {/* An upload not finished has no results yet: its progress says what arrived and what to do. */}
      {summary.status === 'uploading' ? null : (
        <ReviewResults
          review={summary}
          accountName={session.account.name}
          rows={snapshot.rows}
          onRowFixed={(row) => applyRows([row])}
        />
      )}
    </div>
  );
}

/** The way back to all reviews, and why this one cannot be shown. */
function ReviewNotFound({ error }: { error: boolean }) {
  return (
    <div className="space-y-4">
      {backLink}
      <h1 className="text-2xl font-bold tracking-tight">Review not found</h1>
      <p className="text-sm">
        {error
          ? 'The review could not be loaded. Reload the page to try again.'
          : 'There is no such review in this account. It may have been deleted, or it belongs to another account.'}
      </p>
    </div>
  );
}

/** The way back to all reviews, the review's name, and where it came from, how big it is, when and by whom. */
function ReviewRunHeader({ summary }: { summary: ReviewSummary }) {
  const created = new Date(summary.createdAt);
  return (
    <div className="space-y-1">
      {backLink}
      <h1 className="break-words text-2xl font-bold tracking-tight">{summary.name}</h1>
      <p className="text-sm text-slate-600 dark:text-slate-400">
        {originLabel(summary)} · {formatCount(summary.totalRows)}{' '}
        {summary.totalRows === 1 ? 'address' : 'addresses'} · started{' '}
        <time dateTime={created.toISOString()}>{formatDateTime(created)}</time> by{' '}
        <KeyLabel fingerprint={summary.createdBy} />
      </p>
      {summary.carriedBy && (summary.status === 'running' || summary.status === 'waiting') ? (
        <p className="text-sm font-medium" data-testid="carried-by">
          Running on the key of <KeyLabel fingerprint={summary.carriedBy} />: the key that started it is not
          signed in, so a colleague’s carries its lookups (each is on record with both).
        </p>
      ) : null}
    </div>
  );
}
