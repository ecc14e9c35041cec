import type BetterSqlite3 from 'better-sqlite3';
import { CompiledQuery, type Kysely, PostgresAdapter, sql } from 'kysely';
import type { AuditEntry } from '../../../contract/index.ts';
import { whenConnectionFree } from '../../db/database.ts';
import type { DatabaseSchema } from '../../db/schema.ts';
import { type NewAuditEntry, toEntry } from './audit-rows.ts';
import { insertChained, preparedAppend } from './chain.ts';
import { deleteOlderThan } from './retention.ts';
import { FOLLOW_BATCH, followPass } from './search-index.ts';
import { fold } from './search-text.ts';

type Db = Kysely<DatabaseSchema>;

export { auditRow, type NewAuditEntry } from './audit-rows.ts';
export { FOLLOW_BATCH } from './search-index.ts';

export interface AuditFilters {
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

/** A page of the Activity list as the API answers it: bounded in the work it does (SqlAuditStore.search). */
export interface AuditPage {
  entries: AuditEntry[];
  /** Where older entries are read from (an id, exclusive); null when nothing older is left. */
  next: number | null;
  /**
   * Set when the page stopped at its time budget before it was full: every entry of the account newer than this
   * time (epoch ms) was searched, and `next` goes on from there. Null when the page is full or is the last.
   */
  searchedBackTo: number | null;
}

/**
 * How much one page of a text filter may do where no index narrows it: a text of one or two characters (no
 * trigram), or one whose every trigram is on most entries while the text itself may be on none (the index would
 * hand over the whole trail to be checked). Such a page walks the trail newest first, a range of ids at a time,
 * until it is full or its time is spent. See bench 'audit'.
 */
export interface SearchBudget {
  /** Time a page walks for before it answers with how far back it searched (the target is 100 ms). */
  ms: number;
  /** Ids in the first range walked; the next ones are sized by the rate measured so far. */
  firstRange: number;
  /**
   * The index is asked when the text's rarest trigram is estimated on at most this many entries: its cost
   * follows that count. Estimated from the newest `sample` entries.
   */
  indexMaxEntries: number;
  sample: number;
}

export const SEARCH_BUDGET: SearchBudget = {
  ms: 50,
  firstRange: 2_000,
  indexMaxEntries: 5_000,
  sample: 1_000,
};

/**
 * The audit trail: append-only (nothing here updates or deletes an entry but retention), read newest first by
 * keyset on the id, always within one account.
 */
export class SqlAuditStore {
  readonly #appendNow: ((entries: readonly NewAuditEntry[]) => void) | undefined;
  readonly #sqlite: BetterSqlite3.Database | undefined;
  readonly #postgres: boolean;

  constructor(
    private readonly db: Db,
    sqlite?: BetterSqlite3.Database,
    private readonly budget: SearchBudget = SEARCH_BUDGET,
  ) {
    this.#postgres = db.getExecutor().adapter instanceof PostgresAdapter;
    this.#appendNow = sqlite ? preparedAppend(sqlite) : undefined;
    this.#sqlite = sqlite;
  }

  async append(entries: readonly NewAuditEntry[]): Promise<void> {
    // The embedded file: one prepared statement in a transaction of its own, once Kysely's one connection is free
    // (whenConnectionFree; every lookup's answer waits for this, and Kysely would compile and prepare the insert
    // again each time).
    const appendNow = this.#appendNow;
    if (appendNow && this.#sqlite) return whenConnectionFree(this.db, this.#sqlite, () => appendNow(entries));
    await this.db.transaction().execute((trx) => insertChained(trx, entries));
  }

  /**
   * A page of the Activity list, its work bounded: a text no index can narrow walks the trail (SearchBudget)
   * and may answer with fewer entries than `limit` and how far back it searched; any other filter is `page`.
   */
  async search(
    accountId: string,
    filters: AuditFilters,
    before: number | null,
    limit: number,
  ): Promise<AuditPage> {
    const started = performance.now();
    const text = filters.text === undefined ? undefined : fold(filters.text);
    if (text === undefined || !(await this.#unindexable(text))) {
      const entries = await this.page(accountId, filters, before, limit);
      const next = entries.length === limit ? Number(entries.at(-1)?.id) : null;
      return { entries, next, searchedBackTo: null };
    }
    return this.#walk(accountId, { ...filters, text }, before, limit, started);
  }

  /**
   * Is a (folded) text one no index narrows? One or two characters; or, on a trail larger than the index serves
   * cheaply whatever it holds, a text whose trigrams are all together on more than `indexMaxEntries` entries:
   * the index hands each of those over to be checked for the text itself (the trigrams in their order), so its
   * cost follows that count, found or not. Every trigram of "springfield, springfield" is on every entry of a
   * Springfield trail; those of "p49 main" are each on 1 in 50 or more, but together on a few. SQLite counts
   * them in its index, up to the bound (cheap: the count stops there); PostgreSQL's GIN index has no such count,
   * so the share of `sample` entries spread over the trail (of every account: the indexes hold them all) that
   * hold every trigram stands for it.
   */
  async #unindexable(text: string): Promise<boolean> {
    const chars = [...text];
    if (chars.length < 3) return true;
    const bound = this.budget.indexMaxEntries;
    // Two subqueries: SQLite reads min(id) and max(id) from the key only when each is alone in its select.
    const { rows } = await sql<{ lowest: number | null; highest: number | null }>`select
      (select min(id) from audit_entries) as lowest, (select max(id) from audit_entries) as highest`.execute(
      this.db,
    );
    const lowest = Number(rows[0]?.lowest ?? 0);
    const size = Number(rows[0]?.highest ?? 0) - lowest + 1;
    if (size <= bound) return false;
    const trigrams = [...new Set(chars.slice(2).map((c, i) => `${chars[i]}${chars[i + 1]}${c}`))];
    if (!this.#postgres) {
      const all = trigrams.map((t) => `"${t.replaceAll('"', '""')}"`).join(' AND ');
      const { rows } = await sql<{ n: number }>`select count(*) as n from (select rowid from idx.audit_search
        where audit_search match ${all} limit ${bound + 1})`.execute(this.db);
      return Number(rows[0]?.n) > bound;
    }
    // Runs of 40 consecutive ids spread over the trail (the newest alone would be a few days' addresses), placed
    // by the golden ratio's steps rather than evenly: a trail written in a pattern (a loan tape, row after row) is
    // not sampled in step with it. Runs, not single ids: 1,000 entries read at 1,000 places of a cold table
    // took 70-190 ms, at 25 places a few.
    const runs = Math.max(1, Math.round(Math.min(this.budget.sample, size) / 40));
    const starts = Array.from(
      { length: runs },
      (_, k) => lowest + Math.floor((((k + 1) * GOLDEN) % 1) * size),
    );
    const sample = await this.db
      .selectFrom('audit_entries')
      .select('search_text')
      .where((w) => w.or(starts.map((start) => w.between('id', start, start + 39))))
      .execute();
    const holding = sample.filter(
      (r) => r.search_text !== null && trigrams.every((t) => r.search_text?.includes(t)),
    );
    if (sample.length === 0) return false;
    return (holding.length / sample.length) * size > bound;
  }

  /**
   * The account's entries older than `before` holding the (folded) text, newest first, read a range of ids at a
   * time without an index until the page is full, the trail ends or the budget's time (from `started`, the
   * page's start) is spent: then the page says how far back it searched and where to go on from.
   */
  async #walk(
    accountId: string,
    filters: AuditFilters,
    before: number | null,
    limit: number,
    started: number,
  ): Promise<AuditPage> {
    const { rows } = await sql<{ lowest: number | null; highest: number | null }>`select
      (select min(id) from audit_entries where account_id = ${accountId}) as lowest,
      (select max(id) from audit_entries where account_id = ${accountId}) as highest`.execute(this.db);
    const { lowest, highest } = rows[0] ?? { lowest: null, highest: null };
    if (lowest === null || highest === null) return { entries: [], next: null, searchedBackTo: null };
    const top = Math.min(before ?? Number.POSITIVE_INFINITY, Number(highest) + 1);
    const entries: AuditEntry[] = [];
    const walked = performance.now();
    let range = this.budget.firstRange;
    for (let to = top; ; ) {
      const from = Math.max(Number(lowest), to - range);
      entries.push(
        ...(await this.#read(accountId, filters, {
          before: to,
          above: from - 1,
          limit: limit - entries.length,
          index: 'none',
          walking: true,
        })),
      );
      if (entries.length === limit)
        return { entries, next: Number(entries.at(-1)?.id), searchedBackTo: null };
      if (from <= Number(lowest)) return { entries, next: null, searchedBackTo: null };
      to = from;
      const spent = performance.now() - started;
      if (spent >= this.budget.ms) {
        // The account's newest entry not searched yet: every entry newer than it was.
        const older = await this.db
          .selectFrom('audit_entries')
          .select('at')
          .where('account_id', '=', accountId)
          .where('id', '<', to)
          .orderBy('id', 'desc')
          .limit(1)
          .executeTakeFirst();
        return older
          ? { entries, next: to, searchedBackTo: Number(older.at) }
          : { entries, next: null, searchedBackTo: null };
      }
      // As many ids as the time left affords at the rate so far, but no more than four times the last range.
      const perId = (performance.now() - walked) / (top - to);
      range = Math.max(
        this.budget.firstRange,
        Math.min(range * 4, Math.floor((this.budget.ms - spent) / perId)),
      );
    }
  }

  /**
   * Entries older than `before` (an id), newest first, every one there is up to `limit` (the export's path; the
   * Activity list's is `search`). The text is folded as the entries' search text was
   * (search-text.ts). On SQLite a folded text of three characters or more is read from the trigram index
   * (migrations 0006, 0007) for the entries it holds and without it for the few appended since the follower's last
   * pass, so an entry is found by its text the moment its lookup is answered. A property is read so too, from its
   * own index (migration 0021), which the follower fills to the same mark.
   */
  async page(
    accountId: string,
    filters: AuditFilters,
    before: number | null,
    limit: number,
  ): Promise<AuditEntry[]> {
    const text = filters.text === undefined ? undefined : fold(filters.text);
    const folded = text === undefined ? filters : { ...filters, text };
    const index: Index = this.#postgres
      ? 'none'
      : filters.propertyId
        ? 'property'
        : [...(text ?? '')].length >= 3
          ? 'trigram'
          : 'none';
    if (index === 'none') return this.#read(accountId, folded, { before, limit, index });
    // The tail above the mark first (its ids are all newer), then the index below it. A mark read a moment before
    // the follower moves it only sends more entries through the tail's scan.
    const mark = await this.#indexedTo();
    const tail =
      before === null || before > mark + 1
        ? await this.#read(accountId, folded, { before, limit, index: 'none', above: mark })
        : [];
    if (tail.length === limit) return tail;
    const below = before === null ? mark + 1 : Math.min(before, mark + 1);
    const head = await this.#read(accountId, folded, {
      before: below,
      limit: limit - tail.length,
      index,
    });
    return [...tail, ...head];
  }

  async #read(
    accountId: string,
    filters: AuditFilters,
    {
      before,
      limit,
      index,
      above,
      walking = false,
    }: { before: number | null; limit: number; index: Index; above?: number; walking?: boolean },
  ): Promise<AuditEntry[]> {
    const text = filters.text ?? ''; // folded (page)
    // An index gives the ids of the entries holding the text (trigrams) or the property, newest first, and each is
    // read by its id until the page is full, so a text on every entry reads a page and a text on none reads
    // nothing. A phrase of trigrams is a substring (of the folded text: the index folds nothing itself).
    // The property's ids (migration 0021) as the trigram index's are read: a table named `s` of `rowid`s.
    const ids =
      index === 'trigram'
        ? sql`idx.audit_search`
        : sql`(select id as rowid from idx.audit_property_ids
            where account_id = ${accountId} and property_id = ${filters.propertyId ?? null})`;
    let q =
      index === 'none'
        ? this.db.selectFrom('audit_entries').selectAll('audit_entries')
        : this.db
            .selectFrom(sql<{ rowid: number }>`${ids}`.as('s'))
            .innerJoin('audit_entries', 'audit_entries.id', 's.rowid')
            .selectAll('audit_entries');
    if (index === 'trigram')
      q = q.where(sql<boolean>`audit_search match ${`"${text.replaceAll('"', '""')}"`}`);
    const id = index === 'none' ? sql.ref('id') : sql.ref('s.rowid');
    q = q.where('audit_entries.account_id', '=', accountId);
    if (before !== null) q = q.where(id, '<', before);
    if (above !== undefined) q = q.where(id, '>', above);
    if (filters.from !== undefined) q = q.where('at', '>=', filters.from);
    if (filters.to !== undefined) q = q.where('at', '<', filters.to);
    if (filters.outcome) q = q.where('outcome', '=', filters.outcome);
    if (filters.keyFingerprint) q = q.where('key_fingerprint', '=', filters.keyFingerprint);
    if (filters.propertyId) q = q.where('audit_entries.property_id', '=', filters.propertyId);
    if (text && index !== 'trigram') {
      // PostgreSQL (its pg_trgm index serves this very expression); on SQLite one or two characters, which
      // trigrams cannot hold, and the entries the index does not hold yet: read newest first until the page is
      // full. `_`, `%` and `\` as typed: escaped, with the escape named, for SQLite's LIKE has no default one.
      // Both sides folded: SQLite's LIKE ignoring ASCII case changes nothing.
      const like = `%${text.replace(/[\\%_]/g, (m) => `\\${m}`)}%`;
      // A walk's range of ids is read by the account's key: `search_text || ''` keeps PostgreSQL's planner off
      // the GIN index, which reads every entry holding the text's trigrams (for a text made of common ones, the
      // whole trail: 0.8 s) to answer a range of thousands.
      const searched = walking ? sql`(search_text || '')` : sql.ref('search_text');
      q = q.where(sql<boolean>`${searched} like ${like} escape '\\'`);
    }
    const rows = await q.orderBy(id, 'desc').limit(limit).execute();
    return rows.map(toEntry);
  }

  /** SQLite: the last id the trigram index holds (every entry at or below it is indexed, or had no text). */
  async #indexedTo(): Promise<number> {
    return lastIndexed(this.db);
  }

  /**
   * One pass of the trigram and property indexes' follower (SQLite; PostgreSQL keeps its own indexes) on this
   * connection: up to `max` entries appended since the last pass indexed, in one transaction (search-index.ts).
   * The running server's passes are its worker's (audit/follower-thread.ts), off the main thread; this one is
   * for a trail no worker follows (tests, the bench, a process that only reads). Returns how many entries it
   * passed over (fewer than `max`: caught up).
   */
  async follow(max = FOLLOW_BATCH): Promise<number> {
    if (this.#postgres) return 0;
    return this.db
      .transaction()
      .execute((trx) =>
        followPass(
          async (text, parameters) => (await trx.executeQuery(CompiledQuery.raw(text, [...parameters]))).rows,
          max,
        ),
      );
  }

  /** Every entry matching the filters, newest first, a batch at a time: never the whole trail in memory. */
  async *all(accountId: string, filters: AuditFilters, batch = 1_000): AsyncGenerator<AuditEntry> {
    let before: number | null = null;
    for (;;) {
      const entries = await this.page(accountId, filters, before, batch);
      yield* entries;
      if (entries.length < batch) return;
      before = Number(entries.at(-1)?.id);
    }
  }

  /** Retention: entries older than `cutoff` (epoch ms) removed from the chain's start (retention.ts). */
  deleteOlderThan(cutoff: number, batch = 10_000): Promise<number> {
    return deleteOlderThan(this.db, this.#postgres, cutoff, batch);
  }
}

/** Where a page's ids come from: an index (SQLite's, filled by the follower) or the trail itself. */
type Index = 'none' | 'trigram' | 'property';

/** The golden ratio's fractional part: its multiples fall evenly over [0, 1), in no period. */
const GOLDEN = (Math.sqrt(5) - 1) / 2;

async function lastIndexed(db: Db): Promise<number> {
  const { rows } = await sql<{ last_id: number }>`select last_id from idx.audit_search_indexed`.execute(db);
  return Number(rows[0]?.last_id ?? 0);
}
