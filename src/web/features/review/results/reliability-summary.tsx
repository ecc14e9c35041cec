import { Fragment, type ReactNode } from 'react';
import { formatCount } from '../../../lib/format.ts';
import { CONFIDENCE_WORD, CONFIDENCES } from '../../property/index.ts';
import { DECISION_TEXT, DECISIONS, type decisionCounts } from './decisions.ts';
import {
  EXCLUDED_TEXT,
  formatShare,
  LOOK_TEXT,
  OUTCOME_TEXT,
  OUTCOMES,
  type ReliabilitySummary as Summary,
} from './stats.ts';

function Figure({ label, value, detail }: { label: string; value: ReactNode; detail?: ReactNode }) {
  return (
    <div className="rounded-lg border border-slate-200 bg-white px-4 py-3 dark:border-slate-800 dark:bg-slate-900 print:border-slate-400">
      <dt className="text-xs font-medium uppercase tracking-wide text-slate-600 dark:text-slate-400">
        {label}
      </dt>
      <dd className="mt-1">
        <span className="text-2xl font-bold tabular-nums">{value}</span>
        {detail ? <span className="block text-sm text-slate-600 dark:text-slate-300">{detail}</span> : null}
      </dd>
    </div>
  );
}

const count = formatCount;

/** The review at a glance: what share of the records can be relied on, and what became of every row. */
export function ReliabilitySummary({
  summary,
  retrieved,
  decisions,
}: {
  summary: Summary;
  retrieved: ReactNode;
  /** The reviewer's decisions on the rows (decisions.ts decisionCounts). */
  decisions?: ReturnType<typeof decisionCounts>;
}) {
  const { records } = summary;
  return (
    <section aria-labelledby="reliability-summary-heading" className="space-y-3 print:break-inside-avoid">
      <div>
        <h2 id="reliability-summary-heading" className="text-lg font-semibold">
          Reliability summary
        </h2>
        {/* The printed page states it once, in its own header. */}
        <p className="text-sm text-slate-600 dark:text-slate-300 print:hidden">{retrieved}</p>
      </div>
      <dl className="grid grid-cols-2 gap-3 sm:grid-cols-3 lg:grid-cols-6 print:grid-cols-3">
        <Figure
          label="Records"
          value={count(records)}
          detail={`of ${count(summary.rows)} address${summary.rows === 1 ? '' : 'es'}${
            summary.properties < records
              ? ` · ${count(summary.properties)} distinct propert${summary.properties === 1 ? 'y' : 'ies'}`
              : ''
          }${summary.excluded > 0 ? ` · ${count(summary.excluded)} excluded` : ''}`}
        />
        {CONFIDENCES.map((c) => (
          <Figure
            key={c}
            label={`${CONFIDENCE_WORD[c]} confidence`}
            value={formatShare(summary.confidence[c], records)}
            detail={`${count(summary.confidence[c])} record${summary.confidence[c] === 1 ? '' : 's'}`}
          />
        ))}
        <Figure
          label="Stale"
          value={formatShare(summary.tiers.stale, records)}
          detail={`${count(summary.tiers.stale)} verified over a year ago`}
        />
        <Figure
          label="Median verification age"
          value={summary.medianAgeDays === null ? '–' : `${count(Math.round(summary.medianAgeDays))} days`}
          detail={
            summary.medianAgeDays === null
              ? 'no records yet'
              : 'half the records were verified more recently than this, half longer ago'
          }
        />
      </dl>
      <Outcomes summary={summary} />
      {decisions ? <Decisions counts={decisions} /> : null}
    </section>
  );
}

/** The reviewer's decisions: how many rows each, and how many (not excluded) have none yet. */
function Decisions({ counts }: { counts: ReturnType<typeof decisionCounts> }) {
  return (
    <div>
      <h3 className="text-sm font-semibold" id="decisions-heading">
        Decisions
      </h3>
      <ul aria-labelledby="decisions-heading" className="mt-1 flex flex-wrap gap-x-5 gap-y-1 text-sm">
        {DECISIONS.map((d) => (
          <li key={d}>
            <span className="text-slate-600 dark:text-slate-300">{DECISION_TEXT[d]}:</span>{' '}
            <strong className="tabular-nums">{count(counts[d])}</strong>
          </li>
        ))}
        <li>
          <span className="text-slate-600 dark:text-slate-300">No decision yet:</span>{' '}
          <strong className="tabular-nums">{count(counts.undecided)}</strong>
        </li>
      </ul>
    </div>
  );
}

/** What became of every row: by outcome, the matches that need a look beside Matched, and the rows excluded. */
function Outcomes({ summary }: { summary: Summary }) {
  const { looks } = summary;
  return (
    <div>
      <h3 className="text-sm font-semibold" id="outcomes-heading">
        Outcomes
      </h3>
      <ul aria-labelledby="outcomes-heading" className="mt-1 flex flex-wrap gap-x-5 gap-y-1 text-sm">
        {/* "Not asked" only in a cancelled review: everywhere else it would be a zero to read past. */}
        {OUTCOMES.filter((o) => o !== 'not_asked' || summary.outcomes[o] > 0).map((o) => (
          <Fragment key={o}>
            <li>
              <span className="text-slate-600 dark:text-slate-300">{OUTCOME_TEXT[o]}:</span>{' '}
              <strong className="tabular-nums">{count(summary.outcomes[o])}</strong>
            </li>
            {/* Beside Matched, not in it: such a record may be another property. */}
            {o === 'matched' && looks > 0 ? (
              <li>
                <span className="text-slate-600 dark:text-slate-300">{LOOK_TEXT}:</span>{' '}
                <strong className="tabular-nums">{count(looks)}</strong>
              </li>
            ) : null}
          </Fragment>
        ))}
        {summary.excluded > 0 ? (
          <li>
            <span className="text-slate-600 dark:text-slate-300">{EXCLUDED_TEXT}:</span>{' '}
            <strong className="tabular-nums">{count(summary.excluded)}</strong>{' '}
            <span className="text-slate-600 dark:text-slate-300">(in no figure above)</span>
          </li>
        ) : null}
      </ul>
      {looks > 0 ? (
        <p className="mt-2 text-sm font-medium text-amber-900 dark:text-amber-200" data-testid="needs-a-look">
          {count(looks)} {looks === 1 ? 'match needs' : 'matches need'} a look: the record names another
          directional or street type than the one typed, or was found from a street line alone. Filter the
          table by “Needs a look”.
        </p>
      ) : null}
    </div>
  );
}
