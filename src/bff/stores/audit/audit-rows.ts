import type BetterSqlite3 from 'better-sqlite3';
import type { Selectable } from 'kysely';
import type { AuditEntry } from '../../../contract/index.ts';
import type { AuditEntriesTable } from '../../db/schema.ts';
import { searchTextOf } from './search-text.ts';

/* The audit trail's rows as the store reads and writes them: an entry as the API gives it, and SQLite's inserts. */

/** One entry as the BFF records it (the database gives it its id; its search text is worked out from it). */
export type NewAuditEntry = Omit<AuditEntriesTable, 'id' | 'search_text'>;

/** An entry as it is inserted: with its folded search text. Whoever inserts entries inserts these. */
export const auditRow = (e: NewAuditEntry): Omit<AuditEntriesTable, 'id'> => ({
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

const COLUMNS = [
  'at',
  'account_id',
  'key_fingerprint',
  'session_ref',
  'kind',
  'query',
  'outcome',
  'property_id',
  'source',
  'confidence',
  'last_verified',
  'cached',
  'cached_at',
  'upstream_request_id',
  'review_id',
  'row_index',
  'review_owner',
  'search_text',
] as const satisfies readonly (keyof AuditEntriesTable)[];

/**
 * An entry inserted through a statement prepared once, in the caller's transaction (SQLite): the writer's, and
 * the review queue's beside the answers it keeps.
 */
export function preparedAuditInsert(sqlite: BetterSqlite3.Database): (entry: NewAuditEntry) => void {
  const insert = sqlite.prepare(
    `insert into audit_entries (${COLUMNS.join(', ')}) values (${COLUMNS.map((c) => `@${c}`).join(', ')})`,
  );
  return (e) => insert.run(auditRow(e));
}

/** Entries appended in one SQLite transaction through a statement prepared once. */
export function preparedAppend(sqlite: BetterSqlite3.Database) {
  const insert = preparedAuditInsert(sqlite);
  return sqlite.transaction((entries: readonly NewAuditEntry[]) => {
    for (const e of entries) insert(e);
  });
}
