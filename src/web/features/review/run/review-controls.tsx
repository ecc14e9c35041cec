import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useId, useState } from 'react';
import { useNavigate } from 'react-router';
import type { ReviewStatus, ReviewSummary } from '../../../../contract/index.ts';
import { Button } from '../../../components/ui/button.tsx';
import { ApiRequestError } from '../../../lib/api-client.ts';
import { formatCount } from '../../../lib/format.ts';
import { controlReview, deleteReview, reviewKeys } from '../api/server-reviews.ts';

type Action = 'pause' | 'resume' | 'cancel';

const n = formatCount;
const rows = (x: number) => `${n(x)} ${x === 1 ? 'row' : 'rows'}`;

/** Statuses a reviewer can pause or cancel from; a paused review resumes or cancels; an upload only cancels. */
const STOPPABLE: ReadonlySet<ReviewStatus> = new Set(['running', 'waiting', 'paused', 'uploading']);

const failure = (err: unknown) =>
  err instanceof ApiRequestError ? err.message : err ? 'That did not reach the server. Try again.' : null;

/**
 * Pause, Resume and Cancel of a review that is being worked (any key of the account may). Cancel asks first,
 * saying what it keeps. The new state arrives by the review's live view; until it does, the buttons stay
 * disabled so a second click does not ask for the same thing again. An upload not finished (the page sending
 * it was closed) can be cancelled, keeping its rows received, or deleted.
 */
export function ReviewControls({ summary }: { summary: ReviewSummary }) {
  const queryClient = useQueryClient();
  const [confirming, setConfirming] = useState(false);
  const confirmId = useId();
  const act = useMutation({
    mutationFn: ({ action }: { action: Action; from: ReviewStatus }) => controlReview(summary.id, action),
    onSuccess: () => setConfirming(false),
    // The list of reviews shows the new state too.
    onSettled: () => queryClient.invalidateQueries({ queryKey: reviewKeys.all }),
  });
  if (!STOPPABLE.has(summary.status)) return null;
  const uploading = summary.status === 'uploading';
  const busy = act.isPending || (act.isSuccess && act.variables?.from === summary.status);
  const run = summary.runs.at(-1);
  const left = (run?.counts.total ?? summary.totalRows) - (run?.counts.done ?? 0);
  const send = (action: Action) => act.mutate({ action, from: summary.status });
  const error = failure(act.error);

  return (
    <div className="mt-4 space-y-2 print:hidden">
      <div className="flex flex-wrap items-center gap-3">
        {uploading ? null : summary.status === 'paused' ? (
          <Button disabled={busy} onClick={() => send('resume')}>
            Resume
          </Button>
        ) : (
          <Button variant="secondary" disabled={busy} onClick={() => send('pause')}>
            Pause
          </Button>
        )}
        <Button
          variant={uploading ? 'secondary' : 'ghost'}
          disabled={busy}
          aria-expanded={confirming}
          aria-controls={confirmId}
          onClick={() => setConfirming(true)}
        >
          {uploading ? 'Cancel upload' : 'Cancel review'}
        </Button>
        {uploading ? <DeleteReview summary={summary} /> : null}
      </div>
      {confirming ? (
        <section
          id={confirmId}
          aria-label="Cancel this review?"
          className="space-y-2 rounded-lg border border-amber-300 bg-amber-50 p-3 text-sm dark:border-amber-700 dark:bg-amber-950/40"
        >
          {uploading ? (
            <p>
              Cancel this upload? The {rows(summary.receivedRows)} received{' '}
              {summary.receivedRows === 1 ? 'is' : 'are'} kept and not asked (the export marks them “not
              asked”); the {rows(summary.totalRows - summary.receivedRows)} not received will not be taken any
              more. Check again then looks up the rows received.
            </p>
          ) : (
            <p>
              Cancel this review? Every answer so far is kept. Up to {n(left)}{' '}
              {left === 1 ? 'address' : 'addresses'} not looked up yet will not be asked (those being looked
              up right now still finish), and the export marks them “not asked”. Check again starts a new run
              over every address.
            </p>
          )}
          <div className="flex flex-wrap gap-3">
            <Button disabled={busy} onClick={() => send('cancel')}>
              {uploading ? 'Yes, cancel the upload' : 'Yes, cancel the review'}
            </Button>
            <Button variant="secondary" onClick={() => setConfirming(false)}>
              Don’t cancel
            </Button>
          </div>
        </section>
      ) : null}
      {error ? (
        <p role="alert" className="text-sm font-medium text-red-700 dark:text-red-300">
          {error}
        </p>
      ) : null}
    </div>
  );
}

/** Delete, asked first; once gone, back to the list of reviews. */
function DeleteReview({ summary }: { summary: ReviewSummary }) {
  const queryClient = useQueryClient();
  const navigate = useNavigate();
  const [confirming, setConfirming] = useState(false);
  const remove = useMutation({
    mutationFn: () => deleteReview(summary.id),
    onSuccess: async () => {
      await queryClient.invalidateQueries({ queryKey: reviewKeys.all });
      navigate('/review');
    },
  });
  if (!confirming)
    return (
      <Button variant="ghost" onClick={() => setConfirming(true)}>
        Delete
      </Button>
    );
  return (
    <span className="flex flex-wrap items-center gap-2 text-sm">
      <span>Delete it and its rows for everyone in the account?</span>
      <Button
        className="bg-red-700 hover:bg-red-800 dark:bg-red-400 dark:hover:bg-red-300"
        aria-label={`Delete ${summary.name}`}
        disabled={remove.isPending}
        onClick={() => remove.mutate()}
      >
        Delete
      </Button>
      <Button variant="secondary" onClick={() => setConfirming(false)}>
        Keep
      </Button>
      {remove.isError ? (
        <span role="alert" className="font-medium text-red-700 dark:text-red-300">
          {failure(remove.error)}
        </span>
      ) : null}
    </span>
  );
}
