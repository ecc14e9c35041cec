import { type ReactNode, useRef } from 'react';
import { Link } from 'react-router';
import type { AuditEntry } from '../../../../contract/index.ts';
import { useNarrow } from '../../../hooks/use-media-query.ts';
import { useScrollsSideways } from '../../../hooks/use-scrolls-sideways.ts';
import { DATE_TIME, formatDateTime } from '../../../lib/format.ts';
import { keyLabel } from '../../auth/index.ts';
import { ageInDays, longDate, relativeAge } from '../../property/index.ts';

const KIND: Record<AuditEntry['kind'], string> = {
  search: 'Search',
  resolve: 'Lookup',
  review_row: 'Review row',
  review_fix: 'Review row fixed',
  area_page: 'Area page',
  review_paused: 'Review paused',
  review_resumed: 'Review resumed',
  review_cancelled: 'Review cancelled',
  review_row_excluded: 'Row excluded',
  review_row_included: 'Row included again',
  sign_in: 'Signed in',
  sign_out: 'Signed out',
  sign_in_refused: 'Sign-in refused',
  custody_on: 'Work while signed out: on',
  custody_off: 'Work while signed out: off',
  custody_refused: 'Kept key refused',
  review_row_decided: 'Row decided',
  review_signed_off: 'Review signed off',
  review_approved: 'Review approved',
  review_sign_off_withdrawn: 'Sign-off withdrawn',
  monitor_started: 'Review monitored',
  monitor_stopped: 'Monitoring stopped',
};

/** The entries whose `query` is the review's name, as the reviewer saw it (contract AuditKind). */
const NAMES_THE_REVIEW: ReadonlySet<AuditEntry['kind']> = new Set([
  'review_paused',
  'review_resumed',
  'review_cancelled',
]);

/** The session of an entry made with the key kept for work while signed out (the BFF's custody). */
const UNATTENDED = 'unattended';

const OUTCOME: Record<AuditEntry['outcome'], string> = {
  matched: 'Matched',
  listed: 'Listed',
  not_found: 'Not found',
  ambiguous: 'Ambiguous',
  refused: 'Refused',
  failed: 'Failed',
  rate_limited: 'Rate limited',
  ok: 'OK',
};

export const OUTCOME_CHOICES = Object.entries(OUTCOME) as [AuditEntry['outcome'], string][];

/** A moment as the Activity page shows it: date and time, in UTC. */
export const when = (iso: string) => `${formatDateTime(iso, DATE_TIME.utc) ?? iso} UTC`;

const MUTED = 'text-slate-600 dark:text-slate-400';
const NONE = '—';

/** A moment in UTC, its day and its time each kept whole, so a narrow column breaks it between the two. */
function Moment({ iso }: { iso: string }) {
  const day = formatDateTime(iso, { dateStyle: 'medium', timeZone: 'UTC' });
  const time = formatDateTime(iso, { timeStyle: 'medium', timeZone: 'UTC' });
  return (
    <time dateTime={iso}>
      {day && time ? (
        <>
          <span className="whitespace-nowrap">{day},</span>{' '}
          <span className="whitespace-nowrap">{time} UTC</span>
        </>
      ) : (
        iso
      )}
    </time>
  );
}

/** Who asked: the key's name when it has one, and its fingerprint. */
function Who({ e, names }: { e: AuditEntry; names: ReadonlyMap<string, string> | undefined }) {
  const name = names?.get(e.keyFingerprint);
  return (
    <>
      {name ? <span className="block font-medium">{name} </span> : null}
      <span className="whitespace-nowrap font-mono">key {e.keyFingerprint}</span>
    </>
  );
}

/** Which review an entry was for: its name where the entry holds it, else its id (as the CSV's review_id). */
function ReviewName({ e }: { e: AuditEntry }) {
  return NAMES_THE_REVIEW.has(e.kind) && e.query ? (
    <>review “{e.query}”</>
  ) : (
    <>
      review <span className="font-mono">{e.reviewId}</span>
    </>
  );
}

/** What was asked, and the review it was for (linked), with who started it when another key asked. */
function Asked({ e, names }: { e: AuditEntry; names: ReadonlyMap<string, string> | undefined }) {
  // The name of a paused, resumed or cancelled review is its link's text: not said twice.
  const namedByLink = e.reviewId !== null && NAMES_THE_REVIEW.has(e.kind);
  return (
    <>
      <span className={`block text-xs ${MUTED}`}>
        {KIND[e.kind]}
        {/* A lookup made with the key kept for "Work while I'm signed out", nobody of the account signed in. */}
        {e.session === UNATTENDED ? ' · unattended, on the kept key' : null}
      </span>{' '}
      {/* Spaced, so the entry's text reads (and copies) as words where the blocks end. */}
      {e.query && !namedByLink ? <span className="block">{e.query} </span> : null}
      {e.reviewId !== null ? (
        <span className={`block text-xs ${MUTED}`}>
          <Link
            // A row's entry opens that row on the review's page (?row=, as numbered there).
            to={`/review/${encodeURIComponent(e.reviewId)}${e.row !== null ? `?row=${e.row + 1}` : ''}`}
            className="text-teal-800 underline underline-offset-2 hover:text-teal-950 dark:text-teal-300 dark:hover:text-teal-100"
          >
            {e.row !== null ? `row ${e.row + 1} of ` : null}
            <ReviewName e={e} />
          </Link>
          {e.reviewOwner && e.reviewOwner !== e.keyFingerprint ? (
            <span> started by {keyLabel(e.reviewOwner, names?.get(e.reviewOwner))}</span>
          ) : null}
        </span>
      ) : null}
    </>
  );
}

/** When the record was last verified, as the record and review results say it: its age, and the exact day. */
function Verified({ date, now }: { date: string | null; now: Date }) {
  if (!date) return NONE;
  if (!/^\d{4}-\d{2}-\d{2}$/.test(date)) return date;
  return (
    <>
      <span className="block">{relativeAge(ageInDays(date, now))}</span>{' '}
      <time dateTime={date} className={`block whitespace-nowrap text-xs ${MUTED}`}>
        {longDate(date)}
      </time>
    </>
  );
}

/** Whether PropLens answered from its cache, and when that answer was fetched from the service. */
function Cached({ e }: { e: AuditEntry }) {
  if (!e.cached) return 'No';
  return (
    <>
      Yes{' '}
      {e.cachedAt ? (
        <span className={`block text-xs ${MUTED}`}>
          fetched <Moment iso={e.cachedAt} />
        </span>
      ) : null}
    </>
  );
}

/** The headers (their words are how people and the browser tests find the columns) and their widths. */
const COLUMNS: readonly [header: string, width: string][] = [
  // `w-px`: as narrow as the column's unbroken content, the rest going to what was asked.
  ['Time', 'w-px'],
  ['Who', 'w-px'],
  ['What was asked', 'min-w-52'],
  ['Outcome', 'w-px whitespace-nowrap'],
  ['Record', 'w-px'],
  ['Source', 'w-32'],
  ['Confidence', 'w-px'],
  ['Verified', 'w-px'],
  ['Cached', 'w-px'],
];

interface AuditTableProps {
  entries: readonly AuditEntry[];
  label?: string;
  /** The names the account's keys were given, by fingerprint, shown beside them. */
  names?: ReadonlyMap<string, string>;
  /** Today, for the age of a verification (tests pin it). */
  now?: Date;
}

/**
 * The audit trail, newest first: a table of one row per entry; on a phone, where nine columns cannot fit, a
 * list of one card per entry, what was asked and what came back first.
 */
export function AuditTable({ entries, label = 'Activity', names, now = new Date() }: AuditTableProps) {
  const narrow = useNarrow();
  return narrow ? (
    <EntryCards entries={entries} label={label} names={names} now={now} />
  ) : (
    <EntryTable entries={entries} label={label} names={names} now={now} />
  );
}

type Shown = Required<Omit<AuditTableProps, 'names'>> & { names: ReadonlyMap<string, string> | undefined };

function EntryTable({ entries, label, names, now }: Shown) {
  const frame = useRef<HTMLDivElement>(null);
  const sideways = useScrollsSideways(frame);
  return (
    // Where the table is wider than the page, a keyboard scrolls it sideways (Tab to it, then the arrow keys); where
    // it is not, the frame is no tab stop, and no region named as the table is.
    <div
      ref={frame}
      {...(sideways ? { role: 'region', 'aria-label': `${label}, scrolls sideways`, tabIndex: 0 } : {})}
      className="overflow-x-auto rounded-xl border border-slate-200 dark:border-slate-800"
    >
      <table aria-label={label} className="w-full min-w-[60rem] text-left text-sm">
        <thead className="bg-slate-50 text-xs uppercase tracking-wide text-slate-600 dark:bg-slate-800 dark:text-slate-300">
          <tr>
            {COLUMNS.map(([h, width]) => (
              <th key={h} scope="col" className={`px-2 py-2 font-semibold first:pl-3 last:pr-3 ${width}`}>
                {h}
              </th>
            ))}
          </tr>
        </thead>
        <tbody className="divide-y divide-slate-200 dark:divide-slate-800">
          {entries.map((e) => (
            <tr key={e.id} className="align-top">
              <td className="px-2 py-2 first:pl-3 last:pr-3 tabular-nums">
                <Moment iso={e.at} />
              </td>
              <td className="px-2 py-2 first:pl-3 last:pr-3 text-xs">
                <Who e={e} names={names} />
              </td>
              <td className="break-words px-2 py-2">
                <Asked e={e} names={names} />
              </td>
              <td className="px-2 py-2 first:pl-3 last:pr-3">{OUTCOME[e.outcome]}</td>
              <td className="whitespace-nowrap px-2 py-2">
                {e.propertyId ? <span className="font-mono text-xs">{e.propertyId}</span> : NONE}
              </td>
              <td className="break-words px-2 py-2">{e.source ?? NONE}</td>
              <td className="px-2 py-2 first:pl-3 last:pr-3 capitalize">{e.confidence ?? NONE}</td>
              <td className="px-2 py-2 first:pl-3 last:pr-3 tabular-nums">
                <Verified date={e.lastVerified} now={now} />
              </td>
              <td className="px-2 py-2 first:pl-3 last:pr-3">
                <Cached e={e} />
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

/** One of a card's facts, named as its column is. */
function Fact({ term, children }: { term: string; children: ReactNode }) {
  return (
    <div className="flex gap-3">
      <dt className={`w-24 shrink-0 text-xs leading-5 ${MUTED}`}>{term}</dt>
      <dd className="min-w-0 break-words">{children}</dd>
    </div>
  );
}

/** The entries on a phone: one card each, read top to bottom, nothing to scroll sideways. */
function EntryCards({ entries, label, names, now }: Shown) {
  return (
    <ul
      aria-label={label}
      className="divide-y divide-slate-200 rounded-xl border border-slate-200 text-sm dark:divide-slate-800 dark:border-slate-800"
    >
      {entries.map((e) => (
        <li key={e.id} className="space-y-2 px-4 py-3">
          <p className={`flex flex-wrap justify-between gap-x-3 text-xs ${MUTED}`}>
            <span className="tabular-nums">
              <Moment iso={e.at} />
            </span>
            <span>
              <Who e={e} names={names} />
            </span>
          </p>
          <div className="break-words">
            <Asked e={e} names={names} />
          </div>
          <dl className="space-y-0.5">
            <Fact term="Outcome">
              <span className="font-semibold">{OUTCOME[e.outcome]}</span>
            </Fact>
            {e.propertyId ? (
              <Fact term="Record">
                <span className="font-mono text-xs">{e.propertyId}</span>
              </Fact>
            ) : null}
            {e.source ? <Fact term="Source">{e.source}</Fact> : null}
            {e.confidence ? (
              <Fact term="Confidence">
                <span className="capitalize">{e.confidence}</span>
              </Fact>
            ) : null}
            {e.lastVerified ? (
              <Fact term="Verified">
                <Verified date={e.lastVerified} now={now} />
              </Fact>
            ) : null}
            {e.propertyId || e.cached ? (
              <Fact term="Cached">
                <Cached e={e} />
              </Fact>
            ) : null}
          </dl>
        </li>
      ))}
    </ul>
  );
}
