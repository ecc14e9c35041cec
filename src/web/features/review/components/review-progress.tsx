import { useState } from 'react';
import { Button } from '../../../components/ui/button.tsx';
import { useSecondsUntil } from '../../../lib/use-seconds-until.ts';
import { describeEta, lookupsPerMinute } from '../lib/eta.ts';
import type { ReviewRunner, RunSnapshot } from '../lib/runner.ts';

const n = (x: number) => x.toLocaleString('en-US');

const OUTCOMES = [
  { key: 'matched', label: 'Matched', mark: '✓', tone: 'text-emerald-800 dark:text-emerald-300' },
  { key: 'not_found', label: 'Not found', mark: '∅', tone: 'text-slate-800 dark:text-slate-200' },
  { key: 'ambiguous', label: 'Ambiguous', mark: '?', tone: 'text-amber-800 dark:text-amber-300' },
  { key: 'failed', label: 'Failed', mark: '✕', tone: 'text-red-800 dark:text-red-300' },
] as const;

function isoOrNull(ms: number | null) {
  return ms === null ? null : new Date(ms).toISOString();
}

/** What the review is doing now, in one sentence (announced politely when it changes). */
function StatusLine({ snapshot }: { snapshot: RunSnapshot }) {
  const { status } = snapshot;
  const waitSeconds = useSecondsUntil(isoOrNull(snapshot.waitingUntil));
  const retrySeconds = useSecondsUntil(
    isoOrNull(status.kind === 'paused' && status.reason === 'offline' ? (status.retryAt ?? null) : null),
  );
  const perMinute = lookupsPerMinute(snapshot.rateLimit, snapshot.recentPerMinute);
  let text: string;
  switch (status.kind) {
    case 'done':
      text = `Done: all ${n(snapshot.review.total)} addresses have an outcome.`;
      break;
    case 'cancelled':
      text = `Cancelled. ${n(snapshot.counts.pending)} ${snapshot.counts.pending === 1 ? 'address was' : 'addresses were'} not looked up.`;
      break;
    case 'paused':
      text = {
        user: 'Paused. Resume to go on from where it stopped.',
        offline: `Paused: the connection was lost. It goes on by itself when the connection is back${retrySeconds > 0 ? ` (next try in ${retrySeconds} s)` : ''}.`,
        session: 'Paused: your session ended. Sign in again and the review goes on.',
        error:
          'Paused: PropLens could not reach the property service several times in a row. Resume to try again.',
        storage:
          'Paused: this browser would not save more results (its storage may be full). Free some space, then resume.',
      }[status.reason];
      break;
    case 'running':
      if (snapshot.waitingUntil !== null && waitSeconds > 0 && snapshot.lookupsLeft > 0) {
        text = `Waiting for the rate limit to reset, ${waitSeconds} s`;
      } else if (perMinute !== null && snapshot.lookupsLeft > 0) {
        text = `Looking up addresses: ${describeEta(snapshot.lookupsLeft, perMinute)}.`;
      } else {
        text = 'Looking up addresses…';
      }
      break;
  }
  return (
    <p className="text-sm font-medium" data-testid="review-status">
      {text}
    </p>
  );
}

function announcement({ status, waitingUntil }: RunSnapshot): string {
  if (status.kind === 'running')
    return waitingUntil !== null ? 'Waiting for the rate limit to reset.' : 'Review running.';
  if (status.kind === 'paused') return 'Review paused.';
  return status.kind === 'done' ? 'Review done.' : 'Review cancelled.';
}

/**
 * The review's progress and its controls: a progress bar ("N of M"), counts by outcome, what it is doing
 * (with the ETA from the rate limit), the rate it is going at, and Pause / Resume / Cancel / Retry failed.
 */
export function ReviewProgress({ runner, snapshot }: { runner: ReviewRunner; snapshot: RunSnapshot }) {
  const [confirmCancel, setConfirmCancel] = useState(false);
  const { status, counts, finished } = snapshot;
  const total = snapshot.review.total;
  const share = total > 0 ? finished / total : 1;
  const running = status.kind === 'running';
  const paused = status.kind === 'paused';
  const stillGoing = running || paused;
  const bar =
    status.kind === 'done'
      ? 'bg-emerald-600 dark:bg-emerald-500'
      : paused || status.kind === 'cancelled'
        ? 'bg-slate-500 dark:bg-slate-400'
        : 'bg-teal-700 dark:bg-teal-400';

  return (
    <section
      aria-labelledby="progress-heading"
      className="rounded-xl border border-slate-200 bg-white p-4 shadow-sm sm:p-5 dark:border-slate-800 dark:bg-slate-900"
    >
      <div className="flex flex-wrap items-baseline justify-between gap-2">
        <h2 id="progress-heading" className="text-base font-semibold">
          Progress
        </h2>
        <p className="text-sm tabular-nums text-slate-700 dark:text-slate-300">
          <span className="font-semibold text-slate-900 dark:text-slate-100">{n(finished)}</span> of{' '}
          {n(total)}
        </p>
      </div>
      <div
        role="progressbar"
        aria-label="Review progress"
        aria-valuemin={0}
        aria-valuemax={total}
        aria-valuenow={finished}
        aria-valuetext={`${n(finished)} of ${n(total)}`}
        className="mt-2 h-3 overflow-hidden rounded-full bg-slate-200 dark:bg-slate-700"
      >
        <div
          className={`h-full ${bar} transition-[width] duration-300`}
          style={{ width: `${share * 100}%` }}
        />
      </div>

      <dl className="mt-4 grid grid-cols-2 gap-2 sm:grid-cols-4">
        {OUTCOMES.map((o) => (
          <div key={o.key} className="rounded-lg bg-slate-50 px-3 py-2 dark:bg-slate-800/60">
            <dt className={`text-xs font-medium ${o.tone}`}>
              <span aria-hidden="true" className="mr-1">
                {o.mark}
              </span>
              {o.label}
            </dt>
            <dd className="text-lg font-semibold tabular-nums">{n(counts[o.key])}</dd>
          </div>
        ))}
      </dl>

      {/* Announced when the state changes, not at every tick of the countdown or the ETA. */}
      <p className="sr-only" aria-live="polite">
        {announcement(snapshot)}
      </p>
      <div className="mt-4 space-y-1">
        <StatusLine snapshot={snapshot} />
        {running && snapshot.recentPerMinute > 0 ? (
          <p className="text-xs text-slate-600 dark:text-slate-400">
            Addresses looked up in the last few minutes come back at once, so it may finish sooner.
          </p>
        ) : null}
        {snapshot.review.skippedBlank > 0 ? (
          <p className="text-xs text-slate-600 dark:text-slate-400">
            {n(snapshot.review.skippedBlank)} blank{' '}
            {snapshot.review.skippedBlank === 1 ? 'line was' : 'lines were'} skipped.
          </p>
        ) : null}
      </div>

      <div className="mt-4 flex flex-wrap items-center gap-2">
        {running ? (
          <Button variant="secondary" onClick={() => runner.pause()}>
            Pause
          </Button>
        ) : null}
        {paused ? <Button onClick={() => runner.resume()}>Resume</Button> : null}
        {snapshot.retryable > 0 && !running ? (
          <Button variant="secondary" onClick={() => runner.retryFailed()}>
            Retry failed
          </Button>
        ) : null}
        {stillGoing && !confirmCancel ? (
          <Button variant="ghost" onClick={() => setConfirmCancel(true)}>
            Cancel
          </Button>
        ) : null}
      </div>
      {stillGoing && confirmCancel ? (
        <div className="mt-3 rounded-lg border border-amber-300 bg-amber-50 p-3 text-sm text-amber-950 dark:border-amber-700 dark:bg-amber-950/60 dark:text-amber-100">
          <p>
            Cancel the review? The {n(counts.pending)} addresses not yet looked up stay unchecked; the results
            so far are kept.
          </p>
          <div className="mt-2 flex flex-wrap gap-2">
            <Button
              onClick={() => {
                runner.cancel();
                setConfirmCancel(false);
              }}
            >
              Cancel review
            </Button>
            <Button variant="secondary" onClick={() => setConfirmCancel(false)}>
              Keep going
            </Button>
          </div>
        </div>
      ) : null}
    </section>
  );
}
