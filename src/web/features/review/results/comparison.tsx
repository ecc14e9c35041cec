import { type RefObject, useEffect, useId, useRef, useState } from 'react';
import type { Property } from '../../../../contract/index.ts';
import { Button } from '../../../components/ui/button.tsx';
import { ageInDays, ConfidenceBadge, SourceBadge, VerificationBadge } from '../../property/index.ts';
import {
  type ComparedAttribute,
  compareAttributes,
  mostReliable,
  type ReliabilityVerdict,
} from './compare.ts';

function DiffersMarker() {
  return (
    <span className="mt-1 inline-flex items-center gap-1 rounded border border-amber-400 bg-amber-50 px-1.5 py-0.5 text-xs font-semibold text-amber-950 dark:border-amber-500 dark:bg-amber-950 dark:text-amber-100">
      <svg aria-hidden="true" viewBox="0 0 20 20" className="size-3.5">
        <path
          d="M4 8h12M4 12h12M13 4L7 16"
          fill="none"
          stroke="currentColor"
          strokeWidth="2"
          strokeLinecap="round"
        />
      </svg>
      Differs
    </span>
  );
}

function BestMarker() {
  return (
    <span className="inline-flex items-center gap-1 rounded-full bg-teal-700 px-2.5 py-0.5 text-xs font-semibold text-white dark:bg-teal-400 dark:text-slate-950">
      <svg aria-hidden="true" viewBox="0 0 20 20" className="size-3.5">
        <path
          d="M10 2.5l2.3 4.7 5.2.8-3.8 3.6.9 5.1L10 14.3l-4.6 2.4.9-5.1L2.5 8l5.2-.8z"
          fill="currentColor"
        />
      </svg>
      Most reliable
    </span>
  );
}

/** The comparison's heading, how many attributes differ, "Show only differences" and "Close comparison". */
function ComparisonHeader({
  headingId,
  headingRef,
  records,
  differing,
  attributes,
  onlyDiffs,
  onOnlyDiffs,
  onClose,
}: {
  headingId: string;
  headingRef: RefObject<HTMLHeadingElement | null>;
  records: number;
  differing: number;
  attributes: number;
  onlyDiffs: boolean;
  onOnlyDiffs: (only: boolean) => void;
  onClose?: () => void;
}) {
  return (
    <div className="flex flex-wrap items-start justify-between gap-3">
      <div>
        <h2 id={headingId} ref={headingRef} tabIndex={-1} className="text-lg font-semibold">
          Comparison
        </h2>
        <p className="text-sm text-slate-600 dark:text-slate-300">
          {records} records; {differing} of {attributes} attributes differ.
        </p>
      </div>
      <div className="flex flex-wrap items-center gap-3 print:hidden">
        <label className="inline-flex items-center gap-2 text-sm">
          <input
            type="checkbox"
            className="size-4 accent-teal-700"
            checked={onlyDiffs}
            onChange={(e) => onOnlyDiffs(e.target.checked)}
          />
          Show only differences
        </label>
        {onClose ? (
          <Button variant="secondary" onClick={onClose}>
            Close comparison
          </Button>
        ) : null}
      </div>
    </div>
  );
}

const VERDICT_TITLE: Partial<Record<ReliabilityVerdict['decidedBy'], string>> = {
  tie: 'No single most reliable record',
  different: 'Different properties: nothing to rank',
};

/** Which record is the most reliable and why, with the rule that decides it. */
function VerdictNote({ verdict }: { verdict: ReliabilityVerdict }) {
  return (
    <div className="rounded-lg border border-teal-700/40 bg-teal-50 px-4 py-3 text-sm dark:border-teal-400/40 dark:bg-teal-950">
      <p className="font-semibold">{VERDICT_TITLE[verdict.decidedBy] ?? 'Most reliable record'}</p>
      <p data-testid="most-reliable-reason">{verdict.reason}</p>
      {verdict.decidedBy === 'different' ? null : (
        <details className="mt-1 print:hidden">
          <summary className="cursor-pointer text-teal-800 dark:text-teal-300">How this is decided</summary>
          <ol className="mt-1 list-decimal space-y-0.5 pl-5">
            <li>Higher confidence wins (high, then medium, then low).</li>
            <li>At equal confidence, the more recently verified record wins.</li>
            <li>
              Still equal: the stronger kind of source wins: assessor, recorded deed or survey record, then
              state revenue record or MLS listing, then building permit.
            </li>
          </ol>
        </details>
      )}
    </div>
  );
}

/** A record's column heading: its number, address, "Most reliable" and reliability badges. */
function RecordHeading({
  property: p,
  number,
  best,
  now,
}: {
  property: Property;
  number: number;
  best: boolean;
  now: Date;
}) {
  return (
    <th
      scope="col"
      className={`min-w-56 border-l border-slate-200 p-2 text-left align-top font-normal dark:border-slate-800 ${
        best ? 'bg-teal-50/60 dark:bg-teal-950/40' : ''
      }`}
    >
      <span className="block text-xs text-slate-600 dark:text-slate-400">Record {number}</span>
      <span className="block font-semibold">{p.address}</span>
      {best ? (
        <span className="mt-1 block">
          <BestMarker />
        </span>
      ) : null}
      <ul aria-label="Reliability" className="mt-2 flex flex-col items-start gap-1.5">
        <li>
          <ConfidenceBadge level={p.confidence} />
        </li>
        <li>
          <SourceBadge source={p.source} kind={p.sourceKind} />
        </li>
        <li>
          <VerificationBadge lastVerified={p.lastVerified} days={ageInDays(p.lastVerified, now)} />
        </li>
      </ul>
    </th>
  );
}

/** One attribute across the records; marked "Differs", values in bold, when they are not all the same. */
function AttributeRow({ row: r }: { row: ComparedAttribute }) {
  return (
    <tr
      data-differs={r.differs || undefined}
      className={`border-t border-slate-200 dark:border-slate-800 ${
        r.differs ? 'bg-amber-50/70 dark:bg-amber-950/30' : ''
      }`}
    >
      <th
        scope="row"
        className={`sticky left-0 p-2 text-left align-top font-medium ${
          r.differs ? 'bg-amber-50 dark:bg-slate-900' : 'bg-white dark:bg-slate-900'
        }`}
      >
        <span className="block">{r.label}</span>
        {r.differs ? <DiffersMarker /> : null}
      </th>
      {r.values.map((v, i) => (
        <td
          // biome-ignore lint/suspicious/noArrayIndexKey: one cell per record column, in column order
          key={i}
          className={`border-l border-slate-200 p-2 align-top dark:border-slate-800 ${
            r.differs ? 'font-semibold' : ''
          }`}
        >
          {v ?? <span className="font-normal italic text-slate-500 dark:text-slate-400">Not stated</span>}
        </td>
      ))}
    </tr>
  );
}

/**
 * Records side by side, one column each, attributes aligned in rows. A row where the records disagree says
 * "Differs" in words, with an icon, and its values in bold: nothing depends on the tint. The most reliable
 * record is named with the reason, by the rule in lib/compare.ts (README: "Which record is the most
 * reliable").
 */
export function Comparison({
  properties,
  now = new Date(),
  onClose,
  focusOnMount = false,
}: {
  properties: Property[];
  now?: Date;
  onClose?: () => void;
  focusOnMount?: boolean;
}) {
  const headingId = useId();
  const headingRef = useRef<HTMLHeadingElement>(null);
  const [onlyDiffs, setOnlyDiffs] = useState(false);
  const verdict = mostReliable(properties);
  const best = new Set(verdict.decidedBy === 'tie' ? [] : verdict.best);
  const rows = compareAttributes(properties);
  const shown = onlyDiffs ? rows.filter((r) => r.differs) : rows;
  const differing = rows.filter((r) => r.differs).length;

  useEffect(() => {
    if (focusOnMount) headingRef.current?.focus();
  }, [focusOnMount]);

  return (
    <section
      aria-labelledby={headingId}
      className="space-y-4 rounded-xl border border-slate-200 bg-white p-4 sm:p-5 dark:border-slate-800 dark:bg-slate-900 print:break-inside-avoid"
    >
      <ComparisonHeader
        headingId={headingId}
        headingRef={headingRef}
        records={properties.length}
        differing={differing}
        attributes={rows.length}
        onlyDiffs={onlyDiffs}
        onOnlyDiffs={setOnlyDiffs}
        onClose={onClose}
      />

      <VerdictNote verdict={verdict} />

      <div className="overflow-x-auto">
        <table className="w-full min-w-[36rem] border-collapse text-sm">
          <caption className="sr-only">
            The records side by side; a row marked “Differs” has values that are not the same in every record.
          </caption>
          <thead>
            <tr>
              <th
                scope="col"
                className="sticky left-0 z-10 w-40 bg-white p-2 text-left align-bottom dark:bg-slate-900"
              >
                Attribute
              </th>
              {properties.map((p, i) => (
                <RecordHeading key={p.id} property={p} number={i + 1} best={best.has(p.id)} now={now} />
              ))}
            </tr>
          </thead>
          <tbody>
            {shown.map((r) => (
              <AttributeRow key={r.label} row={r} />
            ))}
          </tbody>
        </table>
      </div>
    </section>
  );
}
