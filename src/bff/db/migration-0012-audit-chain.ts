import { type Kysely, type Migration, PostgresAdapter, sql } from 'kysely';
import { type ChainedEntry, entryHash, GENESIS } from '../stores/audit/chain.ts';

/*
 * Migration 0012: the tamper-evident audit trail (issue 30; docs/decisions/014-evidence-formats.md).
 * - Each entry gets `prev_hash` and `hash` (stores/audit/chain.ts); the entries written so far are chained here,
 *   in id order, a batch at a time (one update a batch, no round trip a row).
 * - `audit_chain`: one row, where the chain starts (GENESIS; retention moves it) and, on PostgreSQL, the row each
 *   appending transaction locks, so replicas append one after another and the chain never forks.
 * - `audit_checkpoints`: signed statements of the chain's length and head; `slot` unique, so exactly one replica
 *   writes the hour's.
 * - `evidence_keys`: the public keys they are signed with, current and retired.
 * On SQLite in one transaction (Kysely's migrator opens none there): an upgrade that dies half-way leaves 0011's
 * schema, and the next start runs this again.
 */

// biome-ignore lint/suspicious/noExplicitAny: migrations run before, and regardless of, the typed schema
type Db = Kysely<any>;

/** Entries chained per update (three parameters each: well within either database's limit). */
const CHAIN_BATCH = 2_000;

export const auditChain: Migration = {
  async up(db: Db) {
    if (db.getExecutor().adapter instanceof PostgresAdapter) return chainTrail(db, true);
    await db.transaction().execute((trx) => chainTrail(trx, false));
  },
};

async function chainTrail(db: Db, postgres: boolean) {
  await db.schema.alterTable('audit_entries').addColumn('prev_hash', 'text').execute();
  await db.schema.alterTable('audit_entries').addColumn('hash', 'text').execute();
  await db.schema
    .createTable('audit_chain')
    .addColumn('id', 'integer', (c) => c.primaryKey())
    .addColumn('base_id', 'bigint', (c) => c.notNull())
    .addColumn('base_hash', 'text', (c) => c.notNull())
    .addColumn('base_count', 'bigint', (c) => c.notNull())
    .execute();
  await db
    .insertInto('audit_chain')
    .values({ id: 1, base_id: 0, base_hash: GENESIS, base_count: 0 })
    .execute();
  await db.schema
    .createTable('audit_checkpoints')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('slot', 'text', (c) => c.notNull().unique())
    .addColumn('at', 'bigint', (c) => c.notNull())
    .addColumn('entries', 'bigint', (c) => c.notNull())
    .addColumn('head_id', 'bigint', (c) => c.notNull())
    .addColumn('head_hash', 'text', (c) => c.notNull())
    .addColumn('key_id', 'text', (c) => c.notNull())
    .addColumn('signature', 'text', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('audit_checkpoints_by_time').on('audit_checkpoints').column('at').execute();
  await db.schema
    .createTable('evidence_keys')
    .addColumn('key_id', 'text', (c) => c.primaryKey())
    .addColumn('public_jwk', 'text', (c) => c.notNull())
    .addColumn('valid_from', 'bigint', (c) => c.notNull())
    .addColumn('valid_to', 'bigint')
    .execute();
  let prev = GENESIS;
  for (let after = 0; ; ) {
    const rows = (await db
      .selectFrom('audit_entries')
      .selectAll()
      .where('id', '>', after)
      .orderBy('id')
      .limit(CHAIN_BATCH)
      .execute()) as ChainedEntry[];
    const last = rows.at(-1);
    if (last === undefined) break;
    after = Number(last.id);
    const values = rows.map((r) => {
      const row = { ...r, prev_hash: prev };
      const hash = entryHash(row);
      const value = sql`(${Number(r.id)}, ${prev}, ${hash})`;
      prev = hash;
      return value;
    });
    await (postgres
      ? sql`update audit_entries as a set prev_hash = v.p, hash = v.h
          from (values ${sql.join(values)}) as v(id, p, h) where a.id = v.id::bigint`
      : sql`update audit_entries set prev_hash = v.column2, hash = v.column3
          from (values ${sql.join(values)}) as v where audit_entries.id = v.column1`
    ).execute(db);
  }
}
