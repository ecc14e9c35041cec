import type BetterSqlite3 from 'better-sqlite3';
import { type Kysely, PostgresAdapter, type Selectable, sql } from 'kysely';
import type { AuditEntry } from '../../../contract/index.ts';
import type { AuditEntriesTable, DatabaseSchema } from '../../db/schema.ts';
import { fold, searchTextOf } from './search-text.ts';

type Db = Kysely<DatabaseSchema>;

/** Entries the follower indexes in one transaction (see bench 'audit' for how long one holds the connection). */
export const FOLLOW_BATCH = 1_000;

/** One entry as the BFF records it (the database gives it its id; its search text is worked out from it). */
export type NewAuditEntry = Omit<AuditEntriesTable, 'id' | 'search_text'>;

/** An entry as it is inserted: with its folded search text. Whoever inserts entries inserts these. */
export const auditRow = (e: NewAuditEntry): Omit<AuditEntriesTable, 'id'> => ({
  ...e,
  review_owner: e.review_owner ?? null,
  search_text: searchTextOf(e),
});

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
        .values(entries.slice(i, i + 500).map(auditRow))
        .execute();
  }

  /**
   * Entries older than `before` (an id), newest first. The text is folded as the entries' search text was
   * (search-text.ts). On SQLite a folded text of three characters or more is read from the trigram index
   * (migrations 0006, 0007) for the entries it holds and without it for the few appended since the follower's last
   * pass, so an entry is found by its text the moment its lookup is answered.
   */
  async page(
    accountId: string,
    filters: ActivityFilters,
    before: number | null,
    limit: number,
  ): Promise<AuditEntry[]> {
    const text = filters.text === undefined ? undefined : fold(filters.text);
    const folded = text === undefined ? filters : { ...filters, text };
    if (this.#postgres || [...(text ?? '')].length < 3)
      return this.#read(accountId, folded, { before, limit, indexed: false });
    // The tail above the mark first (its ids are all newer), then the index below it. A mark read a moment before
    // the follower moves it only sends more entries through the tail's scan.
    const mark = await this.#indexedTo();
    const tail =
      before === null || before > mark + 1
        ? await this.#read(accountId, folded, { before, limit, indexed: false, above: mark })
        : [];
    if (tail.length === limit) return tail;
    const below = before === null ? mark + 1 : Math.min(before, mark + 1);
    const head = await this.#read(accountId, folded, {
      before: below,
      limit: limit - tail.length,
      indexed: true,
    });
    return [...tail, ...head];
  }

  async #read(
    accountId: string,
    filters: ActivityFilters,
    {
      before,
      limit,
      indexed,
      above,
    }: { before: number | null; limit: number; indexed: boolean; above?: number },
  ): Promise<AuditEntry[]> {
    const text = filters.text ?? ''; // folded (page)
    // The trigram index gives the ids of the entries holding the text, newest first, and each is read by its id
    // until the page is full, so a text on every entry reads a page and a text on none reads nothing. A phrase of
    // trigrams is a substring (of the folded text: the index folds nothing itself).
    let q = indexed
      ? this.db
          .selectFrom(sql<{ rowid: number }>`audit_search`.as('s'))
          .innerJoin('audit_entries', 'audit_entries.id', 's.rowid')
          .selectAll('audit_entries')
          .where(sql<boolean>`audit_search match ${`"${text.replaceAll('"', '""')}"`}`)
      : this.db.selectFrom('audit_entries').selectAll('audit_entries');
    const id = indexed ? sql.ref('s.rowid') : sql.ref('id');
    q = q.where('account_id', '=', accountId);
    if (before !== null) q = q.where(id, '<', before);
    if (above !== undefined) q = q.where(id, '>', above);
    if (filters.from !== undefined) q = q.where('at', '>=', filters.from);
    if (filters.to !== undefined) q = q.where('at', '<', filters.to);
    if (filters.outcome) q = q.where('outcome', '=', filters.outcome);
    if (filters.keyFingerprint) q = q.where('key_fingerprint', '=', filters.keyFingerprint);
    if (filters.propertyId) q = q.where('property_id', '=', filters.propertyId);
    if (text && !indexed) {
      // PostgreSQL (its pg_trgm index serves this very expression); on SQLite one or two characters, which
      // trigrams cannot hold, and the entries the index does not hold yet: read newest first until the page is
      // full. `_`, `%` and `\` as typed: escaped, with the escape named, for SQLite's LIKE has no default one.
      // Both sides folded: SQLite's LIKE ignoring ASCII case changes nothing.
      const like = `%${text.replace(/[\\%_]/g, (m) => `\\${m}`)}%`;
      q = q.where(sql<boolean>`search_text like ${like} escape '\\'`);
    }
    const rows = await q.orderBy(id, 'desc').limit(limit).execute();
    return rows.map(toEntry);
  }

  /** SQLite: the last id the trigram index holds (every entry at or below it is indexed, or had no text). */
  async #indexedTo(): Promise<number> {
    return lastIndexed(this.db);
  }

  /**
   * The trigram index's follower (SQLite; PostgreSQL keeps its own indexes): indexes up to `max` entries appended
   * since the last pass and moves the mark past them, in one short transaction, so the answers' commits never
   * pay for the index and a pass holds the connection for a bounded time. Returns how many entries it passed
   * over (fewer than `max`: caught up). A pass interrupted by a stop or a crash is rolled back whole: the next
   * one, in this process or the next, starts from the same mark.
   */
  async follow(max = FOLLOW_BATCH): Promise<number> {
    if (this.#postgres) return 0;
    return this.db.transaction().execute(async (trx) => {
      const from = await lastIndexed(trx);
      const { rows } = await sql<{ upto: number | null; n: number }>`select max(id) as upto, count(*) as n
        from (select id from audit_entries where id > ${from} order by id limit ${max})`.execute(trx);
      const { upto, n } = rows[0] ?? { upto: null, n: 0 };
      if (upto === null || n === 0) return 0;
      await sql`insert into audit_search (rowid, search_text)
        select id, search_text from audit_entries
        where id > ${from} and id <= ${upto} and search_text is not null`.execute(trx);
      await sql`update audit_search_indexed set last_id = ${upto}`.execute(trx);
      return Number(n);
    });
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

async function lastIndexed(db: Db): Promise<number> {
  const { rows } = await sql<{ last_id: number }>`select last_id from audit_search_indexed`.execute(db);
  return Number(rows[0]?.last_id ?? 0);
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
function preparedAppend(sqlite: BetterSqlite3.Database) {
  const insert = preparedAuditInsert(sqlite);
  return sqlite.transaction((entries: readonly NewAuditEntry[]) => {
    for (const e of entries) insert(e);
  });
}
