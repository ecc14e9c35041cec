import { type Kysely, type Migration, PostgresAdapter, sql } from 'kysely';

/*
 * Migration 0021: on SQLite, the Activity list's property index follows the trail instead of being written with
 * each entry (issue 26, "The interactive path got slower"; docs/decisions/005-lean-hot-path.md). The index
 * `audit_by_property` (account, property, id) put each entry on a page of its own, one the answers' group commit
 * wrote to the WAL again for every group: 60-85 % of the cost of the commit every lookup's answer waits for
 * (bench/sections/proxies.ts). Its place is taken by `audit_property_ids`, the same three columns as a table
 * without rowid, which the trail's follower (SqlAuditStore.follow) fills in the pass that feeds the text filter's
 * index, up to the same mark (`audit_search_indexed.last_id`): a thousand entries a transaction, each page written
 * once. A filter by property reads the entries above the mark without it (the account's own, newest first: what
 * the follower has not reached, about a second's), so an entry is found the moment its lookup is answered.
 * Retention's deletes leave it by a trigger, as they leave the text index.
 * PostgreSQL keeps its index (it has no follower; its commit is not a page write per index).
 * In one transaction (Kysely's migrator opens none on SQLite): an upgrade that dies half-way leaves 0020's schema.
 */

// biome-ignore lint/suspicious/noExplicitAny: migrations run before, and regardless of, the typed schema
type Db = Kysely<any>;

export const auditPropertyFollows: Migration = {
  async up(db: Db) {
    if (db.getExecutor().adapter instanceof PostgresAdapter) return;
    await db.transaction().execute(async (trx) => {
      await sql`create table audit_property_ids (
        account_id text not null, property_id text not null, id integer not null,
        primary key (account_id, property_id, id)) without rowid`.execute(trx);
      // Every entry up to the mark, as the follower would have written them; those above it are the follower's.
      await sql`insert into audit_property_ids (account_id, property_id, id)
        select account_id, property_id, id from audit_entries
        where property_id is not null and id <= (select last_id from audit_search_indexed)`.execute(trx);
      await sql`drop index audit_by_property`.execute(trx);
      await sql`create trigger audit_property_remove after delete on audit_entries
        when old.property_id is not null
        begin
          delete from audit_property_ids
          where account_id = old.account_id and property_id = old.property_id and id = old.id;
        end`.execute(trx);
    });
  },
};
