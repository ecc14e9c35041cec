import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import { Kysely, Migrator, PostgresDialect, SqliteDialect, sql } from 'kysely';
import pg from 'pg';
import { storeUnavailable } from '../errors.ts';
import { attachSearchIndex, SEARCH_INDEX_FILE } from '../stores/audit/search-index.ts';
import { type Dialect, migrationsFor } from './migrations.ts';
import type { DatabaseSchema } from './schema.ts';

export type { Dialect } from './migrations.ts';

export interface DatabaseConfig {
  /** DATABASE_URL: a PostgreSQL server shared by every replica. Absent: the embedded SQLite file. */
  url?: string;
  /** DATABASE_DIR: where the embedded database lives. */
  dir: string;
  /** What was done at start to a file the database derives (its index file, remade): logged as a warning. */
  notice?: (message: string) => void;
}

export interface Database {
  db: Kysely<DatabaseSchema>;
  dialect: Dialect;
  /** The embedded file's own handle (SQLite only), for a hot path Kysely would compile and prepare anew. */
  sqlite?: BetterSqlite3.Database;
  /** SQLite: the database's file and the Activity filter's index file (attached as `idx`; ADR 016). */
  files?: { database: string; searchIndex: string };
  /** Does the database answer within 2 s (for /readyz)? */
  ping(): Promise<boolean>;
  close(): Promise<void>;
}

/**
 * `run` (statements prepared on the embedded file's own handle, run synchronously) where no transaction of Kysely's
 * is half done on its one connection: at once when none is open, else once Kysely lets the connection go. Never
 * Kysely in its place: falling back to Kysely beside an open transaction made each fallback a transaction,
 * compiled and prepared anew, that held the connection for the next fallback in turn (queue-connection.test.ts).
 */
export function whenConnectionFree<T>(
  db: Kysely<DatabaseSchema>,
  sqlite: BetterSqlite3.Database,
  run: () => T,
): Promise<T> {
  if (!sqlite.inTransaction) return Promise.resolve(run());
  return db.connection().execute(async () => run());
}

/** The database holds a migration this code does not know: it belongs to a newer PropLens. */
export class DatabaseTooNew extends Error {}

const TIMEOUT_MS = 2_000;

/**
 * Opens the database and brings its schema up to date (Kysely's Migrator: every replica may start at once, the
 * migrator's lock lets one migrate). A PostgreSQL that is down fails each call within about 2 s; the pool
 * reconnects by itself when it is back.
 */
export async function openDatabase(config: DatabaseConfig): Promise<Database> {
  const database = config.url ? openPostgres(config.url) : openSqlite(config.dir);
  try {
    await migrate(database.db, database.dialect);
    // After the migrations, which knew the indexes in the database's own file (0006, 0007, 0021; 0024 took them out).
    if (database.sqlite && database.files)
      await attachSearchIndex(database.sqlite, database.files.searchIndex, config.notice);
  } catch (err) {
    await database.close();
    throw err;
  }
  return database;
}

function openSqlite(dir: string): Database {
  mkdirSync(dir, { recursive: true });
  const path = join(dir, 'proplens.db');
  const file = new BetterSqlite3(path);
  file.pragma('journal_mode = WAL');
  file.pragma('synchronous = NORMAL');
  file.pragma('busy_timeout = 5000');
  const db = new Kysely<DatabaseSchema>({ dialect: new SqliteDialect({ database: file }) });
  return {
    db,
    dialect: 'sqlite',
    sqlite: file,
    files: { database: path, searchIndex: join(dir, SEARCH_INDEX_FILE) },
    ping: async () => file.open,
    close: () => db.destroy(),
  };
}

function openPostgres(url: string): Database {
  // bigint columns hold epoch milliseconds and counts: well inside a JavaScript number.
  const types = {
    getTypeParser: (oid: number, format?: string) =>
      oid === 20 ? (v: string) => Number(v) : pg.types.getTypeParser(oid, format as 'text'),
  };
  const pool = new pg.Pool({
    connectionString: url,
    connectionTimeoutMillis: TIMEOUT_MS,
    query_timeout: 10_000,
    statement_timeout: 10_000,
    idle_in_transaction_session_timeout: 10_000,
    max: 10,
    types,
  });
  // A client losing its server is not a crash: idle, the pool drops it (its 'error'); checked out, the query in
  // flight fails with the error, and the client also emits it, which with no listener would end the process
  // (every replica at once, at a PostgreSQL restart or fail-over). The next query reconnects.
  pool.on('error', () => {});
  pool.on('connect', (client) => client.on('error', () => {}));
  const db = new Kysely<DatabaseSchema>({ dialect: new PostgresDialect({ pool }) });
  return {
    db,
    dialect: 'postgres',
    ping: async () => {
      try {
        await withDeadline(sql`select 1`.execute(db), TIMEOUT_MS);
        return true;
      } catch {
        return false;
      }
    },
    close: () => db.destroy(),
  };
}

async function migrate(db: Kysely<DatabaseSchema>, dialect: Dialect): Promise<void> {
  const migrations = migrationsFor(dialect);
  const applied = await appliedMigrations(db);
  const unknown = applied.filter((name) => !Object.hasOwn(migrations, name));
  if (unknown.length > 0) {
    throw new DatabaseTooNew(
      `The database schema is newer than this PropLens: it has migration ${unknown.join(', ')}, which this ` +
        'version does not know. Upgrade PropLens, or point DATABASE_URL / DATABASE_DIR at another database.',
    );
  }
  const migrator = new Migrator({ db, provider: { getMigrations: async () => migrations } });
  const { error } = await migrator.migrateToLatest();
  if (error) throw error;
}

async function appliedMigrations(db: Kysely<DatabaseSchema>): Promise<string[]> {
  try {
    const rows = await sql<{ name: string }>`select name from kysely_migration`.execute(db);
    return rows.rows.map((r) => r.name);
  } catch {
    return []; // A new database: no migration table yet.
  }
}

function withDeadline<T>(work: Promise<T>, ms: number): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error('database did not answer in time')), ms);
  });
  return Promise.race([work, deadline]).finally(() => clearTimeout(timer));
}

/**
 * Runs a database call for an API answer: a database that is down or slow becomes 503 store_unavailable within
 * about 2 s (the client may try again; nothing already answered is lost), never a hang or a 500.
 */
export async function inDatabase<T>(work: () => Promise<T>, ms = TIMEOUT_MS + 500): Promise<T> {
  try {
    return await withDeadline(work(), ms);
  } catch (err) {
    if (isUnavailable(err)) throw storeUnavailable();
    throw err;
  }
}

/** Errors that mean "the database is not there right now", not "the query is wrong". */
export function isUnavailable(err: unknown): boolean {
  const e = err as { code?: string; message?: string };
  const message = e?.message ?? '';
  return (
    [
      'ECONNREFUSED',
      'ECONNRESET',
      'ETIMEDOUT',
      'EPIPE',
      '57P01',
      '57P02',
      '57P03',
      '08006',
      '08001',
      '08003',
    ].includes(e?.code ?? '') ||
    /did not answer in time|timeout|Connection terminated|connect|database system is (starting|shutting)/i.test(
      message,
    )
  );
}
