import * as z from 'zod/mini';
import { text, wholeNumberParam } from './common.ts';

/*
 * The audit trail (GET /api/activity): every lookup the BFF answered for the account, who asked, what was
 * asked, what came back and whether it came from PropLens's cache. Append-only; newest first; keyset paging.
 */

export const AuditKind = z.enum([
  'search',
  'resolve',
  'review_row',
  /** A reviewer's lookup to fix a review row in place (kept only when it found one property). */
  'review_fix',
  'area_page',
  /** A reviewer paused, resumed or cancelled a running review (`query`: its name; `reviewId`). */
  'review_paused',
  'review_resumed',
  'review_cancelled',
  /** A reviewer excluded a row from a review, or included it again (`query`: the reason; `reviewId`, `row`). */
  'review_row_excluded',
  'review_row_included',
  'sign_in',
  'sign_out',
  'sign_in_refused',
  /** Key custody turned on or off (`query`: the kept key, "key 1a2b3c4d"), or dropped: the service refused it. */
  'custody_on',
  'custody_off',
  'custody_refused',
  /** A row's decision set or cleared (`query`: "accept: note"), a review signed off (`query`: the reason), approved, or its sign-off withdrawn by a later decision. */
  'review_row_decided',
  'review_signed_off',
  'review_approved',
  'review_sign_off_withdrawn',
  /** A review monitored (or its schedule changed) or no longer (`query`: the schedule, "every day at 09:00 (Europe/Paris)"). */
  'monitor_started',
  'monitor_stopped',
]);
export type AuditKind = z.infer<typeof AuditKind>;

export const AuditOutcome = z.enum([
  'matched',
  'listed',
  'not_found',
  'ambiguous',
  'refused',
  'failed',
  'rate_limited',
  'ok',
]);
export type AuditOutcome = z.infer<typeof AuditOutcome>;

export const AuditEntry = z.object({
  id: z.string(),
  /** When the BFF answered (ISO date-time, UTC, milliseconds). */
  at: z.string(),
  kind: AuditKind,
  /** Who: the key's fingerprint (never the key). */
  keyFingerprint: z.string(),
  /** The session's own random id (never its cookie). */
  session: z.nullable(z.string()),
  /** What was asked, as typed. */
  query: z.nullable(z.string()),
  outcome: AuditOutcome,
  propertyId: z.nullable(z.string()),
  source: z.nullable(z.string()),
  confidence: z.nullable(z.string()),
  lastVerified: z.nullable(z.string()),
  /** Answered from PropLens's cache, and when that answer was fetched from the service. */
  cached: z.boolean(),
  cachedAt: z.nullable(z.string()),
  upstreamRequestId: z.nullable(z.string()),
  reviewId: z.nullable(z.string()),
  row: z.nullable(z.int()),
  /** A review row's: the fingerprint of the key that started the review (the lookup's key may be a colleague's). */
  reviewOwner: z.optional(z.nullable(z.string())),
});
export type AuditEntry = z.infer<typeof AuditEntry>;

export const AuditResponse = z.object({
  entries: z.array(AuditEntry),
  /** Pass as `cursor` for older entries; null at the oldest. */
  nextCursor: z.nullable(z.string()),
  /**
   * A text filter no index narrows (one or two characters, or a text made of common ones) searches for a bounded
   * time per page: when that time was spent before the page was full, every entry newer than this time (ISO) was
   * searched, and `nextCursor` searches on from there, so a page may hold fewer entries than asked, or none,
   * and still not be the last. Null when the page is full or is the last.
   */
  searchedBackTo: z.optional(z.nullable(z.string())),
});
export type AuditResponse = z.infer<typeof AuditResponse>;

export const MAX_AUDIT_TEXT = 200;

const DATE = /^\d{4}-\d{2}-\d{2}$/;
const UTC_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d{1,3})?)?Z$/;
/** Parsed as written: V8 reads 2024-02-30 as 1 March, so the day must come back as it went in. */
const isRealDate = (s: string) => {
  const ms = Date.parse(s);
  return !Number.isNaN(ms) && new Date(ms).toISOString().slice(0, 10) === s.slice(0, 10);
};
const inRange = (s: string) => {
  const ms = Date.parse(s);
  return ms >= Date.UTC(2000, 0, 1) && ms < Date.UTC(2101, 0, 1);
};
/** A day (YYYY-MM-DD, UTC) or a moment in UTC; a time without a zone is refused, not read as the server's. */
const auditDate = (field: string) =>
  z.string().check(
    z.refine(
      (s) => DATE.test(s) || UTC_TIME.test(s),
      `${field}: a date as YYYY-MM-DD, or a UTC time as YYYY-MM-DDTHH:MM:SSZ`,
    ),
    z.refine(isRealDate, {
      error: (issue) => `${field}: ${String(issue.input)} is not a date; send a real day as YYYY-MM-DD`,
    }),
    z.refine(inRange, `${field}: a date from 2000 to 2100, as YYYY-MM-DD`),
  );

/**
 * GET /api/activity and its export. `to` as a day takes that day whole; `cursor` is the previous page's
 * nextCursor; `q` finds text in what was asked or the property id, `_`, `%` and `\` as typed.
 */
export const AuditQuery = z.object({
  from: z.optional(auditDate('from')),
  to: z.optional(auditDate('to')),
  outcome: z.optional(AuditOutcome),
  q: z.optional(text('q').check(z.maxLength(MAX_AUDIT_TEXT, `q: at most ${MAX_AUDIT_TEXT} characters`))),
  /**
   * A key as the Activity table shows it: its fingerprint ("key 1a2b3c4d", any case), the whole label ("Dana Ortiz
   * (key 1a2b3c4d)"), or the name alone ("Dana Ortiz", which the BFF looks up among the account's key names).
   */
  key: z.optional(
    text('key').check(z.trim(), z.minLength(1, 'key: a name or a key fingerprint'), z.maxLength(100)),
  ),
  propertyId: z.optional(text('propertyId').check(z.maxLength(200, 'propertyId: at most 200 characters'))),
  cursor: z.optional(z.string().check(z.regex(/^\d{1,15}$/, 'cursor: the nextCursor of the previous page'))),
  limit: z.optional(
    wholeNumberParam('limit').check(z.positive('limit: 1 or more'), z.maximum(500, 'limit: at most 500')),
  ),
});
export type AuditQuery = z.infer<typeof AuditQuery>;

/** The fingerprint a key filter names outright ("key 1a2b3c4d", "1A2B3C4D", "Dana Ortiz (key 1a2b3c4d)"); else null. */
export function keyFilterFingerprint(text: string): string | null {
  const t = text.trim();
  const found = /^(?:key\s*)?([0-9a-f]{8})$/i.exec(t) ?? /\(key\s*([0-9a-f]{8})\)$/i.exec(t);
  return found ? (found[1] as string).toLowerCase() : null;
}
