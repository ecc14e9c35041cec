import type { ReviewRowResult, ReviewRun } from '../../../../contract/index.ts';
import { formatCount, formatDateTime } from '../../../lib/format.ts';

const n = formatCount;
const RANK = { low: 1, medium: 2, high: 3 } as const;

export interface ChangeCounts {
  changed: number;
  property: number;
  source: number;
  confidenceUp: number;
  confidenceDown: number;
  verified: number;
  outcome: number;
}

/** How many rows changed since the previous run, and how (a row may change in several ways). */
export function countChanges(rows: readonly ReviewRowResult[]): ChangeCounts {
  const c: ChangeCounts = {
    changed: 0,
    property: 0,
    source: 0,
    confidenceUp: 0,
    confidenceDown: 0,
    verified: 0,
    outcome: 0,
  };
  for (const r of rows) {
    const before = r.previous;
    if (!before) continue;
    c.changed++;
    const p = r.property;
    if (before.outcome !== r.outcome) c.outcome++;
    if (p && before.propertyId && before.propertyId !== p.id) c.property++;
    if (p && before.source && before.source !== p.source) c.source++;
    if (p && before.confidence && before.confidence !== p.confidence) {
      if (RANK[p.confidence] > RANK[before.confidence]) c.confidenceUp++;
      else c.confidenceDown++;
    }
    if (p && before.lastVerified && p.lastVerified > before.lastVerified) c.verified++;
  }
  return c;
}

/** What changed in one row, in words. */
export function describeChange(r: ReviewRowResult): string {
  const before = r.previous;
  const p = r.property;
  if (!before) return '';
  const parts: string[] = [];
  if (before.outcome !== r.outcome)
    parts.push(`outcome ${before.outcome.replace('_', ' ')} → ${r.outcome.replace('_', ' ')}`);
  if (p && before.propertyId && before.propertyId !== p.id)
    parts.push(`another property (${before.propertyId} → ${p.id})`);
  if (p && before.source && before.source !== p.source) parts.push(`source ${before.source} → ${p.source}`);
  if (p && before.confidence && before.confidence !== p.confidence)
    parts.push(`confidence ${before.confidence} → ${p.confidence}`);
  if (p && before.lastVerified && before.lastVerified !== p.lastVerified)
    parts.push(`verified ${before.lastVerified} → ${p.lastVerified}`);
  return parts.join('; ');
}

const SHOWN = 50;

/**
 * After "Check again": which records changed since the previous run, counted by kind of change, the first
 * of them listed. Says plainly when none did.
 */
export function ReviewChanges({ previous, rows }: { previous: ReviewRun; rows: readonly ReviewRowResult[] }) {
  const since = formatDateTime(previous.finishedAt ?? previous.startedAt) ?? 'the previous run';
  const counts = countChanges(rows);
  const label = `Changes since ${since}`;
  const changed = rows.filter((r) => r.previous);
  const facts = [
    [counts.property, 'another property'],
    [counts.source, 'another source'],
    [counts.confidenceUp, 'confidence up'],
    [counts.confidenceDown, 'confidence down'],
    [counts.verified, 'verified more recently'],
    [counts.outcome, 'another outcome'],
  ] as const;
  return (
    <section
      aria-label={label}
      className="rounded-xl border border-slate-200 bg-white p-4 shadow-sm sm:p-5 dark:border-slate-800 dark:bg-slate-900"
    >
      <h2 className="text-base font-semibold">{label}</h2>
      {counts.changed === 0 ? (
        <p className="mt-1 text-sm">No record changed since {since}.</p>
      ) : (
        <>
          <p className="mt-1 text-sm">
            <span className="font-semibold">{n(counts.changed)}</span>{' '}
            {counts.changed === 1 ? 'record' : 'records'} changed:{' '}
            {facts
              .filter(([count]) => count > 0)
              .map(([count, text]) => `${n(count)} ${text}`)
              .join(', ')}
            .
          </p>
          {/* A scrolled region a keyboard reaches (Tab, then the arrow keys), named for screen readers. */}
          <ul
            aria-label="Changed records"
            // biome-ignore lint/a11y/noNoninteractiveTabindex: a scrolled region takes focus to be scrolled by keyboard (axe scrollable-region-focusable)
            tabIndex={0}
            className="mt-3 max-h-72 space-y-1 overflow-auto rounded-md text-sm focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-teal-600"
          >
            {changed.slice(0, SHOWN).map((r) => (
              <li key={r.index} className="break-words">
                <span className="font-medium">{r.input}</span>: {describeChange(r)}
              </li>
            ))}
          </ul>
          {changed.length > SHOWN ? (
            <p className="mt-2 text-xs text-slate-600 dark:text-slate-400">
              The first {SHOWN} are listed; the “Changed” filter of the results table shows all{' '}
              {n(changed.length)}.
            </p>
          ) : null}
        </>
      )}
    </section>
  );
}
