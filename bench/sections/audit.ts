import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openDatabase } from '../../src/bff/db/database.ts';
import { type NewAuditEntry, SqlAuditStore } from '../../src/bff/stores/audit/audit-store.ts';
import { csvCell } from '../../src/contract/index.ts';

export type BenchRow = (label: string, value: string, target?: string, note?: string) => void;

/**
 * The audit trail at 1,000,000 entries (embedded SQLite): the Activity page's first page and a text filter at
 * the store (targets ≤ 100 ms), and the CSV export's rate (target ≥ 20,000 rows/s).
 */
export async function benchAudit(
  row: BenchRow,
  entries = Number(process.env.BENCH_AUDIT_ENTRIES ?? 1_000_000),
) {
  console.log(`\nAudit trail — ${entries.toLocaleString('en-US')} entries, embedded SQLite`);
  const dir = mkdtempSync(join(tmpdir(), 'proplens-bench-audit-'));
  const database = await openDatabase({ dir });
  try {
    const store = new SqlAuditStore(database.db);
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
      'entries written (batches of 500)',
      `${Math.round(entries / ((performance.now() - filled) / 1000))}/s`,
    );
    const time = async <T>(work: () => Promise<T>) => {
      const runs: number[] = [];
      for (let i = 0; i < 5; i++) {
        const t = performance.now();
        await work();
        runs.push(performance.now() - t);
      }
      return runs.sort((a, b) => a - b)[2] as number;
    };
    const first = await time(() => store.page('bench-account', {}, null, 100));
    row(
      'first page of /activity (100 entries)',
      `${first.toFixed(1)} ms`,
      '<= 100 ms',
      first <= 100 ? 'meets target' : 'MISSES target',
    );
    const text = await time(() => store.page('bench-account', { text: '4999 main' }, null, 100));
    row(
      'text filter "4999 main"',
      `${text.toFixed(1)} ms`,
      '<= 100 ms',
      text <= 100 ? 'meets target' : 'MISSES target',
    );
    const rare = await time(() => store.page('bench-account', { text: 'no such address' }, null, 100));
    row(
      'text filter matching nothing (whole scan)',
      `${rare.toFixed(1)} ms`,
      '<= 100 ms',
      rare <= 100 ? 'meets target' : 'MISSES target',
    );
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
    row(
      'export (entries to CSV lines)',
      `${Math.round(rate)} rows/s`,
      '>= 20,000/s',
      rate >= 20_000 ? 'meets target' : 'MISSES target',
    );
    row(
      'memory growth during the export',
      `${Math.round((process.memoryUsage().rss - rss) / 1e6)} MB`,
      '',
      `${n.toLocaleString('en-US')} rows, ${Math.round(bytes / 1e6)} MB of CSV`,
    );
  } finally {
    await database.close();
    rmSync(dir, { recursive: true, force: true });
  }
}
