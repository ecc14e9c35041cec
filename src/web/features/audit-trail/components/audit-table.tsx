import { Link } from 'react-router';
import type { AuditEntry } from '../../../../contract/index.ts';
import { DATE_TIME, formatDateTime } from '../../../lib/format.ts';

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

/** What was asked, and the review it was for (linked), with who started it when another key asked. */
function AskedCell({ e, names }: { e: AuditEntry; names: ReadonlyMap<string, string> | undefined }) {
  return (
    <td className="max-w-64 break-words px-3 py-2">
      <span className="text-xs text-slate-600 dark:text-slate-400">
        {KIND[e.kind]}
        {/* A lookup made with the key kept for "Work while I'm signed out", nobody of the account signed in. */}
        {e.session === UNATTENDED ? ' · unattended, on the kept key' : null}
      </span>
      {e.query ? <div>{e.query}</div> : null}
      {e.reviewId !== null ? (
        <div className="text-xs text-slate-600 dark:text-slate-400">
          <Link
            to={`/review/${encodeURIComponent(e.reviewId)}`}
            className="underline underline-offset-2 hover:text-slate-900 dark:hover:text-slate-100"
          >
            {e.row !== null ? `row ${e.row + 1} of a review` : 'the review'}
          </Link>
          {e.reviewOwner && e.reviewOwner !== e.keyFingerprint ? (
            <span>
              {' '}
              started by{' '}
              {names?.get(e.reviewOwner)
                ? `${names.get(e.reviewOwner)} (key ${e.reviewOwner})`
                : `key ${e.reviewOwner}`}
            </span>
          ) : null}
        </div>
      ) : null}
    </td>
  );
}

/** The audit trail as a table: one row per entry, newest first. */
export function AuditTable({
  entries,
  label = 'Activity',
  names,
}: {
  entries: readonly AuditEntry[];
  label?: string;
  /** The names the account's keys were given, by fingerprint, shown beside them. */
  names?: ReadonlyMap<string, string>;
}) {
  return (
    <div className="overflow-x-auto rounded-xl border border-slate-200 dark:border-slate-800">
      <table aria-label={label} className="w-full min-w-[56rem] text-left text-sm">
        <thead className="bg-slate-50 text-xs uppercase tracking-wide text-slate-600 dark:bg-slate-800 dark:text-slate-300">
          <tr>
            {[
              'Time',
              'Who',
              'What was asked',
              'Outcome',
              'Record',
              'Source',
              'Confidence',
              'Verified',
              'Cached',
            ].map((h) => (
              <th key={h} scope="col" className="px-3 py-2 font-semibold">
                {h}
              </th>
            ))}
          </tr>
        </thead>
        <tbody className="divide-y divide-slate-200 dark:divide-slate-800">
          {entries.map((e) => (
            <tr key={e.id} className="align-top">
              <td className="whitespace-nowrap px-3 py-2 tabular-nums">
                <time dateTime={e.at}>{when(e.at)}</time>
              </td>
              <td className="px-3 py-2 text-xs">
                {names?.get(e.keyFingerprint) ? (
                  <span className="block font-medium">{names.get(e.keyFingerprint)}</span>
                ) : null}
                <span className="whitespace-nowrap font-mono">key {e.keyFingerprint}</span>
              </td>
              <AskedCell e={e} names={names} />
              <td className="px-3 py-2">{OUTCOME[e.outcome]}</td>
              <td className="whitespace-nowrap px-3 py-2 font-mono text-xs">{e.propertyId ?? '—'}</td>
              <td className="max-w-48 break-words px-3 py-2">{e.source ?? '—'}</td>
              <td className="px-3 py-2 capitalize">{e.confidence ?? '—'}</td>
              <td className="whitespace-nowrap px-3 py-2 tabular-nums">{e.lastVerified ?? '—'}</td>
              <td className="px-3 py-2">
                {e.cached ? (
                  <span title={e.cachedAt ? `Fetched ${when(e.cachedAt)}` : undefined}>
                    Yes
                    {e.cachedAt ? (
                      <span className="block text-xs text-slate-600 dark:text-slate-400">
                        fetched {when(e.cachedAt)}
                      </span>
                    ) : null}
                  </span>
                ) : (
                  'No'
                )}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
