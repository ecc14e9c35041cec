import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import { Kysely, type Migration, Migrator, PostgresDialect, SqliteDialect } from 'kysely';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { verifyTrail } from '../evidence/verify-trail.ts';
import { auditRow, SqlAuditStore } from '../stores/audit/audit-store.ts';
import { entryHash, GENESIS } from '../stores/audit/chain.ts';
import { auditEntry } from '../test-support/audit-entry.ts';
import { PostgresServer, postgresAvailable } from '../test-support/postgres-process.ts';
import { type Dialect, openDatabase } from './database.ts';
import { migrationsFor } from './migrations.ts';

/*
 * Migration 0012 on a trail written before it: every entry chained in id order from the genesis, batch after
 * batch, so `npm run audit:verify` passes on an upgraded database and the next entry goes on from its head.
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

async function olderRelease(dialect: Dialect): Promise<{ db: AnyDb; config: { url?: string; dir: string } }> {
  if (dialect === 'sqlite') {
    const dir = mkdtempSync(join(tmpdir(), 'proplens-migrate-0012-'));
    dirs.push(dir);
    const file = new BetterSqlite3(join(dir, 'proplens.db'));
    return { db: new Kysely({ dialect: new SqliteDialect({ database: file }) }), config: { dir } };
  }
  if (!server) throw new Error('PostgreSQL starts before the tests');
  const url = server.url;
  return {
    // No listener, an idle client's goodbye when the server goes at the end would fail the run.
    db: new Kysely({
      dialect: new PostgresDialect({ pool: new pg.Pool({ connectionString: url }).on('error', () => {}) }),
    }),
    config: { url, dir: '' },
  };
}

const dialects: Dialect[] = ['sqlite', ...(postgresAvailable() ? (['postgres'] as const) : [])];

describe.each(dialects)('migration 0012 on %s', (dialect) => {
  it('chains the entries an older release wrote, in id order across batches, and appends go on from the head', async () => {
    const old = await olderRelease(dialect);
    const all = migrationsFor(dialect);
    const names = Object.keys(all);
    const before = names.slice(0, names.indexOf('0012-audit-chain'));
    const { error } = await new Migrator({
      db: old.db,
      provider: {
        getMigrations: async () => Object.fromEntries(before.map((n) => [n, all[n] as Migration])),
      },
    }).migrateToLatest();
    expect(error).toBeUndefined();
    const N = 2_100; // more than one batch of the migration's
    const rows = Array.from({ length: N }, (_, i) =>
      auditRow(auditEntry({ at: 1_700_000_000_000 + i, query: `${i} Old Rd` })),
    );
    for (let i = 0; i < N; i += 500)
      await old.db
        .insertInto('audit_entries')
        .values(rows.slice(i, i + 500))
        .execute();
    await old.db.destroy();

    const database = await openDatabase(old.config);
    try {
      const first = await database.db
        .selectFrom('audit_entries')
        .selectAll()
        .orderBy('id')
        .executeTakeFirstOrThrow();
      expect(first.prev_hash).toBe(GENESIS);
      expect(first.hash).toBe(entryHash(first));
      expect(await verifyTrail(database.db)).toMatchObject({ ok: true, entries: N });
      await new SqlAuditStore(database.db, database.sqlite).append([
        auditEntry({ query: 'after the upgrade' }),
      ]);
      expect(await verifyTrail(database.db)).toMatchObject({ ok: true, entries: N + 1 });
    } finally {
      await database.close();
    }
  }, 30_000);
});
