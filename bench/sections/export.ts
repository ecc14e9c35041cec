import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { type Database, openDatabase } from '../../src/bff/db/database.ts';
import { csvLine, exportLayout, jsonRow } from '../../src/bff/reviews/export-columns.ts';
import type { StoredAnswer } from '../../src/bff/reviews/look-up-row.ts';
import { EXPORT_PAGE_ROWS, ReviewExportRows } from '../../src/bff/stores/reviews/export-rows.ts';
import { SqlReviewStore } from '../../src/bff/stores/reviews/review-store.ts';
import { rowsWithResults } from '../../src/bff/stores/reviews/row-results.ts';
import { type JoinedRow, storedAnswerReader, toRowResult } from '../../src/bff/stores/reviews/to-api.ts';
import { createHarness } from '../../src/bff/test-support/harness.ts';
import { type SeedRow, seedReview } from '../../src/bff/test-support/seed-review.ts';
import type { Property } from '../../src/contract/index.ts';
import { explainRecordMatch } from '../../src/contract/server/index.ts';
import { row, verdict } from '../support.ts';

/**
 * The review export at 100,000 rows (embedded SQLite): a loan tape's rows written straight into a review's
 * tables, then GET /api/reviews/:id/export.csv and .json streamed through the whole app in-process (the
 * production wiring, as the harness builds it). Targets: 100,000 rows in ≤ 5 s, and memory that does not grow
 * with the rows (the live heap while 100,000 rows stream against while 10,000 do).
 */
export async function benchExport(rows = Number(process.env.BENCH_EXPORT_ROWS ?? 100_000)) {
  const small = Math.max(1, Math.round(rows / 10));
  console.log(
    `\nReview export — ${rows.toLocaleString('en-US')} rows, embedded SQLite, through the app in-process`,
  );
  const dir = mkdtempSync(join(tmpdir(), 'proplens-bench-export-'));
  const database = await openDatabase({ dir });
  try {
    const h = createHarness({ database, logLevel: 'warn' });
    const { accountId } = (await (await h.signIn('pi_demo_enterprise')).json()) as { accountId: string };
    const templates = answers();
    let t = performance.now();
    const big = await seedReview(database, tape(accountId, rows, templates));
    row(
      'rows written into the review tables',
      `${Math.round(rows / ((performance.now() - t) / 1000))}/s`,
      '',
      `${rows.toLocaleString('en-US')} rows, 6 columns of the file's own`,
    );
    const few = await seedReview(database, tape(accountId, small, templates));
    // Warm: the first request compiles the route and the queries; what a reviewer meets is the steady state.
    await download(h, few, 'csv');
    for (const ext of ['csv', 'json'] as const) {
      t = performance.now();
      const cpu = process.cpuUsage();
      const run = await download(h, big, ext);
      const s = (performance.now() - t) / 1000;
      const used = process.cpuUsage(cpu);
      row(
        `${ext.toUpperCase()} export, ${rows.toLocaleString('en-US')} rows`,
        `${s.toFixed(2)} s`,
        '<= 5 s',
        `${verdict(s <= 5 && run.rows === rows)}; ${Math.round(rows / s)} rows/s, ${Math.round(run.bytes / 1e6)} MB`,
      );
      // On a shared machine the wall clock waits for other work too. The export is one thread's work (SQLite
      // reads in-thread, nothing waited on but the reader), so on a quiet machine its wall time is its CPU time.
      const cpu_s = (used.user + used.system) / 1e6;
      row(
        '  CPU time of that export',
        `${cpu_s.toFixed(2)} s`,
        '<= 5 s',
        `${verdict(cpu_s <= 5)} (a quiet machine's wall time); ${(cpu_s / 5).toFixed(2)}x the target`,
      );
    }
    // Every row its own record: no answer's work is shared with another row's (the memo misses every time).
    const distinct = await seedReview(database, tape(accountId, rows, templates, true));
    for (const ext of ['csv', 'json'] as const) {
      const cpu = process.cpuUsage();
      const run = await download(h, distinct, ext);
      const used = process.cpuUsage(cpu);
      const cpu_s = (used.user + used.system) / 1e6;
      row(
        `  CPU time, ${ext.toUpperCase()}, every row its own record`,
        `${cpu_s.toFixed(2)} s`,
        '<= 5 s',
        `${verdict(cpu_s <= 5 && run.rows === rows)}; ${(cpu_s / 5).toFixed(2)}x the target`,
      );
    }
    await breakdown(database, big);
    await memory(h, { id: few, rows: small }, { id: big, rows });
  } finally {
    await database.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

type Harness = ReturnType<typeof createHarness>;

/**
 * Where a CSV export's CPU goes, the route's steps taken one more at a time over the same rows (the best of two
 * interleaved rounds, CPU ms): the header's query (the service's extra fields over every answer), the pages of
 * rows read, each row's stored answer decoded and checked as the export reads it, its columns worked out and
 * written as CSV or JSON lines. What the whole export spent beyond those is the HTTP stream and the encoding.
 */
async function breakdown(database: Database, id: string) {
  const exportRows = new ReviewExportRows(database.db, database.dialect);
  const summary = await new SqlReviewStore(database.db).summary(
    (
      await database.db
        .selectFrom('reviews')
        .select('account_id')
        .where('id', '=', id)
        .executeTakeFirstOrThrow()
    ).account_id,
    id,
  );
  if (!summary) throw new Error('no review to export');
  const shape = await exportRows.shape(summary);
  if (!shape) throw new Error('no run to export');
  const layout = exportLayout(
    {
      header: summary.columns,
      otherKeys: shape.otherKeys,
      checkedAgain: false,
      anyFixed: shape.anyFixed,
      anyExcluded: shape.anyExcluded,
    },
    { accountName: 'Bench', today: '2026-11-25' },
  );
  // As the export reads them: one reader a pass, so rows of a record already read share its answer.
  const decoding = () => {
    const read = storedAnswerReader();
    return (r: JoinedRow) => toRowResult(r, 1, read);
  };
  const pages = async (each: (page: JoinedRow[]) => void) => {
    for (let after = -1; ; ) {
      const found = await rowsWithResults(database.db, id, 1)
        .where('w.row_index', '>', after)
        .orderBy('w.row_index')
        .limit(EXPORT_PAGE_ROWS)
        .execute();
      each(found);
      if (found.length < EXPORT_PAGE_ROWS) return;
      after = Number(found.at(-1)?.row_index);
    }
  };
  const steps: [string, () => Promise<unknown>][] = [
    ['  header query (extra fields)', () => exportRows.shape(summary)],
    ['  pages of rows read', () => pages(() => {})],
    [
      '  + answers decoded, checked',
      () => {
        const decoded = decoding();
        return pages((p) => p.map(decoded));
      },
    ],
    [
      '  + columns, CSV lines',
      () => {
        const decoded = decoding();
        return pages((p) => p.map((r) => csvLine(layout.values(decoded(r)))));
      },
    ],
    [
      '  + columns, JSON lines',
      () => {
        const decoded = decoding();
        return pages((p) => p.map((r) => jsonRow(layout, layout.values(decoded(r)))));
      },
    ],
    // What the schema's parse of each answer cost (the export reads answers with plain checks instead, ADR 008).
    ['  (answers decoded with the schema)', () => pages((p) => p.map((r) => toRowResult(r, 1)))],
  ];
  const best = new Map<string, number>();
  for (let round = 0; round < 2; round++)
    for (const [label, step] of steps) {
      const cpu = process.cpuUsage();
      await step();
      const used = process.cpuUsage(cpu);
      const ms = (used.user + used.system) / 1000;
      best.set(label, Math.min(best.get(label) ?? ms, ms));
    }
  for (const [label] of steps) row(label, `${Math.round(best.get(label) ?? 0)} ms CPU`);
}

/**
 * Flat memory: the live heap (measured after a full collection every 10 chunks read) and the peak RSS while a
 * CSV export of 10 % of the rows streams, and of all of them. Streaming, ten times the rows cost no more memory.
 */
async function memory(h: Harness, small: { id: string; rows: number }, big: { id: string; rows: number }) {
  setFlagsFromString('--expose-gc');
  const gc = runInNewContext('gc') as () => void;
  const runs = [];
  for (const { id } of [small, big]) runs.push(await download(h, id, 'csv', gc));
  const [few, all] = runs as [Awaited<ReturnType<typeof download>>, Awaited<ReturnType<typeof download>>];
  const mb = (n: number) => `${(n / 1e6).toFixed(1)} MB`;
  row(
    `live heap growth, ${small.rows.toLocaleString('en-US')} rows`,
    mb(few.heapGrowth),
    '',
    `peak RSS +${mb(few.rssGrowth)}`,
  );
  const flat = all.heapGrowth <= few.heapGrowth + 16e6;
  row(
    `live heap growth, ${big.rows.toLocaleString('en-US')} rows`,
    mb(all.heapGrowth),
    '<= 10 % + 16 MB',
    `${verdict(flat)} (flat); peak RSS +${mb(all.rssGrowth)}`,
  );
  // The evidence packet (both exports deflated, hashed and signed) is made as it is read, so it is flat too: its
  // peak RSS (sampled while it is made) is the measure, as a packet built whole before its answer held it then
  // (measured before the change: +71 MB at 10,000 rows, +515 MB at 100,000).
  const packets = [];
  for (const { id } of [small, big]) {
    const t = performance.now();
    packets.push({ ...(await download(h, id, 'evidence', gc)), s: (performance.now() - t) / 1000 });
  }
  const [fewP, allP] = packets as [(typeof packets)[number], (typeof packets)[number]];
  const flatPacket = allP.rssGrowth <= fewP.rssGrowth + 32e6;
  for (const [n, p] of [
    [small.rows, fewP],
    [big.rows, allP],
  ] as const)
    row(
      `evidence packet, ${n.toLocaleString('en-US')} rows: peak RSS growth`,
      mb(p.rssGrowth),
      n === big.rows ? '<= 10 % + 32 MB' : '',
      `${n === big.rows ? `${verdict(flatPacket)} (flat); ` : ''}live heap +${mb(p.heapGrowth)}; ${p.s.toFixed(1)} s with the measuring, ${mb(p.bytes)} zipped`,
    );
}

/**
 * Reads an export (or an evidence packet) to the end as a browser's download would (chunk by chunk, nothing
 * kept), counting lines; with `gc`, also the live heap's and the RSS's growth.
 */
async function download(h: Harness, id: string, ext: 'csv' | 'json' | 'evidence', gc?: () => void) {
  gc?.();
  const before = process.memoryUsage();
  let heap = before.heapUsed;
  let rss = before.rss;
  // Sampled while the answer is made too: a route that builds its body whole before answering holds it then.
  const sampler = setInterval(() => {
    rss = Math.max(rss, process.memoryUsage().rss);
  }, 5);
  let bytes = 0;
  let lines = 0;
  try {
    const res = await h.call(`/api/reviews/${id}/${ext === 'evidence' ? 'evidence.zip' : `export.${ext}`}`);
    if (res.status !== 200 || !res.body)
      throw new Error(`export answered ${res.status}: ${await res.text()}`);
    const reader = res.body.getReader();
    for (let chunks = 1; ; chunks++) {
      const { done, value } = await reader.read();
      if (done) break;
      bytes += value.byteLength;
      for (let i = value.indexOf(10); i !== -1; i = value.indexOf(10, i + 1)) lines++;
      if (gc && chunks % 10 === 0) {
        rss = Math.max(rss, process.memoryUsage().rss);
        gc();
        heap = Math.max(heap, process.memoryUsage().heapUsed);
      }
    }
  } finally {
    clearInterval(sampler);
  }
  // CSV: a header line; JSON: the review, the columns and "rows":[ lines, and the closing one.
  return {
    bytes,
    rows: ext === 'csv' ? lines - 1 : lines - 4,
    heapGrowth: heap - before.heapUsed,
    rssGrowth: rss - before.rss,
  };
}

/**
 * A hundred answers as the worker keeps them (with how each record matched, worked out once here): most
 * matched, some corrected, not found with candidates, ambiguous, failed.
 */
export function answers(): { input: string; answer: StoredAnswer }[] {
  const streets = ['Main St', 'Congress Ave', 'Oak Dr', 'Elm St', 'Wacker Dr'];
  return Array.from({ length: 100 }, (_, i) => {
    const address = `${100 + i} ${streets[i % streets.length]}, Springfield, IL 62701`;
    const input = i % 7 === 0 ? address.replace('Springfield', 'Springfeld') : address;
    const retrievedAt = '2026-11-01T10:00:00.000Z';
    if (i % 10 === 9)
      return {
        input,
        answer: {
          outcome: i % 20 === 9 ? 'ambiguous' : 'not_found',
          candidates: [{ id: `c${i}`, address: `${address} (north)` }],
          error: { code: i % 20 === 9 ? 'ambiguous' : 'not_found', message: 'See the candidates.' },
          cached: false,
          retrievedAt,
        },
      };
    const property: Property = {
      id: `pi_${String(i).padStart(8, '0')}`,
      address,
      source: 'Sangamon County Assessor',
      sourceKind: 'assessor',
      confidence: i % 3 === 0 ? 'medium' : 'high',
      lastVerified: '2026-03-02',
      attributes: {
        streetNumber: String(100 + i),
        streetName: streets[i % streets.length] ?? null,
        city: 'Springfield',
        state: 'IL',
        zip: '62701',
        county: 'Sangamon County',
        propertyType: 'single_family',
        yearBuilt: 1950 + i,
        livingAreaSqft: 1_200 + i * 10,
        bedrooms: 3,
        bathrooms: 2,
        assessedValue: 240_000 + i * 1_000,
        ...(i % 4 === 0 ? { other: { flood_zone: 'AE' } } : {}),
      },
    };
    const match = explainRecordMatch(input, property);
    return { input, answer: { outcome: 'matched', property, match, cached: i % 2 === 0, retrievedAt } };
  });
}

/**
 * A loan tape of `total` rows: the file's own six columns, its address looked up, each row's answer retrieved at
 * its own moment (as the worker keeps them). Its rows resolve to the hundred records of `templates` over and
 * over; with `distinct`, every row's record is its own (another id), so nothing of one row's answer repeats.
 */
export function tape(
  accountId: string,
  total: number,
  templates: { input: string; answer: StoredAnswer }[],
  distinct = false,
) {
  const start = Date.parse('2026-11-01T10:00:00.000Z');
  return {
    accountId,
    name: `Loan tape ${total}${distinct ? ', distinct records' : ''}`,
    columns: ['loan_id', 'borrower', 'street', 'city', 'state', 'zip'],
    runs: 1,
    total,
    row: (i: number): SeedRow => {
      const { input, answer } = templates[i % templates.length] as (typeof templates)[number];
      const [street = '', city = '', rest = ''] = input.split(', ');
      const property = answer.property && distinct ? { ...answer.property, id: `pi_${i}` } : answer.property;
      return {
        address: input,
        cells: [`L-${String(i).padStart(7, '0')}`, `Borrower ${i}`, street, city, ...rest.split(' ')],
        answers: [
          {
            ...answer,
            ...(property ? { property } : {}),
            retrievedAt: new Date(start + i * 37).toISOString(),
          },
        ],
      };
    },
  };
}
