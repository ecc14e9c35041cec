import type BetterSqlite3 from 'better-sqlite3';

/*
 * The Activity filter's SQLite indexes in a file of their own, `audit-index.db` beside the database, attached to
 * every connection as `idx` (ADR 016). The trail's follower fills them off the main thread, in a worker with its
 * own connection (audit/follower-thread.ts): its transactions take the index file's write lock, never the trail's,
 * so the commit every lookup's answer waits for runs beside it instead of after it. Everything here is derived
 * from `audit_entries`: a missing or deleted index file is made again from the trail, from the start.
 * - `idx.audit_search`: the text filter's trigram index (contentless FTS5, its rowid the entry's id; the folded
 *   `search_text`, folded by nothing here: case_sensitive 1).
 * - `idx.audit_property_ids`: the property filter's (account, property, id).
 * - `idx.audit_search_indexed`: the follower's marks. `last_id`: every entry at or below it is indexed (or had
 *   nothing to index); the filters read entries above it from the trail itself. `pruned_to`: retention's mark
 *   (`audit_chain.base_id`, every entry at or below it deleted) as the indexes have followed it.
 */
export const SEARCH_INDEX_FILE = 'audit-index.db';

const SCHEMA = [
  `create virtual table if not exists idx.audit_search using fts5(
    search_text, content = '', contentless_delete = 1, tokenize = 'trigram case_sensitive 1')`,
  `create table if not exists idx.audit_property_ids (
    account_id text not null, property_id text not null, id integer not null,
    primary key (account_id, property_id, id)) without rowid`,
  'create table if not exists idx.audit_search_indexed (last_id integer not null, pruned_to integer not null)',
  `insert into idx.audit_search_indexed (last_id, pruned_to)
    select 0, 0 where not exists (select 1 from idx.audit_search_indexed)`,
];

/** Attaches the index file to a connection of the database as `idx`, made (empty) where it is not yet. */
export function attachSearchIndex(sqlite: BetterSqlite3.Database, path: string): void {
  sqlite.prepare('attach database ? as idx').run(path);
  sqlite.pragma('idx.journal_mode = WAL');
  sqlite.pragma('idx.synchronous = NORMAL');
  for (const statement of SCHEMA) sqlite.exec(statement);
}

/** Entries the follower indexes in one transaction (see bench 'audit' for how long one holds the index file). */
export const FOLLOW_BATCH = 1_000;

/** Runs one statement of the follower's and gives its rows (none for a write). */
export type Execute = (text: string, parameters: readonly unknown[]) => Promise<unknown[]>;

/** Rows of the entries pruned from the indexes per pass, after retention removed them from the trail. */
const PRUNE_BATCH = 10_000;

/**
 * One pass of the follower, in a transaction the caller opens on a connection with the index attached: indexes up
 * to `max` entries appended since the last pass and moves the mark past them, then takes out of the indexes up
 * to PRUNE_BATCH ids retention has removed from the trail. Returns how many entries it passed over (fewer than
 * `max`: caught up). A pass interrupted by a stop or a crash is rolled back whole: the next starts from the same
 * marks.
 */
export async function followPass(execute: Execute, max: number): Promise<number> {
  const [marks] = (await execute('select last_id, pruned_to from idx.audit_search_indexed', [])) as {
    last_id: number;
    pruned_to: number;
  }[];
  const from = Number(marks?.last_id ?? 0);
  const [span] = (await execute(
    `select max(id) as upto, count(*) as n
      from (select id from main.audit_entries where id > ? order by id limit ?)`,
    [from, max],
  )) as { upto: number | null; n: number }[];
  const upto = span?.upto ?? null;
  const n = Number(span?.n ?? 0);
  if (upto !== null && n > 0) {
    await execute(
      `insert into idx.audit_search (rowid, search_text)
        select id, search_text from main.audit_entries
        where id > ? and id <= ? and search_text is not null`,
      [from, upto],
    );
    await execute(
      `insert into idx.audit_property_ids (account_id, property_id, id)
        select account_id, property_id, id from main.audit_entries
        where id > ? and id <= ? and property_id is not null`,
      [from, upto],
    );
    await execute('update idx.audit_search_indexed set last_id = ?', [upto]);
  }
  await prune(execute, Number(marks?.pruned_to ?? 0));
  return n;
}

/**
 * Retention removes entries from the chain's start and moves `audit_chain.base_id` past them: the indexes lose
 * the same ids, a batch at a time. A filter never shows a pruned id meanwhile (each is read joined to its entry).
 */
async function prune(execute: Execute, prunedTo: number): Promise<void> {
  const [chain] = (await execute('select base_id from main.audit_chain where id = 1', [])) as {
    base_id: number;
  }[];
  const base = Number(chain?.base_id ?? 0);
  if (base <= prunedTo) return;
  const to = Math.min(base, prunedTo + PRUNE_BATCH);
  await execute('delete from idx.audit_search where rowid > ? and rowid <= ?', [prunedTo, to]);
  await execute('delete from idx.audit_property_ids where id > ? and id <= ?', [prunedTo, to]);
  await execute('update idx.audit_search_indexed set pruned_to = ?', [to]);
}
