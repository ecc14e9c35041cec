import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import { Kysely, type Migration, Migrator, PostgresDialect, SqliteDialect, sql } from 'kysely';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PostgresServer, postgresAvailable } from '../test-support/postgres-process.ts';
import type { Dialect } from './database.ts';
import { migrationsFor } from './migrations.ts';

/*
 * Migration 0018 on reviews an older release signed off: each sign-off is of the latest run that had started when
 * it was made (a run started later is "since"); a review not signed off names no run.
 */

type AnyDb = Kysely<any>;

let server: PostgresServer | undefined;
const dirs: string[] = [];
beforeAll(async () => {
  if (postgresAvailable()) server = await PostgresServer.start();
}, 60_000);
afterAll(async () => {
  await server?.destroy();
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

function olderRelease(dialect: Dialect): AnyDb {
  if (dialect === 'sqlite') {
    const dir = mkdtempSync(join(tmpdir(), 'proplens-migrate-0018-'));
    dirs.push(dir);
    return new Kysely({
      dialect: new SqliteDialect({ database: new BetterSqlite3(join(dir, 'proplens.db')) }),
    });
  }
  if (!server) throw new Error('PostgreSQL starts before the tests');
  return new Kysely({
    // No listener, an idle client's goodbye when the server goes at the end would fail the run.
    dialect: new PostgresDialect({
      pool: new pg.Pool({ connectionString: server.url }).on('error', () => {}),
    }),
  });
}

const migrateTo = (db: AnyDb, dialect: Dialect, upTo: string) => {
  const all = migrationsFor(dialect);
  const names = Object.keys(all);
  const wanted = names.slice(0, names.indexOf(upTo) + 1);
  return new Migrator({
    db,
    provider: { getMigrations: async () => Object.fromEntries(wanted.map((n) => [n, all[n] as Migration])) },
  }).migrateToLatest();
};

const dialects: Dialect[] = ['sqlite', ...(postgresAvailable() ? (['postgres'] as const) : [])];

describe.each(dialects)('migration 0018 on %s', (dialect) => {
  it('names the run each earlier sign-off was of', async () => {
    const db = olderRelease(dialect);
    try {
      expect((await migrateTo(db, dialect, '0017-review-sources')).error).toBeUndefined();
      const review = (id: string, signedOffAt: number | null) =>
        sql`insert into reviews (id, account_id, created_by, created_at, client_token, name, kind, columns,
            total_rows, signed_off_by, signed_off_at)
          values (${id}, 'acct', 'fp', 0, ${id}, 'R', 'paste', '[]', 1, ${signedOffAt === null ? null : 'fp'},
            ${signedOffAt})`.execute(db);
      const run = (id: string, n: number, startedAt: number) =>
        sql`insert into review_runs (review_id, run, started_at, finished_at, fresh, total)
          values (${id}, ${n}, ${startedAt}, ${startedAt + 5}, 0, 1)`.execute(db);
      // Signed off after run 2 finished; run 3 came later.
      await review('signed', 250);
      for (const [n, at] of [
        [1, 100],
        [2, 200],
        [3, 300],
      ] as const)
        await run('signed', n, at);
      await review('unsigned', null);
      await run('unsigned', 1, 100);

      expect((await migrateTo(db, dialect, '0018-sign-off-run')).error).toBeUndefined();
      const rows = await db
        .selectFrom('reviews')
        .select(['id', 'signed_off_run', 'signed_off_visitor'])
        .orderBy('id')
        .execute();
      expect(
        rows.map((r) => [
          r.id,
          r.signed_off_run === null ? null : Number(r.signed_off_run),
          r.signed_off_visitor,
        ]),
      ).toEqual([
        ['signed', 2, null],
        ['unsigned', null, null],
      ]);
    } finally {
      await db.destroy();
    }
  }, 30_000);
});
