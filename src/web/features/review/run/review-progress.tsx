import { useEffect, useRef, useState } from 'react';
import type { ReviewCounts, ReviewRun, ReviewSummary } from '../../../../contract/index.ts';
import { Button } from '../../../components/ui/button.tsx';
import { formatCount } from '../../../lib/format.ts';
import { CustodyWaitingNote } from '../../settings/index.ts';
import { LOOK_TEXT } from '../results/stats.ts';
import { describeEta, PaceTracker } from './eta.ts';
import { ReviewControls } from './review-controls.tsx';

const n = formatCount;

const OUTCOMES = [
  { key: 'matched', label: 'Matched', mark: '✓', tone: 'text-emerald-800 dark:text-emerald-300' },
  { key: 'notFound', label: 'Not found', mark: '∅', tone: 'text-slate-800 dark:text-slate-200' },
  { key: 'ambiguous', label: 'Ambiguous', mark: '?', tone: 'text-amber-800 dark:text-amber-300' },
  { key: 'failed', label: 'Failed', mark: '✕', tone: 'text-red-800 dark:text-red-300' },
] as const;

/** How often the page samples the count between answers (a wait for the rate limit slows the pace too). */
const SAMPLE_MS = 5_000;

/**
 * Rows answered a minute, as this page has seen them go (PaceTracker: over a window that grows with the run):
 * the server paces the review to the account's rate limit, and cached rows go faster, so the observed pace is
 * the honest one.
 */
function useObservedRate(done: number, total: number): number | null {
  const tracker = useRef(new PaceTracker());
  const latest = useRef({ done, total });
  const [rate, setRate] = useState<number | null>(null);
  useEffect(() => {
    const measure = () => {
      const { done, total } = latest.current;
      tracker.current.sample(Date.now(), done);
      setRate(total > done ? tracker.current.perMinute() : null);
    };
    latest.current = { done, total };
    measure();
    const timer = setInterval(measure, SAMPLE_MS);
    return () => clearInterval(timer);
  }, [done, total]);
  return rate;
}

const addresses = (x: number) => `${n(x)} ${x === 1 ? 'address' : 'addresses'}`;

/** What the review is doing now, in one sentence. */
export function statusSentence(summary: ReviewSummary, perMinute: number | null = null): string {
  const run = summary.runs.at(-1);
  // A run covers the rows received: every row, but for an upload cancelled before the end.
  const total = run?.counts.total ?? summary.totalRows;
  switch (summary.status) {
    case 'uploading':
      return (
        `Upload not finished: ${n(summary.receivedRows)} of ${n(summary.totalRows)} rows received. The rest ` +
        'come only from the page that started it; if that page was closed, cancel the upload (the rows received ' +
        'are kept) or delete it.'
      );
    case 'waiting':
      return 'Waiting for a sign-in: it goes on as soon as someone of this account signs in.';
    case 'running': {
      const left = total - (run?.counts.done ?? 0);
      if (perMinute && left > 0)
        return `Looking up addresses on the server: ${describeEta(left, perMinute, 'row')}. You can close this page.`;
      return (run?.number ?? 1) > 1
        ? 'Checking every address again with the service, on the server: you can close this page.'
        : 'Looking up addresses on the server, as fast as the rate limit allows: you can close this page and come back.';
    }
    case 'paused': {
      const left = total - (run?.counts.done ?? 0);
      return `Paused: ${addresses(left)} ${left === 1 ? 'waits' : 'wait'}; none is looked up until someone resumes it.`;
    }
    case 'done':
      return total === 1
        ? 'Done: the address has an outcome.'
        : `Done: all ${n(total)} addresses have an outcome.`;
    case 'cancelled': {
      if (summary.receivedRows < summary.totalRows && summary.runs.length === 1)
        return (
          `Upload cancelled: ${n(summary.receivedRows)} of ${n(summary.totalRows)} rows were received, ` +
          'and none was asked. Check again looks up the rows received.'
        );
      const asked = run?.counts.done ?? 0;
      return `Cancelled: ${n(asked)} of ${addresses(total)} were looked up and keep their answers; the rest were not asked.`;
    }
  }
}

/** "Progress (check 2)", "120 of 300" and the bar, green once the review is done. */
function ProgressBar({
  run,
  finished,
  total,
  done,
}: {
  run: ReviewRun | undefined;
  finished: number;
  total: number;
  done: boolean;
}) {
  const share = total > 0 ? finished / total : 1;
  const bar = done ? 'bg-emerald-600 dark:bg-emerald-500' : 'bg-teal-700 dark:bg-teal-400';
  return (
    <>
      <div className="flex flex-wrap items-baseline justify-between gap-2">
        <h2 id="progress-heading" className="text-base font-semibold">
          {run ? `Progress${run.number > 1 ? ` (check ${run.number})` : ''}` : 'Upload (rows received)'}
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
    </>
  );
}

/** The counts by outcome: matched, not found, ambiguous, failed. */
/** The run's counts by outcome; matches that need a look beside Matched, not in it (they may be another property). */
function OutcomeCounts({ counts, looks }: { counts: ReviewCounts; looks: number }) {
  const tiles = OUTCOMES.flatMap((o) => {
    if (o.key !== 'matched' || looks === 0) return [{ ...o, value: counts[o.key] }];
    return [
      { ...o, value: counts.matched - looks },
      { key: 'looks', label: LOOK_TEXT, mark: '?', tone: 'text-amber-800 dark:text-amber-300', value: looks },
    ];
  });
  return (
    <dl className={`mt-4 grid grid-cols-2 gap-2 ${looks > 0 ? 'sm:grid-cols-5' : 'sm:grid-cols-4'}`}>
      {tiles.map((o) => (
        <div key={o.key} className="rounded-lg bg-slate-50 px-3 py-2 dark:bg-slate-800/60">
          <dt className={`text-xs font-medium ${o.tone}`}>
            <span aria-hidden="true" className="mr-1">
              {o.mark}
            </span>
            {o.label}
          </dt>
          <dd className="text-lg font-semibold tabular-nums">{n(o.value)}</dd>
        </div>
      ))}
    </dl>
  );
}

/** "Check again" once the review is done, with what it costs, and why it could not start. */
function CheckAgain({
  onCheckAgain,
  checking,
  checkError,
}: {
  onCheckAgain: () => void;
  checking: boolean;
  checkError: string | null;
}) {
  return (
    <div className="mt-4 space-y-2 print:hidden">
      <div className="flex flex-wrap items-center gap-3">
        <Button variant="secondary" disabled={checking} onClick={onCheckAgain}>
          Check again
        </Button>
        <p className="text-xs text-slate-600 dark:text-slate-400">
          Asks the service again for every address (not the cache) and shows what changed. Each counts against
          your rate limit.
        </p>
      </div>
      {checkError ? (
        <p role="alert" className="text-sm font-medium text-red-700 dark:text-red-300">
          {checkError}
        </p>
      ) : null}
    </div>
  );
}

/** Said to screen readers when the review's state changes, not at every row. */
const ANNOUNCED: Record<ReviewSummary['status'], string> = {
  uploading: 'Review uploading.',
  running: 'Review running.',
  waiting: 'Review waiting for a sign-in.',
  paused: 'Review paused.',
  done: 'Review done.',
  cancelled: 'Review cancelled.',
};

/**
 * The review's progress as the server reports it: a progress bar ("N of M"), counts by outcome, what it is
 * doing, Pause / Resume / Cancel while it is being worked, and "Check again" once it is done or cancelled.
 */
export function ReviewProgress({
  summary,
  live,
  onCheckAgain,
  checking,
  checkError,
  looks = 0,
}: {
  summary: ReviewSummary;
  /** Matches of the loaded rows that need a look: shown beside Matched, not in it. */
  looks?: number;
  /** Following the server's events; false while reconnecting. */
  live: boolean;
  onCheckAgain: () => void;
  checking: boolean;
  checkError: string | null;
}) {
  const run = summary.runs.at(-1);
  const counts = run?.counts ?? {
    total: summary.totalRows,
    done: 0,
    matched: 0,
    notFound: 0,
    ambiguous: 0,
    failed: 0,
  };
  // Before its run, the bar is the upload's: rows received of the rows announced.
  const total = run ? counts.total : summary.totalRows;
  const finished = run ? counts.done : summary.receivedRows;
  const done = summary.status === 'done';
  // Finished either way: every row answered, or cancelled with the rest not asked.
  const ended = done || summary.status === 'cancelled';
  const perMinute = useObservedRate(counts.done, counts.total);

  return (
    <section
      aria-labelledby="progress-heading"
      className="rounded-xl border border-slate-200 bg-white p-4 shadow-sm sm:p-5 dark:border-slate-800 dark:bg-slate-900"
    >
      <ProgressBar run={run} finished={finished} total={total} done={done} />

      <OutcomeCounts counts={counts} looks={Math.min(looks, counts.matched)} />

      {/* Announced when the state changes, not at every row. */}
      <p className="sr-only" aria-live="polite">
        {ANNOUNCED[summary.status]}
      </p>
      <div className="mt-4 space-y-1">
        <p className="text-sm font-medium" data-testid="review-status">
          {statusSentence(summary, perMinute)}
        </p>
        {summary.status === 'waiting' || summary.status === 'running' ? (
          <CustodyWaitingNote waiting={summary.status === 'waiting'} />
        ) : null}
        {!live && !ended ? (
          <p className="text-xs text-slate-600 dark:text-slate-400">
            Reconnecting to follow it live… the review goes on on the server meanwhile.
          </p>
        ) : null}
        {summary.skippedBlank > 0 ? (
          <p className="text-xs text-slate-600 dark:text-slate-400">
            {n(summary.skippedBlank)} blank {summary.skippedBlank === 1 ? 'line was' : 'lines were'} skipped.
          </p>
        ) : null}
      </div>

      <ReviewControls summary={summary} />
      {ended ? <CheckAgain onCheckAgain={onCheckAgain} checking={checking} checkError={checkError} /> : null}
    </section>
  );
}
