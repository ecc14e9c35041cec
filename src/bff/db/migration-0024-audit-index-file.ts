import { type Kysely, type Migration, PostgresAdapter, sql } from 'kysely';

/*
 * Migration 0024: on SQLite, the Activity filter's indexes leave the database's own file for one of their own,
 * `audit-index.db`, which the trail's follower fills off the main thread (stores/audit/search-index.ts, ADR 016).
 * Filled on the main connection, a pass of a thousand entries held the event loop 10-20 ms and took a fifth of a
 * cached lookup's CPU (issue 26); filled by a worker in the same file, its transactions would hold the write lock
 * every answer's commit waits for. The tables 0006, 0007 and 0021 made here go, with the triggers that kept them
 * through retention (the follower now follows retention's mark). The new file starts empty and is filled from the
 * trail's first entry; until it has caught up, the filters read the entries above its mark from the trail itself.
 * PostgreSQL keeps its indexes (it has no follower).
 * In one transaction (Kysely's migrator opens none on SQLite): an upgrade that dies half-way leaves 0023's schema.
 */

// biome-ignore lint/suspicious/noExplicitAny: migrations run before, and regardless of, the typed schema
type Db = Kysely<any>;

export const auditIndexFile: Migration = {
  async up(db: Db) {
    if (db.getExecutor().adapter instanceof PostgresAdapter) return;
    await db.transaction().execute(async (trx) => {
      await sql`drop trigger if exists main.audit_search_remove`.execute(trx);
      await sql`drop trigger if exists main.audit_property_remove`.execute(trx);
      await sql`drop table if exists main.audit_search`.execute(trx);
      await sql`drop table if exists main.audit_property_ids`.execute(trx);
      await sql`drop table if exists main.audit_search_indexed`.execute(trx);
    });
  },
};
