import { randomUUID } from 'node:crypto';
import { setImmediate } from 'node:timers/promises';
import { sql } from 'kysely';
import { describe, expect, it, vi } from 'vitest';
import { createAuditTrail } from '../../audit/audit-trail.ts';
import { migrationsFor } from '../../db/migrations.ts';
import { createLogger } from '../../logger.ts';
import { auditEntry } from '../../test-support/audit-entry.ts';
import { databaseBackends } from '../../test-support/database-backends.ts';
import { type NewAuditEntry, SqlAuditStore } from './audit-store.ts';
import { fold } from './search-text.ts';

/*
 * The Activity text filter served by an index (migrations 0006, 0007: FTS5 trigram on SQLite, pg_trgm on
 * PostgreSQL) answers what the scan it replaces answered: a case-insensitive substring of the address asked or of
 * the property id, newest first, a page at a time, for texts of any length (one or two characters included, which
 * trigrams cannot hold), for entries appended by either path and never for entries retention removed. Case is
 * folded by one rule (search-text.ts) for all of Unicode, the same on both databases. On SQLite the index follows
 * the trail (SqlAuditStore.follow, run by the trail every second), so every case holds with none, part or all of
 * the trail indexed: what the index does not hold yet is read without it.
 */

const backends = databaseBackends('audit-search');

/** What the filter promises, worked out in JS: the oracle every answer is compared with. */
const holds = (e: NewAuditEntry, text: string) =>
  [e.query, e.property_id].some((v) => v !== null && fold(v).includes(fold(text)));

/** The follower's passes until it has caught up with the trail; how many entries they passed over. */
async function caughtUp(store: SqlAuditStore, max?: number): Promise<number> {
  let passed = 0;
  for (let pass = 0; pass < 1_000; pass++) {
    const n = await store.follow(max);
    if (n === 0) return passed;
    passed += n;
  }
  throw new Error('the follower never caught up');
}

/** What `read` gives once the event loop has turned a few times (the work a timer started has run). */
async function settled<T>(read: () => Promise<T>): Promise<T> {
  for (let i = 0; i < 10; i++) await setImmediate();
  return read();
}

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
    // Upper and lower case beyond ASCII, and a text typed decomposed (NFD): e and a combining acute accent.
    'ÉTÉ RUE',
    'Rue de l’été',
    'Re\u0301publique Ave',
    'Große Straße',
    'GROSSE STRASSE',
    'İSTANBUL Cd',
    'ΟΔΟΣ ΑΘΗΝΑΣ',
    'УЛИЦА ЛЕНИНА',
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
  'été', // beyond ASCII, in any case, three, two and one characters
  'ÉT',
  'É',
  'e\u0301te\u0301 rue', // decomposed, found composed (and the other way round)
  'république',
  'ß', // one character, folded to two: ss
  'STRASSE',
  'straße',
  'istanbul', // İ: found by an i
  'İ',
  'οδοσ', // Greek: the final sigma as the middle one
  'ΟΔΟΣ Α',
  'ΑΘ',
  'улица ленина', // Cyrillic
  'ЛЕ',
  'Л',
  'ete', // accents kept: in none
];

describe.each(backends)('the Activity text filter on $name', (backend) => {
  /** On SQLite, how many entries the trigram index holds for an FTS5 query (PostgreSQL: its indexes are its own). */
  const indexed = async (match: string): Promise<number | undefined> => {
    if (backend.name !== 'SQLite') return undefined;
    const { rows } = await sql<{ n: number }>`select count(*) as n from audit_search
      where audit_search match ${match}`.execute(backend.database.db);
    return rows[0]?.n;
  };

  it('answers as the substring it promises, newest first, a page at a time, for every kind of text', async () => {
    const accountId = `acct-${randomUUID()}`;
    const store = new SqlAuditStore(backend.database.db, backend.database.sqlite);
    const entries = trailOf(accountId, 400);
    await caughtUp(store);
    // Another account's entries hold the same texts: never shown.
    await store.append([...trailOf(`other-${randomUUID()}`, 100), ...entries]);
    const answers = async () => {
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
    };
    // None of them indexed yet; then the index's mark among this account's entries (pages read across it); all.
    await answers();
    await store.follow(250);
    await answers();
    await caughtUp(store);
    await answers();
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

  it('finds an entry by its text the moment it is committed, by either path, and forgets those retention removed', async () => {
    const accountId = `acct-${randomUUID()}`;
    const db = backend.database.db;
    // The writer's prepared statement on the embedded file, and Kysely's insert (PostgreSQL, or a transaction).
    const prepared = new SqlAuditStore(db, backend.database.sqlite);
    const kysely = new SqlAuditStore(db);
    const at = Date.now();
    await caughtUp(prepared);
    const asked = async (text: string) =>
      (await kysely.page(accountId, { text }, null, 10)).map((e) => e.query);
    // The follower has not run: found at once all the same.
    await prepared.append([auditEntry({ at, account_id: accountId, query: '12 Quincy Ln, Dover' })]);
    expect(await asked('quincy ln')).toEqual(['12 Quincy Ln, Dover']);
    await kysely.append([auditEntry({ at, account_id: accountId, query: '14 Quincy Ln, Dover' })]);
    await kysely.append([auditEntry({ at: 1_000, account_id: accountId, query: '16 Quincy Ln, Dover' })]);
    const all = ['16 Quincy Ln, Dover', '14 Quincy Ln, Dover', '12 Quincy Ln, Dover'];
    expect(await asked('quincy ln')).toEqual(all);
    // Found from the index once the follower ran (and only once: the index and the tail do not overlap).
    await caughtUp(kysely);
    if (backend.name === 'SQLite') expect(await indexed('"quincy ln"')).toBe(3);
    expect(await asked('quincy ln')).toEqual(all);
    // Retention (the trail's oldest entries, a start of the chain), of indexed entries and of one not indexed yet.
    await kysely.append([auditEntry({ at, account_id: accountId, query: '18 Quincy Ln, Dover' })]);
    expect(await asked('quincy ln')).toEqual(['18 Quincy Ln, Dover', ...all]);
    expect(await kysely.deleteOlderThan(at + 1)).toBeGreaterThanOrEqual(4);
    expect(await asked('quincy ln')).toEqual([]);
    await caughtUp(kysely);
    expect(await asked('quincy ln')).toEqual([]);
    // The index holds the removed entries no more (a stale id would be read, and skipped, by every search).
    if (backend.name === 'SQLite') {
      expect(await indexed('"16 quincy"')).toBe(0);
      expect(await indexed('"18 quincy"')).toBe(0);
    }
  });

  it('finds text beyond ASCII in any case, the moment it is written and the same once indexed', async () => {
    const accountId = `acct-${randomUUID()}`;
    const db = backend.database.db;
    const prepared = new SqlAuditStore(db, backend.database.sqlite);
    const kysely = new SqlAuditStore(db);
    await caughtUp(prepared);
    const entry = (query: string, property_id: string | null = null) =>
      auditEntry({ account_id: accountId, query, property_id });
    // By the writer's prepared statement and by Kysely's insert; one written decomposed (NFD).
    await prepared.append([
      entry('ÉTÉ RUE XYZ'),
      entry('GROẞE STRAẞE 3QX'),
      entry('İSTANBUL CD 4'),
      entry('E\u0301TE\u0301 BLVD'),
    ]);
    await kysely.append([entry('ΟΔΟΣ ΑΘΗΝΑΣ 9'), entry('УЛИЦА ЛЕНИНА 7', 'ПИ_Ж1'), entry('Main St')]);
    // What each text finds, newest first: written out, not worked out by the rule under test.
    const expected: [string, string[]][] = [
      ['ÉTÉ RUE XYZ', ['ÉTÉ RUE XYZ']], // as typed
      ['été', ['E\u0301TE\u0301 BLVD', 'ÉTÉ RUE XYZ']], // lower case, composed: finds the decomposed too
      ['e\u0301te\u0301 b', ['E\u0301TE\u0301 BLVD']],
      ['ÉT', ['E\u0301TE\u0301 BLVD', 'ÉTÉ RUE XYZ']], // two characters
      ['é', ['E\u0301TE\u0301 BLVD', 'ÉTÉ RUE XYZ']], // one
      ['ete', []], // accents kept
      ['grosse strasse', ['GROẞE STRAẞE 3QX']],
      ['straße', ['GROẞE STRAẞE 3QX']],
      ['ß', ['GROẞE STRAẞE 3QX']],
      ['istanbul', ['İSTANBUL CD 4']],
      ['İst', ['İSTANBUL CD 4']],
      ['i', ['Main St', 'İSTANBUL CD 4']],
      ['οδοσ αθ', ['ΟΔΟΣ ΑΘΗΝΑΣ 9']], // a final sigma typed where the text has a middle one
      ['ΟΔΟΣ', ['ΟΔΟΣ ΑΘΗΝΑΣ 9']],
      ['ας 9', ['ΟΔΟΣ ΑΘΗΝΑΣ 9']],
      ['ός', []],
      ['улица ленина', ['УЛИЦА ЛЕНИНА 7']],
      ['Ле', ['УЛИЦА ЛЕНИНА 7']],
      ['пи_ж', ['УЛИЦА ЛЕНИНА 7']], // the property id
      ['7пи', []], // never across the address and the property id
    ];
    const answers = async () => {
      for (const [text, queries] of expected)
        expect(
          (await kysely.page(accountId, { text }, null, 10)).map((e) => e.query),
          text,
        ).toEqual(queries);
    };
    await answers();
    await caughtUp(prepared);
    // Indexed folded: the decomposed entry composed, the sharp s as ss.
    if (backend.name === 'SQLite')
      for (const text of ['"été rue xyz"', '"été blvd"', '"strasse 3qx"', '"istanbul cd 4"'])
        expect(await indexed(text), text).toBe(1);
    await answers();
  });

  it.runIf(backend.name === 'SQLite')(
    'resumes a backlog where it stopped: across a pass that failed and a new process, every entry once',
    async () => {
      const { db, sqlite } = backend.database;
      const accountId = `acct-${randomUUID()}`;
      const first = new SqlAuditStore(db, sqlite);
      await caughtUp(first);
      // Some with an address, some a property id, some both, some neither (passed over, never indexed).
      const backlog = Array.from({ length: 1_000 }, (_, i) =>
        auditEntry({
          account_id: accountId,
          query: i % 4 < 2 ? `${i} Backlog Rd` : null,
          property_id: i % 4 === 1 || i % 4 === 2 ? `pb_${i}` : null,
        }),
      );
      await first.append(backlog);
      expect(await first.follow(300)).toBe(300);
      // The process dies in the middle of a pass (here: as it writes the property index, the text index written):
      // nothing of the pass is kept, the mark included, or those entries would never be indexed.
      await sql`create temp trigger dying before insert on idx.audit_property_ids
        begin select raise(abort, 'killed mid-pass'); end`.execute(db);
      await expect(first.follow(300)).rejects.toThrow('killed mid-pass');
      await sql`drop trigger temp.dying`.execute(db);
      // The next process, from the mark the first left: the other 700, each passed over once.
      const next = new SqlAuditStore(db, sqlite);
      expect(await caughtUp(next, 128)).toBe(700);
      expect(await indexed('"backlog rd"')).toBe(500);
      expect(await indexed('"pb_"')).toBe(500);
      const found = await next.page(accountId, { text: 'backlog rd' }, null, 2_000);
      expect(found.map((e) => e.query)).toEqual(
        backlog
          .map((e) => e.query)
          .filter((q) => q !== null)
          .reverse(),
      );
      expect(await next.page(accountId, { text: 'pb_' }, null, 2_000)).toHaveLength(500);
    },
  );

  it.runIf(backend.name === 'SQLite')(
    'is brought up to date by the trail every second from its start, and no more after its stop',
    async () => {
      vi.useFakeTimers({ toFake: ['setInterval', 'clearInterval'] });
      try {
        // On the main thread, as where no thread is started: the schedule is the same either way.
        const trail = createAuditTrail({
          database: backend.database,
          logger: createLogger('silent'),
          retentionDays: 0,
          followInThread: false,
        });
        await caughtUp(trail.store);
        const accountId = `acct-${randomUUID()}`;
        await trail.writer.record(auditEntry({ account_id: accountId, query: '1 Interval Way' }));
        trail.start();
        await vi.advanceTimersByTimeAsync(999);
        expect(await indexed('"interval way"')).toBe(0);
        await vi.advanceTimersByTimeAsync(1);
        expect(await settled(() => indexed('"interval way"'))).toBe(1);
        await trail.stop();
        // Stopped (SIGTERM): no pass any more. The entry is found all the same, and indexed at the next start.
        await trail.store.append([auditEntry({ account_id: accountId, query: '2 Interval Way' })]);
        await vi.advanceTimersByTimeAsync(5_000);
        expect(await settled(() => indexed('"interval way"'))).toBe(1);
        expect(await trail.store.page(accountId, { text: 'interval way' }, null, 10)).toHaveLength(2);
      } finally {
        vi.useRealTimers();
      }
    },
  );

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
      await store.page('acct', { text: 'main st' }, null, 100);
      await store.page('acct', { text: 'ma' }, null, 100);
      const [mark, tail, long, short] = plans;
      expect(mark).toEqual(['SCAN idx.audit_search_indexed']);
      // The few entries above the index's mark: the account's, by a range of ids.
      expect(tail).toEqual(['SEARCH audit_entries USING INDEX audit_by_account (account_id=? AND id>?)']);
      // The index gives the ids newest first (no sort of what it found), each entry read by its id.
      expect(long?.[0]).toMatch(/^SCAN s VIRTUAL TABLE INDEX/);
      expect(long?.slice(1)).toEqual(['SEARCH audit_entries USING INTEGER PRIMARY KEY (rowid=?)']);
      // Two characters: the account's entries newest first, until the page is full.
      expect(short).toEqual(['SEARCH audit_entries USING INDEX audit_by_account (account_id=?)']);
    },
  );

  it('folds the entries written before migration 0007, batch after batch, as it folds those written after', async () => {
    const { db, dialect } = backend.database;
    const accountId = `acct-${randomUUID()}`;
    const store = new SqlAuditStore(db, backend.database.sqlite);
    // More than a batch of the migration's (1,000), one in seven upper case beyond ASCII, some decomposed.
    const entries = Array.from({ length: 2_100 }, (_, i) =>
      auditEntry({
        account_id: accountId,
        query: i % 7 === 0 ? `${i} ÉTÉ STRAẞE` : i % 7 === 1 ? `${i} E\u0301te\u0301 Rd` : `${i} Main St`,
        property_id: i % 5 === 0 ? `ПИ_${i}` : null,
      }),
    );
    await store.append(entries);
    await caughtUp(store);
    // The trail as 0006 left it: no folded column, 0006's indexes.
    if (dialect === 'sqlite') {
      // (0024 since took these out of the database's file; they are made again for 0007 to replace.)
      await sql`alter table audit_entries drop column search_text`.execute(db);
      await sql`create virtual table main.audit_search using fts5(
        query, property_id, content = '', contentless_delete = 1, tokenize = 'trigram')`.execute(db);
      await sql`create table main.audit_search_indexed (last_id integer not null)`.execute(db);
      await sql`insert into main.audit_search_indexed (last_id) values (0)`.execute(db);
      await sql`create trigger audit_search_remove after delete on audit_entries
        when old.query is not null or old.property_id is not null
        begin delete from audit_search where rowid = old.id; end`.execute(db);
    } else {
      await sql`alter table audit_entries drop column search_text`.execute(db);
      for (const column of ['query', 'property_id'])
        await sql`create index ${sql.id(`audit_${column}_trgm`)} on audit_entries
          using gin (lower(${sql.ref(column)}) gin_trgm_ops)`.execute(db);
    }
    await migrationsFor(dialect)['0007-activity-search-text']?.up(db);
    await migrationsFor(dialect)['0024-audit-index-file']?.up(db);
    for (const text of ['été', 'ÉT', 'STRASSE', 'пи_2', 'main st']) {
      const expected = entries.filter((e) => holds(e, text)).map((e) => e.query);
      expect(expected.length, text).toBeGreaterThan(0);
      const found = await store.page(accountId, { text }, null, 5_000);
      expect(
        found.map((e) => e.query),
        text,
      ).toEqual(expected.reverse());
    }
  });
});
