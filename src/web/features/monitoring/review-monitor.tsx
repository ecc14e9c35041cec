import { useQuery, useQueryClient } from '@tanstack/react-query';
import { useEffect, useRef, useState } from 'react';
import type { ReviewSummary } from '../../../contract/index.ts';
import { Button } from '../../components/ui/button.tsx';
import { ApiRequestError } from '../../lib/api-client.ts';
import { formatDateTime } from '../../lib/format.ts';
import { monitorKeys, monitorsQueryOptions, scheduleText, useSetMonitor, useStopMonitor } from './api.ts';
import { MonitorDialog } from './monitor-dialog.tsx';

const message = (err: unknown) =>
  err instanceof ApiRequestError ? err.message : err ? 'That did not work. Try again.' : null;

/** A run started or finished (a scheduled one too): its next and last run, and any alert, have moved. */
function useRefreshOnRuns(review: ReviewSummary) {
  const client = useQueryClient();
  const runs = review.runs.length;
  const finished = review.runs.at(-1)?.finishedAt;
  const seen = useRef(`${runs}:${finished}`);
  useEffect(() => {
    if (seen.current === `${runs}:${finished}`) return;
    seen.current = `${runs}:${finished}`;
    void client.invalidateQueries({ queryKey: monitorKeys.list });
    if (finished) void client.invalidateQueries({ queryKey: monitorKeys.notifications });
  }, [client, runs, finished]);
}

/**
 * On a review's page: *Monitor* (once it has finished a run) opens the schedule; a monitored review says when it
 * runs next and last, and offers *Stop monitoring*.
 */
export function ReviewMonitor({ review }: { review: ReviewSummary }) {
  const list = useQuery(monitorsQueryOptions());
  const [open, setOpen] = useState(false);
  const set = useSetMonitor(review.id);
  const stop = useStopMonitor(review.id);
  const monitor = list.data?.monitors.find((m) => m.reviewId === review.id);
  useRefreshOnRuns(review);
  // While the list loads, a finished review keeps the room of the button and its words (they wrap below 750 px):
  // they would push the rows down once they came.
  if (!list.data)
    return list.isPending && review.status === 'done' ? (
      <div aria-hidden="true" className="invisible print:hidden">
        <MonitorOffer onOpen={() => {}} />
      </div>
    ) : null;
  if (!monitor && review.status !== 'done') return null;
  const dialog = open ? (
    <MonitorDialog
      intervals={list.data.intervals}
      current={monitor}
      rows={review.receivedRows}
      pending={set.isPending}
      error={message(set.error)}
      onSubmit={(request) => set.mutate(request, { onSuccess: () => setOpen(false) })}
      onCancel={() => setOpen(false)}
    />
  ) : null;
  if (!monitor)
    return (
      <div className="space-y-3 print:hidden">
        {open ? null : <MonitorOffer onOpen={() => setOpen(true)} />}
        {dialog}
      </div>
    );
  return (
    <section aria-label="Monitoring" className="space-y-3 text-sm print:hidden">
      <p>
        <span className="font-semibold">Monitored:</span> {scheduleText(monitor)}.{' '}
        {monitor.pausedReason ? (
          <span className="font-medium text-amber-800 dark:text-amber-300">
            {monitor.pausedReason === 'unreadable' ? (
              <>
                Paused: the server can no longer read this schedule (its time zone or its alert rules). Change
                the schedule to resume.
              </>
            ) : (
              <>
                Paused: the next run would pass this month’s cap of {monitor.monthlyCap} lookups (
                {monitor.usedThisMonth} used). Raise the cap to resume.
              </>
            )}
          </span>
        ) : (
          <>Next run {formatDateTime(new Date(monitor.nextRunAt))}.</>
        )}{' '}
        {monitor.lastRunAt ? `Last run ${formatDateTime(new Date(monitor.lastRunAt))}.` : 'Not run yet.'}
      </p>
      <div className="flex gap-2">
        {open ? null : (
          <Button variant="secondary" onClick={() => setOpen(true)}>
            Change schedule
          </Button>
        )}
        <Button variant="secondary" disabled={stop.isPending} onClick={() => stop.mutate()}>
          Stop monitoring
        </Button>
      </div>
      {message(stop.error) ? <p role="alert">{message(stop.error)}</p> : null}
      {dialog}
    </section>
  );
}

/** *Monitor*, and what it does: drawn (unseen) while the monitors load, so nothing moves when they come. */
function MonitorOffer({ onOpen }: { onOpen: () => void }) {
  return (
    <div className="flex flex-wrap items-center gap-3">
      <Button variant="secondary" onClick={onOpen}>
        Monitor
      </Button>
      <p className="text-xs text-slate-600 dark:text-slate-400">
        Checks the review again on a schedule you choose, unattended, and tells you when an answer changes.
      </p>
    </div>
  );
}
