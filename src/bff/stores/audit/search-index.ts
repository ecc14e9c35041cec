import { renameSync, rmSync } from 'node:fs';
import { setImmediate } from 'node:timers/promises';
import type BetterSqlite3 from 'better-sqlite3';

/*
 * The Activity filter's SQLite indexes in a file of their own, `audit-index.db` beside the database, attached to
 * every connection as `idx` (ADR 016). The trail's follower fills them off the main thread, in a worker with its
 * own connection (audit/follower-thread.ts): its transactions take the index file's write lock, never the trail's,
 * so the commit every lookup's answer waits for runs beside it instead of after it. Everything here is derived
 * from `audit_entries`: a missing, unreadable or mismatched index file is made again from the trail.
 * - `idx.audit_search`: the text filter's trigram index (contentless FTS5, its rowid the entry's id; the folded
 *   `search_text`, folded by nothing here: case_sensitive 1).
 * - `idx.audit_property_ids`: the property filter's (account, property, id).
 * - `idx.audit_search_indexed`: the follower's marks. `last_id`: every entry at or below it is indexed (or had
 *   nothing to index); the filters read entries above it from the trail itself. `last_hash`: that entry's chain
 *   hash, which ties the index to the trail it was made from. A database restored from a backup, or an index file
 *   from another moment or another database, does not hold that entry, and the index is emptied and made again
 *   rather than answer with another trail's ids (hostile review H17-F1). `pruned_to`: retention's mark
 *   (`audit_chain.base_id`: every entry at or below it is deleted) as far as the indexes have followed it.
 * The file's `user_version` is its layout's: a file of another layout is dropped and made again.
 */
export const SEARCH_INDEX_FILE = 'audit-index.db';

const LAYOUT = 1;

const SCHEMA = [
  `create virtual table if not exists idx.audit_search using fts5(
    search_text, content = '', contentless_delete = 1, tokenize = 'trigram case_sensitive 1')`,
  `create table if not exists idx.audit_property_ids (
    account_id text not null, property_id text not null, id integer not null,
    primary key (account_id, property_id, id)) without rowid`,
  `create table if not exists idx.audit_search_indexed (
    last_id integer not null, last_hash text, pruned_to integer not null)`,
];

/** Entries the follower indexes in one transaction (see bench 'audit' for how long one holds the index file). */
export const FOLLOW_BATCH = 1_000;

/** Runs one statement of the follower's and gives its rows (none for a write). */
export type Execute = (text: string, parameters: readonly unknown[]) => Promise<unknown[]>;

/** The follower's statements on a better-sqlite3 connection, each prepared once. */
export function sqliteExecute(sqlite: BetterSqlite3.Database): Execute {
  const statements = new Map<string, BetterSqlite3.Statement>();
  return async (text, parameters) => {
    let statement = statements.get(text);
    if (!statement) {
      statement = sqlite.prepare(text);
      statements.set(text, statement);
    }
    if (statement.reader) return statement.all(...parameters);
    statement.run(...parameters);
    return [];
  };
}

/** Says what was done to an index file at start (the server logs it as a warning). */
export type IndexNotice = (message: string) => void;

/**
 * Attaches the index file to a connection of the database as `idx`: made where it is not yet, and made again where
 * its layout is another or it indexes another trail. A file SQLite cannot read (not a database, corrupt) is moved
 * aside as `audit-index.db.unreadable-<time>` and made again, and `notice` says so: the file is derived, and the
 * server starts.
 */
export async function attachSearchIndex(
  sqlite: BetterSqlite3.Database,
  path: string,
  notice: IndexNotice = () => {},
): Promise<void> {
  try {
    await prepareIndex(sqlite, path, notice);
  } catch (err) {
    const code = (err as { code?: string }).code ?? '';
    if (!/^SQLITE_(NOTADB|CORRUPT)/.test(code)) throw err;
    if (sqlite.inTransaction) sqlite.exec('rollback');
    if (sqlite.prepare("select 1 from pragma_database_list where name = 'idx'").get())
      sqlite.exec('detach database idx');
    const aside = `${path}.unreadable-${new Date().toISOString().replace(/[:.]/g, '-')}`;
    renameSync(path, aside);
    for (const suffix of ['-wal', '-shm']) rmSync(`${path}${suffix}`, { force: true });
    notice(
      `The Activity filter's index file ${path} could not be read (${code}): moved to ${aside}, and made again from the trail.`,
    );
    await prepareIndex(sqlite, path, notice);
  }
}

async function prepareIndex(sqlite: BetterSqlite3.Database, path: string, notice: IndexNotice) {
  sqlite.prepare('attach database ? as idx').run(path);
  sqlite.pragma('idx.journal_mode = WAL');
  sqlite.pragma('idx.synchronous = NORMAL');
  if (sqlite.pragma('idx.user_version', { simple: true }) !== LAYOUT) {
    for (const table of ['audit_search', 'audit_property_ids', 'audit_search_indexed'])
      sqlite.exec(`drop table if exists idx.${table}`);
    sqlite.pragma(`idx.user_version = ${LAYOUT}`);
  }
  for (const statement of SCHEMA) sqlite.exec(statement);
  sqlite.exec('begin');
  try {
    if ((await startOver(sqliteExecute(sqlite))).remade)
      notice(
        `The Activity filter's index file ${path} indexed another trail (a database restored or copied): made again from the trail.`,
      );
    sqlite.exec('commit');
  } catch (err) {
    if (sqlite.inTransaction) sqlite.exec('rollback');
    throw err;
  }
}

/** Where the follower stands: its marks, and the chain's start (every entry at or below it deleted by retention). */
interface Marks {
  lastId: number;
  prunedTo: number;
  baseId: number;
}

/**
 * The follower's marks, after emptying the indexes and setting them at the trail's start where they hold nothing
 * yet, or were made from another trail (the entry at `last_id` is not the one they followed): `remade` in that
 * second case. Entries at or below the chain's start are gone (retention): the follower starts above it. An index
 * whose `last_id` retention has passed holds only entries that are gone, and starts over too.
 */
async function startOver(execute: Execute): Promise<{ marks: Marks; remade: boolean }> {
  const [marks] = (await execute(
    'select last_id, last_hash, pruned_to from idx.audit_search_indexed',
    [],
  )) as {
    last_id: number;
    last_hash: string | null;
    pruned_to: number;
  }[];
  const [chain] = (await execute('select base_id, base_hash from main.audit_chain where id = 1', [])) as {
    base_id: number;
    base_hash: string | null;
  }[];
  const base = { id: Number(chain?.base_id ?? 0), hash: chain?.base_hash ?? null };
  if (marks) {
    const [entry] = (await execute('select hash from main.audit_entries where id = ?', [marks.last_id])) as {
      hash: string | null;
    }[];
    const followed = entry ? entry.hash : Number(marks.last_id) === base.id ? base.hash : undefined;
    if (followed !== undefined && followed === marks.last_hash) {
      return {
        marks: { lastId: Number(marks.last_id), prunedTo: Number(marks.pruned_to), baseId: base.id },
        remade: false,
      };
    }
  }
  await execute("insert into idx.audit_search (audit_search) values ('delete-all')", []);
  await execute('delete from idx.audit_property_ids', []);
  await execute('delete from idx.audit_search_indexed', []);
  await execute('insert into idx.audit_search_indexed (last_id, last_hash, pruned_to) values (?, ?, ?)', [
    base.id,
    base.hash,
    base.id,
  ]);
  return {
    marks: { lastId: base.id, prunedTo: base.id, baseId: base.id },
    remade: marks !== undefined && Number(marks.last_id) >= base.id,
  };
}

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
  // The trail may have changed under the index (a database restored while the server ran).
  const { marks } = await startOver(execute);
  const from = marks.lastId;
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
    await execute(
      'update idx.audit_search_indexed set last_id = ?, last_hash = (select hash from main.audit_entries where id = ?)',
      [upto, upto],
    );
  }
  await prune(execute, marks);
  return n;
}

/**
 * Passes until caught up (a pass over fewer than FOLLOW_BATCH entries), the event loop let go between them, and
 * none once `stopped()`: a stop ends a catch-up after the pass under way. How many entries they passed over.
 * The follower's thread and a trail without one (audit-trail.ts) catch up alike.
 */
export async function catchUp(pass: () => Promise<number>, stopped: () => boolean): Promise<number> {
  let passed = 0;
  while (!stopped()) {
    const n = await pass();
    passed += n;
    if (n < FOLLOW_BATCH) break;
    await setImmediate();
  }
  return passed;
}

/**
 * Retention removes entries from the chain's start and moves `audit_chain.base_id` past them: the indexes lose
 * the same ids, a batch at a time. A filter never shows a pruned id meanwhile (each is read joined to its entry).
 */
async function prune(execute: Execute, { prunedTo, baseId }: Marks): Promise<void> {
  if (baseId <= prunedTo) return;
  const to = Math.min(baseId, prunedTo + PRUNE_BATCH);
  await execute('delete from idx.audit_search where rowid > ? and rowid <= ?', [prunedTo, to]);
  await execute('delete from idx.audit_property_ids where id > ? and id <= ?', [prunedTo, to]);
  await execute('update idx.audit_search_indexed set pruned_to = ?', [to]);
}
