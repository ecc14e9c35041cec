import { formatDateTime } from '../../../lib/format.ts';
/**
 * How old a record's verification is, in the person's own calendar. `lastVerified` is a calendar date
 * (no time zone), so it is compared with today's date where the person is, not with a UTC instant: a
 * record verified "2026-11-20" is "yesterday" on the evening of the 21st in Los Angeles too.
 */

export type FreshnessTier = 'fresh' | 'ageing' | 'stale';

/** Documented thresholds (README): fresh up to 90 days, ageing up to 365 days, stale beyond. */
export const FRESH_MAX_DAYS = 90;
export const AGEING_MAX_DAYS = 365;

const DAY_MS = 86_400_000;

/** Whole days from `isoDate` to the local calendar date of `now`; never negative. */
export function ageInDays(isoDate: string, now: Date): number {
  const [y, m, d] = isoDate.split('-').map(Number) as [number, number, number];
  const then = Date.UTC(y, m - 1, d);
  const today = Date.UTC(now.getFullYear(), now.getMonth(), now.getDate());
  return Math.max(0, Math.round((today - then) / DAY_MS));
}

export function tierFor(days: number): FreshnessTier {
  if (days <= FRESH_MAX_DAYS) return 'fresh';
  if (days <= AGEING_MAX_DAYS) return 'ageing';
  return 'stale';
}

/** "today", "yesterday", "12 days ago", "3 months ago", "2 years ago". */
export function relativeAge(days: number): string {
  if (days === 0) return 'today';
  if (days === 1) return 'yesterday';
  if (days < 45) return `${days} days ago`;
  // The words never cross a tier's boundary, so "12 months ago · stale" never sits beside "12 months ago ·
  // aging": a stale record (over 365 days) is "over a year ago" until two years, and an ageing one (over 90
  // days) that rounds to 3 months is "over 3 months ago", fresh ones being up to "3 months ago".
  if (days > AGEING_MAX_DAYS && days < 730) return 'over a year ago';
  if (days < 730) {
    const months = Math.max(1, Math.round(days / 30.44));
    if (days > FRESH_MAX_DAYS && months <= 3) return 'over 3 months ago';
    return `${months} month${months === 1 ? '' : 's'} ago`;
  }
  // From 730 days on this rounds to 2 or more: never "1 years".
  return `${Math.round(days / 365.25)} years ago`;
}

/** "October 20, 2026": the month written out, so no reader mistakes day for month. A calendar day: in UTC. */
export function longDate(isoDate: string): string {
  const [y, m, d] = isoDate.split('-').map(Number) as [number, number, number];
  return (
    formatDateTime(new Date(Date.UTC(y, m - 1, d)), {
      day: 'numeric',
      month: 'long',
      year: 'numeric',
      timeZone: 'UTC',
    }) ?? isoDate
  );
}
