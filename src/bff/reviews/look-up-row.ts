import * as z from 'zod/mini';
import {
  Candidate,
  type Lane,
  LookupError,
  LookupOutcome,
  MatchExplanation,
  Property,
  RETRYABLE_LOOKUP_CODES,
} from '../../contract/index.ts';
import type { AuditContext } from '../audit/audit.ts';
import type { CancelSignal } from '../cancel.ts';
import { type ApiError, toApiError } from '../errors.ts';
import type { Lookups } from '../lookups.ts';
import { explainMatchOf } from '../match-explanations.ts';
import { checkAddress } from '../params.ts';
import type { Session } from '../stores/sessions/types.ts';

/**
 * A review row's answer as the BFF keeps it (JSON in review_results.result), read back through this schema. Only
 * the BFF writes one, from a lookup of its own: the worker's, or a reviewer's fix.
 */
export const StoredAnswer = z.object({
  outcome: LookupOutcome,
  property: z.optional(Property),
  /** With every property (matchRow explains each record it answers with): the browser only reads it. */
  match: z.optional(z.nullable(MatchExplanation)),
  candidates: z.optional(z.array(Candidate)),
  error: z.optional(LookupError),
  cached: z.optional(z.boolean()),
  retrievedAt: z.optional(z.string()),
});
export type StoredAnswer = z.infer<typeof StoredAnswer>;

/** One review row's answer as a lookup gives it. */
export type RowResult = StoredAnswer & { cached: boolean; retrievedAt: string };

export interface RowLookupOptions {
  /** "Check again": ask the service itself, not the cache (the answer still refreshes the cache). */
  fresh: boolean;
  signal?: CancelSignal;
  now?: () => number;
  /** The row's entry in the audit trail. */
  audit?: AuditContext;
  /** 'review' unless a person waits for the answer (a row fixed in place). */
  lane?: Lane;
}

/**
 * Looks one review row up (in the review lane unless told) and says what became of it: every error is an
 * outcome (a row always ends with exactly one), except the caller going away, which is rethrown.
 */
export async function lookUpRow(
  lookups: Lookups,
  session: Session,
  input: string,
  options: RowLookupOptions,
): Promise<RowResult> {
  try {
    return await matchRow(lookups, session, input, options);
  } catch (err) {
    if (options.signal?.aborted) throw err;
    return answerOfError(toApiError(err), retrievedAt(options));
  }
}

const retrievedAt = (options: RowLookupOptions) => new Date((options.now ?? Date.now)()).toISOString();

/** The row's answer when the address finds one property; anything else is thrown as the lookup threw it. */
export async function matchRow(
  lookups: Lookups,
  session: Session,
  input: string,
  options: RowLookupOptions,
): Promise<RowResult> {
  const address = checkAddress(input);
  const { property, cached } = await lookups.resolve(session, address, {
    lane: options.lane ?? 'review',
    fresh: options.fresh,
    ...(options.signal ? { signal: options.signal } : {}),
    ...(options.audit ? { audit: options.audit } : {}),
  });
  const match = explainMatchOf(address, property);
  return { outcome: 'matched', property, match, cached, retrievedAt: retrievedAt(options) };
}

/** A lookup's error as a row's answer: no match, several, or failed. */
export function answerOfError(e: ApiError, retrievedAt: string): RowResult {
  const error = {
    code: e.code,
    message: e.message,
    ...(e.extra.resetAt ? { resetAt: e.extra.resetAt } : {}),
    ...(e.extra.total !== undefined ? { total: e.extra.total } : {}),
    ...(e.extra.reason ? { reason: e.extra.reason } : {}),
  };
  const base = { cached: false, retrievedAt, error };
  const candidates = e.extra.candidates ? { candidates: e.extra.candidates } : {};
  if (e.code === 'not_found' || e.code === 'unit_not_found')
    return { outcome: 'not_found', ...base, ...candidates };
  if (e.code === 'ambiguous') return { outcome: 'ambiguous', ...base, ...candidates };
  return { outcome: 'failed', ...base };
}

/**
 * The answer of a row with nothing to ask (a file's row whose address cell is empty, with no parcel number): it
 * stays a row of the review and its export, and is never sent to the service.
 */
export function noAddressAnswer(retrievedAt: string): RowResult {
  return {
    outcome: 'failed',
    cached: false,
    retrievedAt,
    error: {
      code: 'no_address',
      message: 'This row has no address, and no parcel number to look up instead.',
    },
  };
}

/** A failed row worth asking again later (the service was down, slow, or out of budget), not a bad input. */
export function isRetryable(result: RowResult): boolean {
  return (
    result.outcome === 'failed' &&
    result.error !== undefined &&
    RETRYABLE_LOOKUP_CODES.includes(result.error.code)
  );
}
