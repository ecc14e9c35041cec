/**
 * `npm run bench`: the speed and size targets, measured and printed as figures and ratios (never as timed
 * tests, which flake on a shared machine). Loopback only; every loop is bounded in time and count.
 *
 *   BENCH_RECORDS   dataset size (default 1000000)     BENCH_SECONDS  seconds per load phase (default 5)
 *   BENCH_ACCURACY_CASES  messy-input cases per kind of mistake (default 1000)
 *   BENCH_REVIEW_ROWS  rows in the review-pacing phase (default 1000, about 100 s at 600 per 60 s)
 *   BENCH_CONNECTIONS  concurrent connections in the throughput phases (default 32)
 *   BENCH_NGINX_WORKERS  nginx worker processes for the anchor (default 1)
 *   BENCH_ROUNDS  interleaved rounds of BENCH_SECONDS per target in the proxy comparison (default 3)
 *   BENCH_ONLY  a comma-separated subset of sections: reference, accuracy, proxies, pacing, audit, evidence, export,
 *     leasing, throughput, unattended, page, bundle (default all)
 *   BENCH_EVIDENCE_ENTRIES  audit entries chained and verified in the evidence section (default 1000000)
 *   BENCH_EXPORT_ROWS  rows in the review export section (default 100000)
 *   BENCH_LEASING_ROWS  most pending rows beside which the review lease is timed (default 1000000); also account
 *     A's pending rows in the section's running-server part (another account's API p95 and the server's lag)
 *   BENCH_AUDIT_ENTRIES  audit entries in the audit section (default 1000000)
 *   BENCH_THROUGHPUT_ROWS, BENCH_UNATTENDED_ROWS  rows of the end-to-end and unattended reviews (default 100000)
 *   BENCH_THROUGHPUT_CACHE_MB  the BFF's cache in the throughput section (default 1024: room for every row)
 *   BENCH_PAGE_ROWS, BENCH_PAGE_LIVE_ROWS  rows of the page section's finished and live reviews (0: no live one)
 *   BENCH_PAGE_OPENS  opens of the page section's finished review (default 3; the median time to the first rows)
 *   BENCH_BFF_BASELINE  another build's scripts/start.js or dist-server/main.js, run beside this one in the
 *     proxies section's interleaved rounds (a change's before and after under the same load)
 *   BENCH_NODE_ARGS  extra node flags for the servers, e.g. `--cpu-prof --cpu-prof-dir=/tmp/prof`
 *
 * The BFF runs as `npm start` runs it (scripts/start.js: the compiled server, built first when stale).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { cpus, tmpdir } from 'node:os';
import { join } from 'node:path';
import { benchAccuracy } from './sections/accuracy.ts';
import { benchAudit } from './sections/audit.ts';
import { benchBundle } from './sections/bundle.ts';
import { benchEvidence } from './sections/evidence.ts';
import { benchExport } from './sections/export.ts';
import { benchLeasing } from './sections/leasing.ts';
import { benchPacing } from './sections/pacing.ts';
import { benchPage } from './sections/page.ts';
import { benchProxies } from './sections/proxies.ts';
import { benchReference, buildDataset } from './sections/reference.ts';
import { benchThroughput } from './sections/throughput.ts';
import { benchUnattended } from './sections/unattended.ts';
import { type BenchContext, stopAll } from './support.ts';

const SECTIONS = [
  'reference',
  'accuracy',
  'proxies',
  'pacing',
  'audit',
  'evidence',
  'export',
  'leasing',
  'throughput',
  'unattended',
  'page',
  'bundle',
] as const;
const only = process.env.BENCH_ONLY?.split(',').map((x) => x.trim());
for (const x of only ?? []) {
  if (!(SECTIONS as readonly string[]).includes(x)) throw new Error(`BENCH_ONLY: unknown section "${x}"`);
}
const wants = (section: (typeof SECTIONS)[number]) => !only || only.includes(section);

/** One file per section under bench/sections; the dataset is built once, first, and shared by all. */
async function main() {
  const ctx: BenchContext = {
    dir: mkdtempSync(join(tmpdir(), 'proplens-bench-')),
    records: Number(process.env.BENCH_RECORDS ?? 1_000_000),
    seed: 20261121,
    seconds: Number(process.env.BENCH_SECONDS ?? 5),
    connections: Number(process.env.BENCH_CONNECTIONS ?? 32),
    nginxWorkers: Number(process.env.BENCH_NGINX_WORKERS ?? 1),
    rounds: Math.max(1, Number(process.env.BENCH_ROUNDS ?? 3)),
  };
  console.log(
    `PropLens benchmark — ${ctx.records.toLocaleString('en-US')} records, ${ctx.seconds} s per load phase, ${new Date().toISOString()}`,
  );
  console.log(`  node ${process.version}, ${cpus().length} cores\n`);
  try {
    // The dataset (built once, shared) only for the sections that start a reference or query it: the audit,
    // export and leasing sections write their own databases and the bundle reads dist/.
    const usesDataset = SECTIONS.filter(
      (x) => !['audit', 'evidence', 'export', 'leasing', 'bundle'].includes(x),
    );
    if (usesDataset.some(wants)) buildDataset(ctx);
    if (wants('reference')) benchReference(ctx);
    if (wants('accuracy')) benchAccuracy(ctx);
    if (wants('proxies')) await benchProxies(ctx);
    if (wants('pacing')) await benchPacing(ctx);
    if (wants('audit')) await benchAudit();
    if (wants('evidence')) await benchEvidence();
    if (wants('export')) await benchExport();
    if (wants('leasing')) await benchLeasing();
    if (wants('throughput')) await benchThroughput(ctx);
    if (wants('unattended')) await benchUnattended(ctx); // BENCH_UNATTENDED_ROWS, default 100,000
    if (wants('page')) await benchPage(ctx);
    if (wants('bundle')) benchBundle();
  } finally {
    stopAll();
    rmSync(ctx.dir, { recursive: true, force: true });
  }
}

main().then(
  () => process.exit(0),
  (err) => {
    console.error(err);
    stopAll();
    process.exit(1);
  },
);
