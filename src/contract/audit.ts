import * as z from 'zod/mini';

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
  'sign_in',
  'sign_out',
  'sign_in_refused',
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
});
export type AuditEntry = z.infer<typeof AuditEntry>;

export const ActivityResponse = z.object({
  entries: z.array(AuditEntry),
  /** Pass as `cursor` for older entries; null at the oldest. */
  nextCursor: z.nullable(z.string()),
});
export type ActivityResponse = z.infer<typeof ActivityResponse>;

export const MAX_ACTIVITY_TEXT = 200;
