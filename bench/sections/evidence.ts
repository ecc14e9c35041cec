import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import { Kysely, type Migration, Migrator, SqliteDialect } from 'kysely';
import { openDatabase } from '../../src/bff/db/database.ts';
import { migrationsFor } from '../../src/bff/db/migrations.ts';
import type { DatabaseSchema } from '../../src/bff/db/schema.ts';
import { Checkpoints } from '../../src/bff/evidence/checkpoints.ts';
import { loadSigningKey } from '../../src/bff/evidence/signing-key.ts';
import { verifyTrail } from '../../src/bff/evidence/verify-trail.ts';
import { auditRow, type NewAuditEntry } from '../../src/bff/stores/audit/audit-rows.ts';
import { insertChained, preparedAppend } from '../../src/bff/stores/audit/chain.ts';
import { PostgresServer, postgresAvailable } from '../../src/bff/test-support/postgres-process.ts';
import { fmt, row, verdict } from '../support.ts';
import { benchEntry } from './audit.ts';

/**
 * The tamper-evident audit trail (issue 30) at BENCH_EVIDENCE_ENTRIES entries (default 1,000,000), embedded
 * SQLite: migration 0012 chaining a trail written before it; `npm run audit:verify`'s walk of the whole chain
 * (target ≤ 30 s); a signed checkpoint; and what the chain costs an append, chained against the plain insert of
 * before, rounds interleaved (target: chained ≥ 0.5x plain), on SQLite and, where installed, PostgreSQL.
 */
export async function benchEvidence(entries = Number(process.env.BENCH_EVIDENCE_ENTRIES ?? 1_000_000)) {
  console.log(`\nAudit chain — ${entries.toLocaleString('en-US')} entries, embedded SQLite`);
  const dir = mkdtempSync(join(tmpdir(), 'proplens-bench-evidence-'));
  try {
    await olderTrail(dir, entries);
    let t = performance.now();
    const database = await openDatabase({ dir });
    const migrated = (performance.now() - t) / 1000;
    row(
      'migration 0012 (chain the trail, once)',
      `${fmt(migrated, 1)} s`,
      '',
      `${Math.round(entries / migrated)} entries/s`,
    );
    try {
      t = performance.now();
      const result = await verifyTrail(database.db, { sqlite: database.sqlite });
      const walked = (performance.now() - t) / 1000;
      if (!result.ok || result.entries !== entries) throw new Error(`verify: ${JSON.stringify(result)}`);
      row(
        'audit:verify, the whole chain',
        `${fmt(walked, 1)} s`,
        '<= 30 s',
        `${Math.round(entries / walked)} entries/s, ${fmt(walked / 30, 2)}x of the target; ${verdict(walked <= 30)}`,
      );
      const checkpoints = new Checkpoints(database.db, loadSigningKey(undefined, dir));
      t = performance.now();
      await checkpoints.checkpointNow();
      row('a signed checkpoint (count, head, Ed25519)', `${fmt(performance.now() - t, 1)} ms`);
      if (!database.sqlite) throw new Error('the embedded database has its handle');
      appendCost('SQLite', plainSqlite(database.sqlite), preparedAppend(database.sqlite));
    } finally {
      await database.close();
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  if (postgresAvailable()) await postgresAppendCost();
  else row('PostgreSQL: not installed', '', '', 'its append not measured');
}

/** The audit section's lookups, as one review's rows. */
const entry = (i: number): NewAuditEntry =>
  benchEntry(i, 1_700_000_000_000 + i * 1_000, {
    kind: 'review_row',
    review_id: 'rv_bench',
    row_index: i,
    review_owner: null,
  });

const PLAIN_COLUMNS = Object.keys(auditRow(entry(0)));

/** The trail as the release before 0012 left it: migrated to 0011 and filled by its plain insert. */
async function olderTrail(dir: string, entries: number) {
  const file = new BetterSqlite3(join(dir, 'proplens.db'));
  file.pragma('journal_mode = WAL');
  const db = new Kysely({ dialect: new SqliteDialect({ database: file }) });
  const all = migrationsFor('sqlite');
  const names = Object.keys(all);
  const before = names.slice(0, names.indexOf('0012-audit-chain'));
  const { error } = await new Migrator({
    db,
    provider: { getMigrations: async () => Object.fromEntries(before.map((n) => [n, all[n] as Migration])) },
  }).migrateToLatest();
  if (error) throw error;
  const insert = plainSqlite(file);
  for (let i = 0; i < entries; i += 10_000)
    insert(Array.from({ length: Math.min(10_000, entries - i) }, (_, k) => entry(i + k)));
  await db.destroy();
}

/** The insert of before 0012: a prepared statement, no hash, in a transaction. */
function plainSqlite(sqlite: BetterSqlite3.Database) {
  const insert = sqlite.prepare(
    `insert into audit_entries (${PLAIN_COLUMNS.join(', ')}) values (${PLAIN_COLUMNS.map((c) => `@${c}`).join(', ')})`,
  );
  return sqlite.transaction((batch: readonly NewAuditEntry[]) => {
    for (const e of batch) insert.run(auditRow(e));
  });
}

/**
 * Entries a second appended in transactions of 1 (an answer's own commit) and of 20 (the writer's group commit),
 * plain and chained, rounds interleaved. The plain rows go last in each round, so the chain's head stays a
 * chained entry (the walk above is done; nothing verifies this tail).
 */
function appendCost(
  name: string,
  plain: (batch: readonly NewAuditEntry[]) => void,
  chained: (batch: readonly NewAuditEntry[]) => void,
) {
  for (const size of [1, 20]) {
    const ms = { plain: 0, chained: 0 };
    const n = 4_000;
    for (let round = 0; round < 6; round++) {
      for (const kind of round % 2 === 0
        ? (['chained', 'plain'] as const)
        : (['plain', 'chained'] as const)) {
        const append = kind === 'plain' ? plain : chained;
        const t = performance.now();
        for (let i = 0; i < n; i += size) append(Array.from({ length: size }, (_, k) => entry(i + k)));
        ms[kind] += performance.now() - t;
      }
    }
    const rate = (x: number) => (6 * n) / (x / 1000);
    const ratio = rate(ms.chained) / rate(ms.plain);
    row(
      `${name} append, transactions of ${size}`,
      `${Math.round(rate(ms.chained))}/s`,
      '>= 0.5x plain',
      `plain ${Math.round(rate(ms.plain))}/s; chained ${fmt(ratio, 2)}x; ${verdict(ratio >= 0.5)}`,
    );
  }
}

/** PostgreSQL through Kysely: the chained append (lock, head, ids, insert) against a plain insert, in transactions. */
async function postgresAppendCost() {
  const server = await PostgresServer.start();
  const database = await openDatabase({ url: server.url, dir: '' });
  const db: Kysely<DatabaseSchema> = database.db;
  try {
    for (const size of [1, 20]) {
      const ms = { plain: 0, chained: 0 };
      const n = 1_000;
      for (let round = 0; round < 6; round++) {
        for (const kind of round % 2 === 0
          ? (['chained', 'plain'] as const)
          : (['plain', 'chained'] as const)) {
          const t = performance.now();
          for (let i = 0; i < n; i += size) {
            const batch = Array.from({ length: size }, (_, k) => entry(i + k));
            await db.transaction().execute(async (trx) => {
              if (kind === 'chained') await insertChained(trx, batch);
              else await trx.insertInto('audit_entries').values(batch.map(plainPostgres)).execute();
            });
          }
          ms[kind] += performance.now() - t;
        }
      }
      const rate = (x: number) => (6 * n) / (x / 1000);
      const ratio = rate(ms.chained) / rate(ms.plain);
      row(
        `PostgreSQL append, transactions of ${size}`,
        `${Math.round(rate(ms.chained))}/s`,
        '>= 0.5x plain',
        `plain ${Math.round(rate(ms.plain))}/s; chained ${fmt(ratio, 2)}x; ${verdict(ratio >= 0.5)}`,
      );
    }
  } finally {
    await database.close();
    await server.destroy();
  }
}

/** A plain row on PostgreSQL: the columns of before, the hash columns empty (the chain is not verified here). */
const plainPostgres = (e: NewAuditEntry) => ({ ...auditRow(e), prev_hash: '', hash: '' });
