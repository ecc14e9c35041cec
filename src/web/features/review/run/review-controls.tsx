import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useId, useState } from 'react';
import type { ReviewStatus, ReviewSummary } from '../../../../contract/index.ts';
import { Button } from '../../../components/ui/button.tsx';
import { ApiRequestError } from '../../../lib/api-client.ts';
import { controlReview, reviewKeys } from '../api/server-reviews.ts';

type Action = 'pause' | 'resume' | 'cancel';

const n = (x: number) => x.toLocaleString('en-US');

/** Statuses a reviewer can pause or cancel from; a paused review resumes or cancels. */
const STOPPABLE: ReadonlySet<ReviewStatus> = new Set(['running', 'waiting', 'paused']);

/**
 * Pause, Resume and Cancel of a review that is being worked (any key of the account may). Cancel asks first,
 * saying what it keeps. The new state arrives by the review's live view; until it does, the buttons stay
 * disabled so a second click does not ask for the same thing again.
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
  const busy = act.isPending || (act.isSuccess && act.variables?.from === summary.status);
  const run = summary.runs.at(-1);
  const left = (run?.counts.total ?? summary.totalRows) - (run?.counts.done ?? 0);
  const send = (action: Action) => act.mutate({ action, from: summary.status });
  const error =
    act.error instanceof ApiRequestError
      ? act.error.message
      : act.error
        ? 'That did not reach the server. Try again.'
        : null;

  return (
    <div className="mt-4 space-y-2 print:hidden">
      <div className="flex flex-wrap items-center gap-3">
        {summary.status === 'paused' ? (
          <Button disabled={busy} onClick={() => send('resume')}>
            Resume
          </Button>
        ) : (
          <Button variant="secondary" disabled={busy} onClick={() => send('pause')}>
            Pause
          </Button>
        )}
        <Button
          variant="ghost"
          disabled={busy}
          aria-expanded={confirming}
          aria-controls={confirmId}
          onClick={() => setConfirming(true)}
        >
          Cancel review
        </Button>
      </div>
      {confirming ? (
        <section
          id={confirmId}
          aria-label="Cancel this review?"
          className="space-y-2 rounded-lg border border-amber-300 bg-amber-50 p-3 text-sm dark:border-amber-700 dark:bg-amber-950/40"
        >
          <p>
            Cancel this review? Every answer so far is kept. The {n(left)}{' '}
            {left === 1 ? 'address' : 'addresses'} not looked up yet will not be asked, and the export marks
            them “not asked”. Check again starts a new run over every address.
          </p>
          <div className="flex flex-wrap gap-3">
            <Button disabled={busy} onClick={() => send('cancel')}>
              Yes, cancel the review
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
