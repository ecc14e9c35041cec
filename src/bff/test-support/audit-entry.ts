import type { NewAuditEntry } from '../stores/audit/audit-store.ts';

/** An audit entry as the BFF writes one (a listed search, nothing of a record), with what a test sets itself. */
export const auditEntry = (over: Partial<NewAuditEntry> = {}): NewAuditEntry => ({
  at: Date.now(),
  account_id: 'acct',
  key_fingerprint: 'fp000000',
  session_ref: null,
  kind: 'search',
  query: null,
  outcome: 'listed',
  property_id: null,
  source: null,
  confidence: null,
  last_verified: null,
  cached: 0,
  cached_at: null,
  upstream_request_id: null,
  review_id: null,
  row_index: null,
  ...over,
});
