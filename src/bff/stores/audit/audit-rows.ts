import type { Selectable } from 'kysely';
import type { AuditEntry } from '../../../contract/index.ts';
import type { AuditEntriesTable } from '../../db/schema.ts';
import { searchTextOf } from './search-text.ts';

/* The audit trail's rows as the store reads and writes them: an entry as the API gives it, and as inserted. */

/** One entry as the BFF records it (the database gives it its id; its search text is worked out from it). */
export type NewAuditEntry = Omit<AuditEntriesTable, 'id' | 'search_text' | 'hash' | 'prev_hash'>;

/** An entry as it is inserted: with its folded search text. Whoever inserts entries inserts these. */
export const auditRow = (e: NewAuditEntry): Omit<AuditEntriesTable, 'id' | 'hash' | 'prev_hash'> => ({
  ...e,
  review_owner: e.review_owner ?? null,
  search_text: searchTextOf(e),
});

export function toEntry(r: Selectable<AuditEntriesTable>): AuditEntry {
  return {
    id: String(r.id),
    at: new Date(Number(r.at)).toISOString(),
    kind: r.kind as AuditEntry['kind'],
    keyFingerprint: r.key_fingerprint,
    session: r.session_ref,
    query: r.query,
    outcome: r.outcome as AuditEntry['outcome'],
    propertyId: r.property_id,
    source: r.source,
    confidence: r.confidence,
    lastVerified: r.last_verified,
    cached: r.cached === 1,
    cachedAt: r.cached_at === null ? null : new Date(Number(r.cached_at)).toISOString(),
    upstreamRequestId: r.upstream_request_id,
    reviewId: r.review_id,
    row: r.row_index,
    reviewOwner: r.review_owner ?? null,
  };
}
