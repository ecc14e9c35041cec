import * as z from 'zod/mini';
import { ApiErrorCode, Candidate, Property, RateLimit } from './api.ts';
import { MatchExplanation } from './match.ts';

/**
 * The review workspace's BFF API: many addresses looked up at once, paced by the BFF to the upstream's rate
 * limit. The browser sends batches to POST /api/reviews/lookups and reads one JSON line per address as each
 * finishes (application/x-ndjson), in completion order, not input order.
 */

/** Most addresses in one batch; the browser sends the next batch as this one drains. */
export const MAX_LOOKUP_BATCH = 50;

/** What became of one looked-up address. unit_not_found counts as not_found (error.code tells them apart). */
export const LookupOutcome = z.enum(['matched', 'not_found', 'ambiguous', 'failed']);
export type LookupOutcome = z.infer<typeof LookupOutcome>;

export const LookupBatchRequest = z.object({
  addresses: z
    .array(z.string())
    .check(
      z.minLength(1, 'Send at least one address.'),
      z.maxLength(MAX_LOOKUP_BATCH, `Send at most ${MAX_LOOKUP_BATCH} addresses at once.`),
    ),
});
export type LookupBatchRequest = z.infer<typeof LookupBatchRequest>;

export const LookupError = z.object({
  code: ApiErrorCode,
  message: z.string(),
  /** With rate_limited: when to send the row again (ISO date-time). */
  resetAt: z.optional(z.string()),
});
export type LookupError = z.infer<typeof LookupError>;

/** One line of the stream: the answer for addresses[index]. */
export const LookupResult = z.object({
  index: z.int().check(z.nonnegative()),
  outcome: LookupOutcome,
  property: z.optional(Property),
  /**
   * Matched answers: how the record's address relates to the address sent (null: as sent), worked out by the
   * BFF as for a single search, so a browser showing 10,000 rows does not align 10,000 addresses itself.
   */
  match: z.optional(z.nullable(MatchExplanation)),
  /** Ambiguous and not-found answers: the candidates the service offered. */
  candidates: z.optional(z.array(Candidate)),
  /** Everything but matched: why. failed rows with a retryable code may be sent again. */
  error: z.optional(LookupError),
  /** Answered from the BFF's cache: cost no upstream request. */
  cached: z.boolean(),
  /** When the BFF answered (ISO date-time): evidence of when the record was retrieved. */
  retrievedAt: z.string(),
  /** The account's rate limit after this lookup, for the meter and the ETA. */
  rateLimit: z.nullable(RateLimit),
});
export type LookupResult = z.infer<typeof LookupResult>;

/** Codes of a failed lookup that are worth sending again later (the rest need a change to the input). */
export const RETRYABLE_LOOKUP_CODES: readonly ApiErrorCode[] = [
  'rate_limited',
  'upstream_unavailable',
  'upstream_timeout',
  'upstream_invalid',
  'store_unavailable',
  'internal',
];

/**
 * Header the browser sets on work it does for a review (lookups are always review work; an area walk's
 * /api/properties/search pages set it too). Interactive requests, without it, go ahead of review work.
 */
export const LANE_HEADER = 'X-PropLens-Lane';
export type Lane = 'interactive' | 'review';
