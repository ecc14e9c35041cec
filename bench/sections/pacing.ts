import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { measurePacing, type PacingResult } from '../review-pacing.ts';

import {
  type BenchContext,
  fmt,
  output,
  referenceEnv,
  row,
  signIn,
  startServer,
  stopAll,
  verdict,
} from '../support.ts';

/** A review kept on the server under the upstream's rate limit: the share of the allowed rate it uses, 429s. */
export async function benchPacing(ctx: BenchContext) {
  // The issue's own example: 1,000 uncached rows under 600 requests per 60 s should take about 100 s.
  const pacingRows = Number(process.env.BENCH_REVIEW_ROWS ?? 1000);
  const [limit, windowS] = [600, 60];
  console.log(
    `\nReview pacing — ${pacingRows} distinct rows as a review kept on the server, upstream limit ${limit} per ${windowS} s`,
  );
  const refUrl = await startServer(
    'src/reference/main.ts',
    {
      ...referenceEnv(ctx),
      REFERENCE_PORT: '0',
      REFERENCE_RATE_LIMIT: `${limit}/${windowS}`,
      LOG_LEVEL: 'warn',
    },
    /on (http:\/\/[\d.:]+)/,
  );
  const bffUrl = await startServer(
    'scripts/start.js',
    {
      PROPERTY_API_URL: refUrl,
      PORT: '0',
      SALES_CONTACT: 'sales@example.test',
      LOG_LEVEL: 'warn',
      DATABASE_DIR: join(ctx.dir, 'pacing-db'),
    },
    /running at (http:\/\/[\d.:]+)/,
  );
  const all = JSON.parse(readFileSync(join(ctx.dir, 'pacing.json'), 'utf8')) as string[];
  const rows = all.slice(0, pacingRows);
  // Beside it, a shorter review of other addresses while an agent searches for yet others on the same key.
  const besideRows = Math.min(300, Math.max(0, all.length - pacingRows - 60));
  const p = await measurePacing(
    bffUrl,
    await signIn(bffUrl),
    rows,
    limit,
    windowS,
    () => (output.get(bffUrl)?.() ?? '').split('\n').filter((l) => l.includes('"status":429')).length,
    {
      review: all.slice(pacingRows, pacingRows + besideRows),
      agent: all.slice(pacingRows + besideRows, pacingRows + besideRows + 60),
      agentEveryMs: 1_000,
    },
  );
  printPacing(p, rows.length);
  stopAll();
}

function printPacing(p: PacingResult, rows: number) {
  const ideal = (rows - 1) / p.allowedPerSecond;
  row('rows answered / matched', `${p.rows} / ${p.matched}`, `${rows}`, verdict(p.rows === rows));
  row(
    'time for the review on the upstream',
    `${fmt(p.upstreamSeconds, 1)} s`,
    `~${fmt(ideal, 1)} s`,
    `first answer to last; ${fmt(p.seconds, 1)} s from creating it to seeing it done`,
  );
  row(
    'share of the allowed rate used',
    `${fmt(p.usedShare * 100, 1)} %`,
    '>= 98 %',
    `${fmt((ideal / p.seconds) * 100, 1)} % counting upload and polling; ${verdict(p.usedShare >= 0.98)}`,
  );
  row('upstream 429s', String(p.upstream429), '0', verdict(p.upstream429 === 0));
  row(
    'same rows again (cached)',
    `${fmt(p.cachedSeconds, 2)} s`,
    '',
    `${fmt(p.cachedRows / p.cachedSeconds, 0)} rows/s, creating and polling included (the throughput section measures it)`,
  );
  const p95 = p.agentWaits[Math.floor(p.agentWaits.length * 0.95)] ?? Number.NaN;
  row(
    "an agent's search during a review (p95 / max)",
    `${fmt(p95, 0)} / ${fmt(p.agentWaits.at(-1) ?? Number.NaN, 0)} ms`,
    '<= 1,000 ms p95',
    `${p.agentWaits.length} searches, one a second on the review's key, ${p.agentFailed} refused; ${verdict(p95 <= 1_000 && p.agentFailed === 0)}`,
  );
}
