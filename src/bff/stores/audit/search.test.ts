import { randomUUID } from 'node:crypto';
import { sql } from 'kysely';
import { describe, expect, it } from 'vitest';
import { auditEntry } from '../../test-support/audit-entry.ts';
import { databaseBackends } from '../../test-support/database-backends.ts';
import { type NewAuditEntry, SqlAuditStore } from './audit-store.ts';

/*
 * The Activity text filter served by an index (migration 0006: FTS5 trigram on SQLite, pg_trgm on PostgreSQL)
 * answers what the scan it replaces answered: a case-insensitive substring of the address asked or of the
 * property id, newest first, a page at a time, for texts of any length (one or two characters included, which
 * trigrams cannot hold), for entries appended by either path and never for entries retention removed.
 */

const backends = databaseBackends('audit-search');

/** What the filter promises, worked out in JS: the oracle every answer is compared with. */
const holds = (e: NewAuditEntry, text: string) =>
  [e.query, e.property_id].some((v) => v?.toLowerCase().includes(text.toLowerCase()));

/** A deterministic mix of addresses, ids and characters a filter may trip on (quotes, FTS5 syntax, wildcards). */
function trailOf(accountId: string, n: number): NewAuditEntry[] {
  const streets = [
    'Main St',
    'MAIN STREET',
    'Oak Dr',
    'Elm "Old" Rd',
    'Old Mill Rd',
    'NEAR(a b) Ave',
    'a_b Ct',
    '50% Way',
  ];
  return Array.from({ length: n }, (_, i) =>
    auditEntry({
      at: 1_700_000_000_000 + i,
      account_id: accountId,
      query: i % 11 === 5 ? null : `${(i * 37) % 1000} ${streets[i % streets.length]}, Springfield`,
      property_id: i % 3 === 0 ? null : `pi_${String((i * 7) % 500).padStart(4, '0')}`,
    }),
  );
}

const TEXTS = [
  'main st', // in many entries, both spellings
  'MAIN', // in any case
  '12', // two characters: no trigram
  '7',
  '_', // a wildcard of LIKE, as typed
  '%',
  '"Old"', // FTS5's phrase quote
  'near(a b', // FTS5's syntax
  'st, spring', // across a comma and a space
  'pi_0042',
  'i_00', // inside a property id
  'springfield, il', // in none
  'zz',
  'q', // in none, one character
];

describe.each(backends)('the Activity text filter on $name', (backend) => {
  it('answers as the substring it promises, newest first, a page at a time, for every kind of text', async () => {
    const accountId = `acct-${randomUUID()}`;
    const store = new SqlAuditStore(backend.database.db, backend.database.sqlite);
    const entries = trailOf(accountId, 400);
    // Another account's entries hold the same texts: never shown.
    await store.append([...trailOf(`other-${randomUUID()}`, 100), ...entries]);
    for (const text of TEXTS) {
      const expected = entries
        .filter((e) => holds(e, text))
        .map((e) => e.at)
        .reverse();
      const seen: number[] = [];
      let before: number | null = null;
      for (;;) {
        const page = await store.page(accountId, { text }, before, 50);
        seen.push(...page.map((e) => Date.parse(e.at)));
        if (page.length < 50) break;
        before = Number(page.at(-1)?.id);
      }
      expect(seen, text).toEqual(expected);
    }
    // With the other filters beside it.
    const notFound = await store.page(accountId, { text: 'oak dr', outcome: 'not_found' }, null, 50);
    expect(notFound).toEqual([]);
    const inRange = await store.page(
      accountId,
      { text: 'oak dr', from: 1_700_000_000_100, to: 1_700_000_000_200 },
      null,
      500,
    );
    expect(inRange.map((e) => Date.parse(e.at))).toEqual(
      entries
        .filter((e) => holds(e, 'oak dr') && e.at >= 1_700_000_000_100 && e.at < 1_700_000_000_200)
        .map((e) => e.at)
        .reverse(),
    );
  });

  it('finds entries appended by each path, and forgets those retention removed', async () => {
    const accountId = `acct-${randomUUID()}`;
    const db = backend.database.db;
    // The writer's prepared statement on the embedded file, and Kysely's insert (PostgreSQL, or a transaction).
    const prepared = new SqlAuditStore(db, backend.database.sqlite);
    const kysely = new SqlAuditStore(db);
    const at = Date.now();
    await prepared.append([auditEntry({ at, account_id: accountId, query: '12 Quincy Ln, Dover' })]);
    await kysely.append([auditEntry({ at, account_id: accountId, query: '14 Quincy Ln, Dover' })]);
    await kysely.append([auditEntry({ at: 1_000, account_id: accountId, query: '16 Quincy Ln, Dover' })]);
    const asked = async (text: string) =>
      (await kysely.page(accountId, { text }, null, 10)).map((e) => e.query);
    expect(await asked('quincy ln')).toEqual([
      '16 Quincy Ln, Dover',
      '14 Quincy Ln, Dover',
      '12 Quincy Ln, Dover',
    ]);
    expect(await kysely.deleteOlderThan(2_000)).toBeGreaterThanOrEqual(1);
    expect(await asked('quincy ln')).toEqual(['14 Quincy Ln, Dover', '12 Quincy Ln, Dover']);
    if (backend.name === 'SQLite') {
      // The index holds the removed entry no more (a stale id would be read, and skipped, by every search).
      const { rows } = await sql<{ n: number }>`select count(*) as n from audit_search
        where audit_search match '"16 quincy"'`.execute(db);
      expect(rows[0]?.n).toBe(0);
    }
  });

  it.runIf(backend.name === 'SQLite')(
    'reads the trigram index, newest first, for a text of three characters or more',
    async () => {
      const { db, sqlite } = backend.database;
      if (!sqlite) throw new Error('the embedded file');
      // The statements the store sends, each read back through the database's own plan.
      const plans: string[][] = [];
      const store = new SqlAuditStore(
        db.withPlugin({
          transformQuery: (args) => {
            const { sql: text, parameters } = db.getExecutor().compileQuery(args.node, args.queryId);
            if (text.startsWith('select'))
              plans.push(
                sqlite
                  .prepare(`explain query plan ${text}`)
                  .all(...parameters)
                  .map((r) => (r as { detail: string }).detail),
              );
            return args.node;
          },
          transformResult: async (args) => args.result,
        }),
      );
      await store.page('acct', { text: 'main st' }, 1_000, 100);
      await store.page('acct', { text: 'ma' }, null, 100);
      const [long, short] = plans;
      // The index gives the ids newest first (no sort of what it found), each entry read by its id.
      expect(long?.[0]).toMatch(/^SCAN s VIRTUAL TABLE INDEX/);
      expect(long?.slice(1)).toEqual(['SEARCH audit_entries USING INTEGER PRIMARY KEY (rowid=?)']);
      // Two characters: the account's entries newest first, until the page is full.
      expect(short).toEqual(['SEARCH audit_entries USING INDEX audit_by_account (account_id=?)']);
    },
  );
});
