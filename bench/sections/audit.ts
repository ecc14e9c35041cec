import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sql } from 'kysely';
import { type Database, openDatabase } from '../../src/bff/db/database.ts';
import { type NewAuditEntry, SqlAuditStore } from '../../src/bff/stores/audit/audit-store.ts';
import { csvCell } from '../../src/contract/index.ts';
import { row, verdict } from '../support.ts';

/**
 * The audit trail at 1,000,000 entries (embedded SQLite): the Activity page's first page and the text filter at
 * the store, found and not found (targets ≤ 100 ms), the trigram index's cost on the append path, and the CSV
 * export's rate (target ≥ 20,000 rows/s).
 */
export async function benchAudit(entries = Number(process.env.BENCH_AUDIT_ENTRIES ?? 1_000_000)) {
  console.log(`\nAudit trail — ${entries.toLocaleString('en-US')} entries, embedded SQLite`);
  const dir = mkdtempSync(join(tmpdir(), 'proplens-bench-audit-'));
  const database = await openDatabase({ dir });
  try {
    // The embedded writer's path: its prepared statement, the index's trigger with it.
    const store = new SqlAuditStore(database.db, database.sqlite);
    await fill(store, entries);
    await pages(store);
    await exportRate(store);
    await appendCost(store, database.db);
  } finally {
    await database.close();
    rmSync(dir, { recursive: true, force: true });
  }
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

/** One account's lookups (and a tenth another's), written in batches as the trail's writer does. */
async function fill(store: SqlAuditStore, entries: number) {
  const start = Date.now() - entries * 1_000;
  const batch: NewAuditEntry[] = [];
  const filled = performance.now();
  for (let i = 0; i < entries; i++) {
    batch.push({
      at: start + i * 1_000,
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
    });
    if (batch.length === 5_000) await store.append(batch.splice(0));
  }
  await store.append(batch.splice(0));
  row(
    'entries written (batches of 5,000)',
    `${Math.round(entries / ((performance.now() - filled) / 1000))}/s`,
  );
}

/** The median of five runs, in ms. */
async function median<T>(work: () => Promise<T>): Promise<number> {
  const runs: number[] = [];
  for (let i = 0; i < 5; i++) {
    const t = performance.now();
    await work();
    runs.push(performance.now() - t);
  }
  return runs.sort((a, b) => a - b)[2] as number;
}

/**
 * The Activity page's first page, and text filters (each the median of five, in ms). Every entry reads
 * "<n> Main St, Springfield, IL" (n < 5,000) with a property id "P<m>" (m < 50,000), nine in ten of this account.
 */
async function pages(store: SqlAuditStore) {
  for (const [label, filters] of [
    ['first page of /activity (100 entries)', {}],
    ['text on every entry: "main st"', { text: 'main st' }],
    ['text on 1 in 5,000 entries: "4999 main"', { text: '4999 main' }],
    ['a property id on 1 in 50,000: "p49999"', { text: 'p49999' }],
    ['text on no entry: "no such address"', { text: 'no such address' }],
    ['on none, each trigram on every entry', { text: 'springfield, springfield' }],
    ['2 characters, on most entries: "99"', { text: '99' }],
    ['2 characters, on none: "zq" (no trigram)', { text: 'zq' }],
  ] as const) {
    const ms = await median(() => store.page('bench-account', filters, null, 100));
    row(label, `${ms.toFixed(1)} ms`, '<= 100 ms', verdict(ms <= 100));
  }
}

/**
 * What the trigram index adds to an append: entries appended in transactions of 20 (a busy group commit) with
 * its trigger and without it, interleaved, in µs per entry.
 */
async function appendCost(store: SqlAuditStore, db: Database['db']) {
  const trigger = await sql<{
    sql: string;
  }>`select sql from sqlite_master where name = 'audit_search_append'`.execute(db);
  const create = trigger.rows[0]?.sql;
  if (!create) throw new Error('no audit_search_append trigger: migration 0006 did not run');
  const us = { with: 0, without: 0 };
  const n = 5_000;
  for (let round = 0; round < 6; round++) {
    const indexed = round % 2 === 0;
    if (!indexed) await sql`drop trigger audit_search_append`.execute(db);
    const t = performance.now();
    for (let i = 0; i < n; i += 20)
      await store.append(
        Array.from({ length: 20 }, (_, j) => ({
          ...ENTRY,
          at: Date.now(),
          query: `${(i + j) % 5000} Elm St, Springfield, IL`,
          property_id: `P${round}${i + j}`,
        })),
      );
    us[indexed ? 'with' : 'without'] += ((performance.now() - t) * 1000) / (3 * n);
    if (!indexed) await sql.raw(create).execute(db);
  }
  row(
    'append, transactions of 20, with the index',
    `${us.with.toFixed(1)} µs/entry`,
    '',
    `without it ${us.without.toFixed(1)} µs/entry (${(us.with / us.without).toFixed(2)}x)`,
  );
}

/** The CSV export's rate and the memory it grows by (it streams: it should not grow with the rows). */
async function exportRate(store: SqlAuditStore) {
  const rss = process.memoryUsage().rss;
  const t = performance.now();
  let n = 0;
  let bytes = 0;
  for await (const e of store.all('bench-account', {})) {
    bytes += [e.at, e.kind, e.keyFingerprint, e.query, e.outcome, e.propertyId, e.source]
      .map(csvCell)
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
