import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sql } from 'kysely';
import { type Database, openDatabase } from '../../src/bff/db/database.ts';
import { migrationsFor } from '../../src/bff/db/migrations.ts';
import {
  type AuditPage,
  FOLLOW_BATCH,
  type NewAuditEntry,
  SqlAuditStore,
} from '../../src/bff/stores/audit/audit-store.ts';
import { PostgresServer, postgresAvailable } from '../../src/bff/test-support/postgres-process.ts';
import { csvCell } from '../../src/contract/index.ts';
import { row, verdict } from '../support.ts';

/**
 * The audit trail at 1,000,000 entries (embedded SQLite): the Activity page's first page and the text filter at
 * the store, found and not found (targets ≤ 100 ms), with the trigram index caught up and with a backlog it has
 * not indexed yet; the follower that indexes the trail (its rate and its longest pass); the index's cost on the
 * append path, off it (the follower) against in it (0006's first trigger); the CSV export's rate (target ≥ 20,000
 * rows/s); how long migration 0007 takes over the trail. Then, where PostgreSQL is installed, what its pg_trgm GIN
 * index costs an append.
 */
export async function benchAudit(entries = Number(process.env.BENCH_AUDIT_ENTRIES ?? 1_000_000)) {
  console.log(`\nAudit trail — ${entries.toLocaleString('en-US')} entries, embedded SQLite`);
  const dir = mkdtempSync(join(tmpdir(), 'proplens-bench-audit-'));
  const database = await openDatabase({ dir });
  try {
    // The embedded writer's path: its prepared statement. The index follows, as the trail's follower does it.
    const store = new SqlAuditStore(database.db, database.sqlite);
    await fill(store, entries);
    await catchUp(store, entries);
    await pages(store);
    await backlog(store);
    await exportRate(store);
    await appendCost(store, database.db);
    await upgrade(database.db);
  } finally {
    await database.close();
    rmSync(dir, { recursive: true, force: true });
  }
  if (postgresAvailable()) {
    await postgresAppendCost();
    await postgresPages(entries);
  } else row('PostgreSQL: not installed', '', '', 'its GIN index not measured');
}

const ENTRY: NewAuditEntry = {
  at: 0,
  account_id: 'bench-account',
  key_fingerprint: '9b8a7c6d',
  session_ref: 'sess',
  kind: 'resolve',
  query: null,
  outcome: 'matched',
  property_id: null,
  source: 'Sangamon County Assessor',
  confidence: 'high',
  last_verified: '2026-01-02',
  cached: 0,
  cached_at: null,
  upstream_request_id: null,
  review_id: null,
  row_index: null,
};

/**
 * The bench's i-th lookup at `at`: one account's (a tenth another's), two keys, 5,000 addresses, 50,000 properties.
 * The evidence section's entries are these, as review rows (`over`).
 */
export const benchEntry = (i: number, at: number, over: Partial<NewAuditEntry> = {}): NewAuditEntry => ({
  at,
  account_id: i % 10 === 0 ? 'other-account' : 'bench-account',
  key_fingerprint: i % 3 === 0 ? '3f9a1c2e' : '9b8a7c6d',
  session_ref: 'sess',
  kind: 'resolve',
  query: `${i % 5000} Main St, Springfield, IL`,
  outcome: i % 7 === 0 ? 'not_found' : 'matched',
  property_id: `P${i % 50_000}`,
  source: 'Sangamon County Assessor',
  confidence: 'high',
  last_verified: '2026-01-02',
  cached: i % 2,
  cached_at: null,
  upstream_request_id: null,
  review_id: null,
  row_index: null,
  ...over,
});

/** One account's lookups (and a tenth another's), written in batches as the trail's writer does. */
async function fill(store: SqlAuditStore, entries: number) {
  const start = Date.now() - entries * 1_000;
  const batch: NewAuditEntry[] = [];
  const filled = performance.now();
  for (let i = 0; i < entries; i++) {
    batch.push(benchEntry(i, start + i * 1_000));
    if (batch.length === 5_000) await store.append(batch.splice(0));
  }
  await store.append(batch.splice(0));
  row(
    'entries written (batches of 5,000)',
    `${Math.round(entries / ((performance.now() - filled) / 1000))}/s`,
  );
}

/** The follower from nothing to the whole trail, pass after pass: its rate and how long its longest pass took. */
async function catchUp(store: SqlAuditStore, entries: number) {
  const t = performance.now();
  let longest = 0;
  let passed = 0;
  for (;;) {
    const p = performance.now();
    const n = await store.follow();
    longest = Math.max(longest, performance.now() - p);
    passed += n;
    if (n < FOLLOW_BATCH) break;
  }
  if (passed !== entries) throw new Error(`the follower passed ${passed} of ${entries} entries`);
  row(
    `index caught up, passes of ${FOLLOW_BATCH.toLocaleString('en-US')}`,
    `${Math.round(passed / ((performance.now() - t) / 1000))} entries/s`,
    '',
    `longest pass ${longest.toFixed(1)} ms (the event loop held; let go between passes)`,
  );
}

/**
 * The text filter with a backlog the follower has not indexed yet, read without the index: 5,000 entries (a
 * second or two of the busiest trail) appended after the fill, found at once. Then indexed.
 */
async function backlog(store: SqlAuditStore) {
  const start = Date.now();
  await store.append(
    Array.from({ length: 5_000 }, (_, i) => ({
      ...ENTRY,
      at: start + i,
      query: `${i} Backlog Rd, Springfield, IL`,
      property_id: `B${i}`,
    })),
  );
  for (const [label, filters] of [
    ['+5,000 unindexed: on 1 of them "4321 backlog"', { text: '4321 backlog' }],
    ['+5,000 unindexed: "main st" (on the indexed)', { text: 'main st' }],
    ['+5,000 unindexed: text on no entry', { text: 'no such address' }],
  ] as const) {
    const ms = await median(() => store.search('bench-account', filters, null, 100));
    row(label, `${ms.toFixed(1)} ms`, '<= 100 ms', verdict(ms <= 100));
  }
  while ((await store.follow()) > 0);
}

/** The median of five runs, in ms. */
async function median<T>(work: () => Promise<T>): Promise<number> {
  return (await timed(work)).median;
}

/** Five runs: the median and the slowest, in ms. */
async function timed<T>(work: () => Promise<T>): Promise<{ median: number; slowest: number }> {
  const runs: number[] = [];
  for (let i = 0; i < 5; i++) {
    const t = performance.now();
    await work();
    runs.push(performance.now() - t);
  }
  runs.sort((a, b) => a - b);
  return { median: runs[2] as number, slowest: runs[4] as number };
}

/**
 * The Activity page's first page, and text filters, as the API reads them (SqlAuditStore.search: bounded work per
 * page), each the median of five, in ms, and the slowest of the five. Every entry reads "<n> Main St, Springfield,
 * IL" (n < 5,000) with a property id "P<m>" (m < 50,000), nine in ten of this account. A text no index narrows
 * (the last four) stops at its budget and says how far back it searched: the note gives how many entries one
 * page searched, and what reading the whole trail for it costs (page(), the export's path, once).
 */
async function pages(store: SqlAuditStore) {
  const newest = Number((await store.page('bench-account', {}, null, 1))[0]?.id ?? 0);
  for (const [label, filters, whole] of [
    ['first page of /activity (100 entries)', {}, false],
    ['text on every entry: "main st"', { text: 'main st' }, false],
    ['text on 1 in 5,000 entries: "4999 main"', { text: '4999 main' }, false],
    ['a property id on 1 in 50,000: "p49999"', { text: 'p49999' }, false],
    ['text on no entry: "no such address"', { text: 'no such address' }, false],
    ['2 characters, on most entries: "99"', { text: '99' }, false],
    ['on none, each trigram on every entry', { text: 'springfield, springfield' }, true],
    ['on none, trigrams on 1 in 50+: "p49 main"', { text: 'p49 main' }, true],
    ['2 characters, on none: "zq" (no trigram)', { text: 'zq' }, true],
    ['1 character, on none: "#"', { text: '#' }, false],
  ] as const) {
    let page: AuditPage | undefined;
    const { median: ms, slowest } = await timed(async () => {
      page = await store.search('bench-account', filters, null, 100);
    });
    const note =
      page?.searchedBackTo != null
        ? `found ${page.entries.length}, searched back ${(newest - (page.next ?? 0)).toLocaleString('en-US')} entries`
        : `found ${page?.entries.length ?? 0}${page?.next == null ? ', all searched' : ''}`;
    row(
      label,
      `${ms.toFixed(1)} ms`,
      '<= 100 ms',
      `${verdict(ms <= 100)} (slowest ${slowest.toFixed(1)}); ${note}`,
    );
    if (!whole) continue;
    const t = performance.now();
    await store.page('bench-account', filters, null, 100);
    row(
      '  the same, the whole trail read (export)',
      `${(performance.now() - t).toFixed(0)} ms`,
      '',
      'once, before: what such a page cost',
    );
  }
}

/**
 * What the trigram index costs an append: entries appended in transactions of 20 (a busy group commit), the
 * answer's commit alone with the follower indexing them afterwards, against the trigger 0006 first had (the index
 * written in the answer's commit); rounds interleaved, µs per entry.
 */
async function appendCost(store: SqlAuditStore, db: Database['db']) {
  // A temporary trigger: the only kind that may write the attached index file (ADR 016).
  const trigger = sql`create temp trigger audit_search_append after insert on main.audit_entries
    when new.search_text is not null
    begin
      insert into audit_search (rowid, search_text) values (new.id, new.search_text);
    end`;
  const us = { trigger: 0, commit: 0, follower: 0 };
  const n = 5_000;
  const rounds = 6;
  for (let round = 0; round < rounds; round++) {
    const inCommit = round % 2 === 0;
    if (inCommit) await trigger.execute(db);
    let t = performance.now();
    for (let i = 0; i < n; i += 20)
      await store.append(
        Array.from({ length: 20 }, (_, j) => ({
          ...ENTRY,
          at: Date.now(),
          query: `${(i + j) % 5000} Elm St, Springfield, IL`,
          property_id: `P${round}${i + j}`,
        })),
      );
    us[inCommit ? 'trigger' : 'commit'] += ((performance.now() - t) * 1000) / ((rounds / 2) * n);
    if (inCommit) {
      // The trigger indexed them: the mark moves past them as the follower would have.
      await sql`drop trigger temp.audit_search_append`.execute(db);
      // The mark and the hash of the entry it names (search-index.ts ties the index to its trail by it).
      await sql`update idx.audit_search_indexed set last_id = (select max(id) from audit_entries),
        last_hash = (select hash from audit_entries order by id desc limit 1)`.execute(db);
      continue;
    }
    t = performance.now();
    while ((await store.follow()) > 0);
    us.follower += ((performance.now() - t) * 1000) / ((rounds / 2) * n);
  }
  const ratio = us.commit / us.trigger;
  row(
    "append (tx of 20), the answer's commit",
    `${us.commit.toFixed(1)} µs/entry`,
    "<= 0.5x 0006's trigger",
    `${verdict(ratio <= 0.5)}: with the trigger ${us.trigger.toFixed(1)} µs/entry (${ratio.toFixed(2)}x)`,
  );
  row(
    "the follower's indexing, off that path",
    `${us.follower.toFixed(1)} µs/entry`,
    '',
    `commit + follower ${(us.commit + us.follower).toFixed(1)} µs/entry of CPU in all`,
  );
}

/**
 * Migration 0007 over the whole trail, as an upgrade runs it: every entry's search text folded in JS and written
 * back, then the trigram index made again. Measured by taking the trail back to 0006's schema first.
 */
async function upgrade(db: Database['db']) {
  const { rows } = await sql<{ n: number }>`select count(*) as n from audit_entries`.execute(db);
  // 0006's schema in the database's file (0024 since moved the indexes out of it), for 0007 to replace.
  await sql`alter table audit_entries drop column search_text`.execute(db);
  await sql`create virtual table main.audit_search using fts5(
    query, property_id, content = '', contentless_delete = 1, tokenize = 'trigram')`.execute(db);
  await sql`create table main.audit_search_indexed as select 0 as last_id`.execute(db);
  await sql`create trigger audit_search_remove after delete on audit_entries
    when old.query is not null or old.property_id is not null
    begin
      delete from audit_search where rowid = old.id;
    end`.execute(db);
  const t = performance.now();
  await migrationsFor('sqlite')['0007-activity-search-text']?.up(db);
  const s = (performance.now() - t) / 1000;
  await migrationsFor('sqlite')['0024-audit-index-file']?.up(db);
  row(
    `upgrade to 0007 (fold + index ${Number(rows[0]?.n).toLocaleString('en-US')} entries)`,
    `${s.toFixed(1)} s`,
    '',
    `${Math.round(Number(rows[0]?.n) / s)} entries/s, once, at start`,
  );
}

/**
 * PostgreSQL: what its pg_trgm GIN index (0007) costs an append, appended in transactions of 20 through Kysely
 * as the writer does there: without them, with them as created (fastupdate on, PostgreSQL's default: an entry's
 * trigrams go to a pending list merged into the index in bulk) and with fastupdate off; rounds interleaved.
 */
async function postgresAppendCost() {
  const server = await PostgresServer.start();
  const database = await openDatabase({ url: server.url, dir: '' });
  try {
    const db = database.db;
    const store = new SqlAuditStore(db);
    const us = { none: 0, fastupdate: 0, direct: 0 };
    const n = 10_000;
    const rounds = 9;
    for (let round = 0; round < rounds; round++) {
      const kind = (['none', 'fastupdate', 'direct'] as const)[round % 3] ?? 'none';
      if (kind === 'none') await sql`drop index audit_search_trgm`.execute(db);
      if (kind === 'fastupdate')
        await sql`create index audit_search_trgm on audit_entries using gin (search_text gin_trgm_ops)`.execute(
          db,
        );
      if (kind === 'direct') await sql`alter index audit_search_trgm set (fastupdate = off)`.execute(db);
      const t = performance.now();
      for (let i = 0; i < n; i += 20)
        await store.append(
          Array.from({ length: 20 }, (_, j) => ({
            ...ENTRY,
            at: Date.now(),
            query: `${(round * n + i + j) % 5000} Elm St, Springfield, IL`,
            property_id: `P${round}${i + j}`,
          })),
        );
      us[kind] += ((performance.now() - t) * 1000) / ((rounds / 3) * n);
    }
    row(
      'PostgreSQL append (tx of 20), GIN index',
      `${us.fastupdate.toFixed(1)} µs/entry`,
      '',
      `without the indexes ${us.none.toFixed(1)} (${(us.fastupdate / us.none).toFixed(2)}x); fastupdate off ${us.direct.toFixed(1)} (${(us.direct / us.none).toFixed(2)}x)`,
    );
  } finally {
    await database.close();
    await server.stop();
  }
}

/**
 * PostgreSQL: the Activity list's text filters over the same trail as SQLite's (written by one statement, its
 * search text folded as fold() folds ASCII), through its pg_trgm GIN index or walked, as search() chooses.
 */
export async function postgresPages(entries: number) {
  console.log(`\nAudit trail — ${entries.toLocaleString('en-US')} entries, PostgreSQL`);
  const server = await PostgresServer.start();
  const database = await openDatabase({ url: server.url, dir: '' });
  try {
    const db = database.db;
    const t = performance.now();
    const start = Date.now() - entries * 1_000;
    // In statements of 50,000 (each within the pool's 10 s statement timeout, its GIN index kept as it goes).
    for (let from = 0; from < entries; from += 50_000)
      await sql`insert into audit_entries (at, account_id, key_fingerprint, session_ref, kind, query, outcome,
        property_id, source, confidence, last_verified, cached, search_text)
      select ${start}::bigint + i::bigint * 1000,
        case when i % 10 = 0 then 'other-account' else 'bench-account' end,
        case when i % 3 = 0 then '3f9a1c2e' else '9b8a7c6d' end, 'sess', 'resolve',
        (i % 5000) || ' Main St, Springfield, IL', case when i % 7 = 0 then 'not_found' else 'matched' end,
        'P' || (i % 50000), 'Sangamon County Assessor', 'high', '2026-01-02', i % 2,
        lower((i % 5000) || ' Main St, Springfield, IL') || chr(10) || lower('P' || (i % 50000))
      from generate_series(${from}::int, ${Math.min(entries, from + 50_000) - 1}::int) as i`.execute(db);
    await sql`vacuum analyze audit_entries`.execute(db);
    row('entries written and indexed (by 50,000)', `${((performance.now() - t) / 1000).toFixed(1)} s`);
    await pages(new SqlAuditStore(db));
  } finally {
    await database.close();
    await server.stop();
  }
}

/** The CSV export's rate and the memory it grows by (it streams: it should not grow with the rows). */
async function exportRate(store: SqlAuditStore) {
  const rss = process.memoryUsage().rss;
  const t = performance.now();
  let n = 0;
  let bytes = 0;
  for await (const e of store.all('bench-account', {})) {
    bytes += [e.at, e.kind, e.keyFingerprint, e.query, e.outcome, e.propertyId, e.source]
      .map((v) => csvCell(v))
      .join(',').length;
    n++;
  }
  const rate = n / ((performance.now() - t) / 1000);
  row('export (entries to CSV lines)', `${Math.round(rate)} rows/s`, '>= 20,000/s', verdict(rate >= 20_000));
  row(
    'memory growth during the export',
    `${Math.round((process.memoryUsage().rss - rss) / 1e6)} MB`,
    '',
    `${n.toLocaleString('en-US')} rows, ${Math.round(bytes / 1e6)} MB of CSV`,
  );
}
