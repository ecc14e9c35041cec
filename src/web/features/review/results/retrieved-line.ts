import type { ReviewRowResult } from '../../../../contract/index.ts';
import { formatDateTime } from '../../../lib/format.ts';

/** "Retrieved at 10:00 – 10:45 AM UTC on November 1, 2026 by Acme Appraisals": when the rows were answered. */
export function retrievedLine(accountName: string, rows: readonly ReviewRowResult[]): string {
  let first = Number.POSITIVE_INFINITY;
  let last = Number.NEGATIVE_INFINITY;
  for (const r of rows) {
    const t = r.retrievedAt ? Date.parse(r.retrievedAt) : Number.NaN;
    if (Number.isNaN(t)) continue;
    first = Math.min(first, t);
    last = Math.max(last, t);
  }
  if (!Number.isFinite(first)) return `Nothing retrieved yet for ${accountName}.`;
  const day = (t: number) => formatDateTime(t, { day: 'numeric', month: 'long', year: 'numeric' });
  const time = (t: number) =>
    formatDateTime(t, { hour: 'numeric', minute: '2-digit', timeZoneName: 'short' }) ?? '';
  // As a record says it ("3:04 PM UTC on November 21, 2026", property-record.tsx), the day said once when it is
  // one moment or one day: "10:00 – 10:45 AM UTC on November 1, 2026".
  const when =
    day(first) !== day(last)
      ? `${day(first)}, ${time(first)} – ${day(last)}, ${time(last)}`
      : time(first) === time(last)
        ? `${time(first)} on ${day(first)}`
        : `${time(first).replace(/\s\S+$/, '')} – ${time(last)} on ${day(first)}`;
  return `Retrieved at ${when} by ${accountName}.`;
}
