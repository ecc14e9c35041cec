import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openDatabase } from '../../src/bff/db/database.ts';
import { type NewAuditEntry, SqlAuditStore } from '../../src/bff/stores/audit/audit-store.ts';
import { csvCell } from '../../src/contract/index.ts';
import { row, verdict } from '../support.ts';

/**
 * The audit trail at 1,000,000 entries (embedded SQLite): the Activity page's first page and a text filter at
 * the store (targets ≤ 100 ms), and the CSV export's rate (target ≥ 20,000 rows/s).
 */
export async function benchAudit(entries = Number(process.env.BENCH_AUDIT_ENTRIES ?? 1_000_000)) {
  console.log(`\nAudit trail — ${entries.toLocaleString('en-US')} entries, embedded SQLite`);
  const dir = mkdtempSync(join(tmpdir(), 'proplens-bench-audit-'));
  const database = await openDatabase({ dir });
  try {
    const store = new SqlAuditStore(database.db);
    await fill(store, entries);
    await pages(store);
    await exportRate(store);
  } finally {
    await database.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

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

/** The Activity page's first page, and text filters that match some entries and none. */
async function pages(store: SqlAuditStore) {
  for (const [label, filters] of [
    ['first page of /activity (100 entries)', {}],
    ['text filter "4999 main"', { text: '4999 main' }],
    ['text filter matching nothing (whole scan)', { text: 'no such address' }],
  ] as const) {
    const ms = await median(() => store.page('bench-account', filters, null, 100));
    row(label, `${ms.toFixed(1)} ms`, '<= 100 ms', verdict(ms <= 100));
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
