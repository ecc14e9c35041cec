import { type ReactNode, useId, useState } from 'react';
import type { Property } from '../../../../contract/index.ts';
import { Button } from '../../../components/ui/button.tsx';
import { ageInDays, longDate, relativeAge, tierFor } from '../lib/verification.ts';
import { confidenceText, recordFacts, sourceKindText } from '../lib/vocabulary.ts';
import { ConfidenceBadge, SourceBadge, VerificationBadge } from './badges.tsx';
import './record-print.css';
import { DATE_TIME, formatDateTime } from '../../../lib/format.ts';

/** One plain sentence that sums up whether the record can be relied on. */
export function reliabilitySentence(property: Property, days: number): string {
  const base = `${confidenceText(property.confidence)}: from ${property.source}, verified ${relativeAge(days)}.`;
  const tier = tierFor(days);
  if (tier === 'stale')
    return `${base} The verification is over a year old: confirm key facts before relying on them.`;
  if (property.confidence === 'low') return `${base} Confirm it independently before relying on it.`;
  return base;
}

/** What the ID is good for, said next to the button that copies it. */
export const ID_HINT = 'The service’s identifier for this record: paste it into the search to open it again.';

function CopyId({ id }: { id: string }) {
  const [state, setState] = useState<'idle' | 'copied' | 'failed'>('idle');
  const hintId = useId();
  const copy = async () => {
    try {
      await navigator.clipboard.writeText(id);
      setState('copied');
    } catch {
      setState('failed');
    }
  };
  return (
    <>
      <code className="rounded bg-slate-100 px-2 py-1 font-mono text-sm dark:bg-slate-800">{id}</code>
      <Button variant="ghost" className="min-h-8 px-2 py-1" onClick={copy} aria-describedby={hintId}>
        Copy ID
      </Button>
      <span role="status" className="text-xs text-slate-600 dark:text-slate-300">
        {state === 'copied' ? 'Copied' : state === 'failed' ? 'Copy failed: select the ID and copy it' : ''}
      </span>
      <span id={hintId} className="basis-full text-xs text-slate-600 dark:text-slate-400" data-print-hide>
        {ID_HINT}
      </span>
    </>
  );
}

function Fact({ label, children }: { label: string; children: ReactNode }) {
  return (
    <div className="border-t border-slate-200 py-3 dark:border-slate-800">
      <dt className="text-xs font-medium uppercase tracking-wide text-slate-600 dark:text-slate-400">
        {label}
      </dt>
      <dd className="mt-1 text-sm font-medium">{children}</dd>
    </div>
  );
}

/**
 * "Retrieved at 3:04 PM EST on November 21, 2026 by Harbor & Vale Realty": a printed record is evidence. In
 * the reader's time zone, named, read at each call (a formatter made once would keep the zone it was made in).
 */
export function retrievedLine(at: Date, by: string): string {
  const time = formatDateTime(at, { hour: 'numeric', minute: '2-digit', timeZoneName: 'short' });
  const date = formatDateTime(at, DATE_TIME.day);
  return `Retrieved at ${time} on ${date} by ${by}.`;
}

export function PropertyRecord({
  property,
  now = new Date(),
  retrieved,
  demo = false,
}: {
  property: Property;
  now?: Date;
  /** When this page received the record, and for which account. */
  retrieved?: { at: Date; by: string };
  /** From the embedded reference service's generated data: said on screen and on paper. */
  demo?: boolean;
}) {
  const days = ageInDays(property.lastVerified, now);
  const facts = recordFacts(property);

  return (
    <article
      aria-labelledby="record-address"
      data-print-record
      className="rounded-xl border border-slate-200 bg-white p-5 shadow-sm sm:p-6 dark:border-slate-800 dark:bg-slate-900"
    >
      <h2 id="record-address" className="text-xl font-bold tracking-tight sm:text-2xl">
        {property.address}
      </h2>
      <div className="mt-2 flex flex-wrap items-center gap-x-2 gap-y-1 text-sm text-slate-600 dark:text-slate-300">
        <span>Property ID</span>
        <CopyId id={property.id} />
      </div>
      <ul aria-label="Reliability" className="mt-4 flex flex-wrap gap-2">
        <li>
          <ConfidenceBadge level={property.confidence} />
        </li>
        <li>
          <SourceBadge source={property.source} kind={property.sourceKind} />
        </li>
        <li>
          <VerificationBadge lastVerified={property.lastVerified} days={days} />
        </li>
      </ul>
      <p
        className="mt-4 rounded-lg bg-slate-100 px-4 py-3 text-base dark:bg-slate-800"
        data-testid="reliability-summary"
      >
        {reliabilitySentence(property, days)}
      </p>
      {facts.length > 0 ? (
        <>
          <h3 className="mt-6 text-sm font-semibold text-slate-700 dark:text-slate-300">Property details</h3>
          <dl className="mt-2 grid grid-cols-1 gap-x-8 sm:grid-cols-2 lg:grid-cols-3">
            {facts.map(([label, value]) => (
              <Fact key={label} label={label}>
                {value}
              </Fact>
            ))}
          </dl>
        </>
      ) : null}
      <p className="mt-4 text-xs text-slate-500 dark:text-slate-400">
        Source: {property.source}
        {sourceKindText(property.sourceKind)
          ? ` (${sourceKindText(property.sourceKind)?.toLowerCase()})`
          : ''}
        ; last verified {longDate(property.lastVerified)}.
        {retrieved ? <> {retrievedLine(retrieved.at, retrieved.by)}</> : null}
        {demo ? (
          <>
            {' '}
            <span className="whitespace-nowrap rounded bg-slate-100 px-1.5 py-0.5 font-semibold text-slate-700 dark:bg-slate-800 dark:text-slate-200">
              Demo data
            </span>{' '}
            generated by the built-in reference service, not a real property.
          </>
        ) : null}
      </p>
    </article>
  );
}

/** Same footprint as the record, so the page does not jump when it arrives. */
export function RecordSkeleton() {
  return (
    <div
      role="status"
      aria-label="Looking up the property"
      className="animate-pulse rounded-xl border border-slate-200 bg-white p-5 sm:p-6 dark:border-slate-800 dark:bg-slate-900"
    >
      <div className="h-7 w-3/4 rounded bg-slate-200 dark:bg-slate-700" />
      <div className="mt-3 h-5 w-1/3 rounded bg-slate-200 dark:bg-slate-700" />
      <div className="mt-4 flex flex-wrap gap-2">
        <div className="h-8 w-40 rounded-full bg-slate-200 dark:bg-slate-700" />
        <div className="h-8 w-56 rounded-full bg-slate-200 dark:bg-slate-700" />
        <div className="h-8 w-44 rounded-full bg-slate-200 dark:bg-slate-700" />
      </div>
      <div className="mt-4 h-12 rounded-lg bg-slate-200 dark:bg-slate-700" />
      <div className="mt-6 grid grid-cols-1 gap-4 sm:grid-cols-2 lg:grid-cols-3">
        {Array.from({ length: 9 }, (_, i) => (
          // biome-ignore lint/suspicious/noArrayIndexKey: static placeholders
          <div key={i} className="h-12 rounded bg-slate-200 dark:bg-slate-700" />
        ))}
      </div>
    </div>
  );
}
