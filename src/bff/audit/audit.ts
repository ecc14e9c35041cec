import type { AuditKind, AuditOutcome, Property } from '../../contract/index.ts';
import { ApiError } from '../errors.ts';
import type { NewAuditEntry } from '../stores/audit/audit-store.ts';
import { keyFingerprint, type Session } from '../stores/sessions/types.ts';
import type { AuditWriter } from './writer.ts';

/** What a lookup was, for its entry: the route or the worker says; the lookup itself fills in the answer. */
export interface AuditContext {
  kind: AuditKind;
  reviewId?: string;
  row?: number;
  /** Who started the review (its key's fingerprint): named in the entry beside the key that made the lookup. */
  owner?: string;
  /**
   * Takes the lookup's entry instead of committing it (a review row's): the lookup answers at once, and the
   * holder commits the entry in the transaction that keeps the answer, or alone when it keeps none (HeldEntry).
   */
  hold?: (held: HeldEntry) => void;
}

/**
 * A lookup's entry not committed yet (ADR 010, addendum): written in the transaction that keeps the answer it
 * records (a review row's completion), so a process killed between the two has kept neither; or, when no
 * answer of the lookup is kept (it is asked again later), committed alone, for the lookup was made.
 */
export interface HeldEntry {
  entry: NewAuditEntry;
  /** Commits the entry alone (group commit); rejects with audit_unavailable when it could not be. */
  commit(): Promise<void>;
}

/** The outcome of a lookup that failed, in the trail's words. */
export function outcomeOfError(err: unknown): AuditOutcome {
  const code = err instanceof ApiError ? err.code : 'internal';
  if (code === 'not_found' || code === 'unit_not_found') return 'not_found';
  if (code === 'ambiguous') return 'ambiguous';
  if (code === 'rate_limited') return 'rate_limited';
  if (['bad_request', 'invalid_key', 'unauthenticated', 'plan_not_eligible'].includes(code)) return 'refused';
  return 'failed';
}

/**
 * The audit trail's recorder: one entry per lookup answered for a signed-in account, and per sign-in, sign-out
 * and refused sign-in. Never the key (its fingerprint), never the cookie (the session's own random id). Each
 * call resolves once its entry is committed (or, a review row's, held: AuditContext.hold): await it before
 * answering what it records.
 */
export class Audit {
  constructor(
    private readonly writer: AuditWriter,
    private readonly now: () => number = Date.now,
  ) {}

  /** Refuses (503 audit_unavailable) before a lookup whose entry could not be kept. */
  assertWritable(): void {
    this.writer.assertWritable();
  }

  lookup(
    session: Session,
    context: AuditContext,
    query: string,
    answer: { outcome: AuditOutcome; property?: Property; cached?: boolean; cachedAt?: number | null },
  ): Promise<void> {
    const p = answer.property;
    const entry: NewAuditEntry = {
      at: this.now(),
      account_id: session.accountId,
      key_fingerprint: keyFingerprint(session.keyHash),
      session_ref: session.auditRef ?? null,
      kind: context.kind,
      query: query.slice(0, 1_000),
      outcome: answer.outcome,
      property_id: p?.id ?? null,
      source: p?.source ?? null,
      confidence: p?.confidence ?? null,
      last_verified: p?.lastVerified ?? null,
      cached: answer.cached ? 1 : 0,
      cached_at: answer.cached ? (answer.cachedAt ?? null) : null,
      upstream_request_id: null,
      review_id: context.reviewId ?? null,
      row_index: context.row ?? null,
      review_owner: context.owner ?? null,
    };
    if (!context.hold) return this.writer.record(entry);
    context.hold({ entry, commit: () => this.writer.record(entry) });
    return Promise.resolve();
  }

  /** A sign-in, sign-out or refused sign-in (for a refused key, the account is the key's own). */
  session(
    kind: 'sign_in' | 'sign_out' | 'sign_in_refused',
    who: Pick<Session, 'accountId' | 'keyHash'> & { auditRef?: string },
  ): Promise<void> {
    return this.writer.record({
      at: this.now(),
      account_id: who.accountId,
      key_fingerprint: keyFingerprint(who.keyHash),
      session_ref: who.auditRef ?? null,
      kind,
      query: null,
      outcome: kind === 'sign_in_refused' ? 'refused' : 'ok',
      ...NOT_A_LOOKUP,
      review_id: null,
      row_index: null,
    });
  }
}

/** What an entry that records no lookup (a sign-in, a review action) says of the lookup fields: nothing. */
export const NOT_A_LOOKUP = {
  property_id: null,
  source: null,
  confidence: null,
  last_verified: null,
  cached: 0,
  cached_at: null,
  upstream_request_id: null,
} as const;

/**
 * A reviewer paused, resumed or cancelled a review: who, which review (`query`: its name, as they saw it). Written
 * in the action's own transaction (routes/review-controls.ts), so the action and its entry are kept together.
 */
export function reviewActionEntry(
  session: Session,
  kind: 'review_paused' | 'review_resumed' | 'review_cancelled',
  review: { id: string; name: string },
  at: number,
): NewAuditEntry {
  return reviewEntry(session, kind, review.id, review.name, null, at);
}

/** A reviewer excluded a row of a review, or included it again: the reason (if any) is what the entry asked. */
export function rowExclusionEntry(
  session: Session,
  kind: 'review_row_excluded' | 'review_row_included',
  target: { reviewId: string; index: number },
  reason: string,
  at: number,
): NewAuditEntry {
  return reviewEntry(session, kind, target.reviewId, reason || null, target.index, at);
}

/**
 * A reviewer's action on a review (a control, an exclusion, a decision, a monitor): who, which review, which row
 * (or none), and what they gave (`query`, cut to 1,000 characters).
 */
export function reviewEntry(
  session: Session,
  kind: AuditKind,
  reviewId: string,
  query: string | null,
  row: number | null,
  at: number,
): NewAuditEntry {
  return {
    at,
    account_id: session.accountId,
    key_fingerprint: keyFingerprint(session.keyHash),
    session_ref: session.auditRef ?? null,
    kind,
    query: query === null ? null : query.slice(0, 1_000),
    outcome: 'ok',
    ...NOT_A_LOOKUP,
    review_id: reviewId,
    row_index: row,
  };
}
