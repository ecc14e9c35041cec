import { randomUUID } from 'node:crypto';
import { type Kysely, type Migration, Migrator, sql } from 'kysely';
import { describe, expect, it } from 'vitest';
import { migrationsFor } from '../../db/migrations.ts';
import { auditEntry } from '../../test-support/audit-entry.ts';
import { databaseBackends } from '../../test-support/database-backends.ts';
import { tempDatabaseEach } from '../../test-support/temp-database.ts';
import { type NewAuditEntry, SqlAuditStore } from './audit-store.ts';

/*
 * The Activity list filtered by property (GET /api/audit?propertyId=) answers what it did while an index on the
 * entries served it: every entry of the account with that property, newest first, a page at a time, the moment
 * its lookup is answered. On SQLite that index now follows the trail (migration 0021: the follower fills
 * audit_property_ids up to its mark, off the commit every answer waits for), so each case holds with none, part
 * or all of the trail followed; on PostgreSQL the index is the entries' own, as before.
 */

const backends = databaseBackends('audit-property');

/** The follower's passes until it has caught up. */
async function caughtUp(store: SqlAuditStore, max?: number): Promise<void> {
  for (let pass = 0; pass < 1_000; pass++) if ((await store.follow(max)) === 0) return;
  throw new Error('the follower never caught up');
}

function trailOf(accountId: string, n: number, start = 0): NewAuditEntry[] {
  return Array.from({ length: n }, (_, k) => {
    const i = start + k;
    return auditEntry({
      at: 1_700_000_000_000 + i,
      account_id: accountId,
      query: `${i} Main St`,
      outcome: i % 4 === 0 ? 'not_found' : 'matched',
      property_id: i % 5 === 0 ? null : `pi_${i % 7}`,
    });
  });
}

/** Every entry of the property, newest first, read page after page (what the Activity list and its export do). */
async function byProperty(store: SqlAuditStore, accountId: string, propertyId: string, outcome?: string) {
  const seen: string[] = [];
  let before: number | null = null;
  for (;;) {
    const page = await store.page(accountId, { propertyId, ...(outcome ? { outcome } : {}) }, before, 20);
    seen.push(...page.map((e) => e.query ?? ''));
    if (page.length < 20) return seen;
    before = Number(page.at(-1)?.id);
  }
}

const expected = (entries: NewAuditEntry[], propertyId: string, outcome?: string) =>
  entries
    .filter((e) => e.property_id === propertyId && (!outcome || e.outcome === outcome))
    .map((e) => e.query)
    .reverse();

describe.each(backends)('the Activity list by property on $name', (backend) => {
  it('finds every entry of a property the moment it is committed, with none, part or all of the trail followed', async () => {
    const accountId = `acct-${randomUUID()}`;
    const store = new SqlAuditStore(backend.database.db, backend.database.sqlite);
    await caughtUp(store);
    const entries = trailOf(accountId, 300);
    // Another account's entries hold the same property ids: never shown.
    await store.append([...trailOf(`other-${randomUUID()}`, 50), ...entries]);
    const answers = async () => {
      for (const p of ['pi_0', 'pi_3', 'pi_6', 'pi_9'])
        expect(await byProperty(store, accountId, p), p).toEqual(expected(entries, p));
      expect(await byProperty(store, accountId, 'pi_3', 'not_found')).toEqual(
        expected(entries, 'pi_3', 'not_found'),
      );
      // With a text beside it, of one character (no trigram) and of more.
      const page = await store.page(accountId, { propertyId: 'pi_2', text: '9 main' }, null, 500);
      expect(page.map((e) => e.query)).toEqual(
        expected(entries, 'pi_2').filter((q) => q?.includes('9 Main')),
      );
      const search = await store.search(accountId, { propertyId: 'pi_2', text: '9' }, null, 500);
      expect(search.entries.map((e) => e.query)).toEqual(
        expected(entries, 'pi_2').filter((q) => q?.includes('9')),
      );
    };
    await answers();
    await store.follow(170); // the mark among this account's entries: pages read across it
    await answers();
    await caughtUp(store);
    await answers();
    // Appended after the follower's last pass: found at once, before the entries it followed.
    const later = trailOf(accountId, 10, 300);
    await store.append(later);
    entries.push(...later);
    await answers();
  });

  it('forgets the entries retention removed, followed or not', async () => {
    const accountId = `acct-${randomUUID()}`;
    const store = new SqlAuditStore(backend.database.db, backend.database.sqlite);
    await caughtUp(store);
    const at = Date.now();
    const entry = (query: string) => auditEntry({ at, account_id: accountId, query, property_id: 'pi_gone' });
    await store.append([entry('followed')]);
    await caughtUp(store);
    await store.append([entry('not followed')]);
    expect(await byProperty(store, accountId, 'pi_gone')).toEqual(['not followed', 'followed']);
    expect(await store.deleteOlderThan(at + 1)).toBeGreaterThanOrEqual(2);
    await caughtUp(store);
    expect(await byProperty(store, accountId, 'pi_gone')).toEqual([]);
    if (backend.name === 'SQLite') {
      const { rows } = await sql<{ n: number }>`select count(*) as n from audit_property_ids
        where account_id = ${accountId}`.execute(backend.database.db);
      expect(rows[0]?.n).toBe(0);
    }
  });
});

describe('migration 0024 on SQLite', () => {
  const temp = tempDatabaseEach('0024');
  it('takes the indexes out of the database file, and the index file is filled from the trail’s first entry', async () => {
    // A database as the release before 0024 left it: its indexes in its own file, the follower's mark part-way.
    const database = temp.database;
    const db = database.db as Kysely<unknown>;
    await sql`create table main.audit_property_ids (
      account_id text not null, property_id text not null, id integer not null,
      primary key (account_id, property_id, id)) without rowid`.execute(db);
    await sql`create virtual table main.audit_search using fts5(
      search_text, content = '', contentless_delete = 1, tokenize = 'trigram case_sensitive 1')`.execute(db);
    await sql`create table main.audit_search_indexed (last_id integer not null)`.execute(db);
    await sql`create trigger main.audit_property_remove after delete on audit_entries
      begin delete from audit_property_ids where id = old.id; end`.execute(db);
    await sql`delete from kysely_migration where name = '0024-audit-index-file'`.execute(db);
    const accountId = `acct-${randomUUID()}`;
    const entries = trailOf(accountId, 60);
    await new SqlAuditStore(database.db).append(entries);
    await sql`insert into main.audit_search_indexed (last_id) select max(id) - 15 from audit_entries`.execute(
      db,
    );
    const all = migrationsFor('sqlite');
    const migrator = new Migrator({
      db,
      provider: { getMigrations: async (): Promise<Record<string, Migration>> => all },
    });
    const { error } = await migrator.migrateToLatest();
    expect(error).toBeUndefined();
    const { rows } = await sql<{ name: string }>`select name from main.sqlite_master
      where name like 'audit_search%' or name like 'audit_property%'`.execute(db);
    expect(rows).toEqual([]);
    // Found before the index file holds any of them (read from the trail), and after.
    const store = new SqlAuditStore(database.db, database.sqlite);
    for (const p of ['pi_1', 'pi_4'])
      expect(await byProperty(store, accountId, p), p).toEqual(expected(entries, p));
    await caughtUp(store);
    for (const p of ['pi_1', 'pi_4'])
      expect(await byProperty(store, accountId, p), p).toEqual(expected(entries, p));
    const held = await sql<{ n: number }>`select count(*) as n from idx.audit_property_ids`.execute(db);
    expect(held.rows[0]?.n).toBe(entries.filter((e) => e.property_id !== null).length);
  });
});
