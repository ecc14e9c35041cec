import type BetterSqlite3 from 'better-sqlite3';
import { type Kysely, PostgresAdapter, type Selectable, sql } from 'kysely';
import type { AuditEntry } from '../../../contract/index.ts';
import type { AuditEntriesTable, DatabaseSchema } from '../../db/schema.ts';

type Db = Kysely<DatabaseSchema>;

/** One entry as the BFF records it (the database gives it its id). */
export type NewAuditEntry = Omit<AuditEntriesTable, 'id'>;

export interface ActivityFilters {
  /** Epoch ms, inclusive. */
  from?: number;
  /** Epoch ms, exclusive. */
  to?: number;
  outcome?: string;
  /** In the address asked or the property id. */
  text?: string;
  keyFingerprint?: string;
  propertyId?: string;
}

/**
 * The audit trail: append-only (nothing here updates or deletes an entry but retention), read newest first by
 * keyset on the id, always within one account.
 */
export class SqlAuditStore {
  readonly #appendNow: ((entries: readonly NewAuditEntry[]) => void) | undefined;
  readonly #idle: () => boolean;
  readonly #postgres: boolean;

  constructor(
    private readonly db: Db,
    sqlite?: BetterSqlite3.Database,
  ) {
    this.#postgres = db.getExecutor().adapter instanceof PostgresAdapter;
    this.#appendNow = sqlite ? preparedAppend(sqlite) : undefined;
    this.#idle = () => sqlite?.inTransaction === false;
  }

  async append(entries: readonly NewAuditEntry[]): Promise<void> {
    // The embedded file, with no transaction of Kysely's open on its one connection: one prepared statement in
    // a transaction of its own, written before anything else runs (every lookup's answer waits for this; Kysely
    // would compile and prepare the insert again each time). Otherwise, through Kysely, which waits its turn.
    if (this.#appendNow && this.#idle()) return this.#appendNow(entries);
    for (let i = 0; i < entries.length; i += 500)
      await this.db
        .insertInto('audit_entries')
        .values(entries.slice(i, i + 500))
        .execute();
  }

  /** Entries older than `before` (an id), newest first. */
  async page(
    accountId: string,
    filters: ActivityFilters,
    before: number | null,
    limit: number,
  ): Promise<AuditEntry[]> {
    const text = filters.text ?? '';
    // SQLite, a text of three characters or more: the trigram index (migration 0006) gives the ids of the entries
    // holding it, newest first, and each is read by its id until the page is full, so a text on every entry reads
    // a page and a text on none reads nothing. A phrase of trigrams is a case-insensitive substring.
    const indexed = !this.#postgres && [...text].length >= 3;
    let q = indexed
      ? this.db
          .selectFrom(sql<{ rowid: number }>`audit_search`.as('s'))
          .innerJoin('audit_entries', 'audit_entries.id', 's.rowid')
          .selectAll('audit_entries')
          .where(sql<boolean>`audit_search match ${`"${text.replaceAll('"', '""')}"`}`)
      : this.db.selectFrom('audit_entries').selectAll('audit_entries');
    q = q.where('account_id', '=', accountId);
    if (before !== null) q = q.where(indexed ? sql.ref('s.rowid') : sql.ref('id'), '<', before);
    if (filters.from !== undefined) q = q.where('at', '>=', filters.from);
    if (filters.to !== undefined) q = q.where('at', '<', filters.to);
    if (filters.outcome) q = q.where('outcome', '=', filters.outcome);
    if (filters.keyFingerprint) q = q.where('key_fingerprint', '=', filters.keyFingerprint);
    if (filters.propertyId) q = q.where('property_id', '=', filters.propertyId);
    if (text && !indexed) {
      // PostgreSQL (its pg_trgm indexes serve this very expression), and SQLite for one or two characters, which
      // trigrams cannot hold: read newest first until the page is full. `_`, `%` and `\` as typed: escaped, with
      // the escape named, for SQLite's LIKE has no default one.
      const like = `%${text.toLowerCase().replace(/[\\%_]/g, (m) => `\\${m}`)}%`;
      const matches = (column: 'query' | 'property_id') =>
        sql<boolean>`lower(${sql.ref(column)}) like ${like} escape '\\'`;
      q = q.where(({ or }) => or([matches('query'), matches('property_id')]));
    }
    const rows = await q
      .orderBy(indexed ? sql.ref('s.rowid') : sql.ref('id'), 'desc')
      .limit(limit)
      .execute();
    return rows.map(toEntry);
  }

  /** Every entry matching the filters, newest first, a batch at a time: never the whole trail in memory. */
  async *all(accountId: string, filters: ActivityFilters, batch = 1_000): AsyncGenerator<AuditEntry> {
    let before: number | null = null;
    for (;;) {
      const entries = await this.page(accountId, filters, before, batch);
      yield* entries;
      if (entries.length < batch) return;
      before = Number(entries.at(-1)?.id);
    }
  }

  /** Retention: removes entries older than `cutoff` (epoch ms), a batch at a time; returns how many went. */
  async deleteOlderThan(cutoff: number, batch = 10_000): Promise<number> {
    let removed = 0;
    for (;;) {
      const ids = await this.db
        .selectFrom('audit_entries')
        .select('id')
        .where('at', '<', cutoff)
        .limit(batch)
        .execute();
      if (ids.length === 0) return removed;
      await this.db
        .deleteFrom('audit_entries')
        .where(
          'id',
          'in',
          ids.map((r) => r.id),
        )
        .execute();
      removed += ids.length;
    }
  }
}

function toEntry(r: Selectable<AuditEntriesTable>): AuditEntry {
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
] as const satisfies readonly (keyof NewAuditEntry)[];

/** Entries appended in one SQLite transaction through a statement prepared once. */
function preparedAppend(sqlite: BetterSqlite3.Database) {
  const insert = sqlite.prepare(
    `insert into audit_entries (${COLUMNS.join(', ')}) values (${COLUMNS.map((c) => `@${c}`).join(', ')})`,
  );
  return sqlite.transaction((entries: readonly NewAuditEntry[]) => {
    for (const e of entries) insert.run(e);
  });
}
