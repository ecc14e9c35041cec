import { type BenchContext, child, fmt, row, verdict } from '../support.ts';

/** Builds the dataset (timed: the first build's target) into the run's folder; every section then reads it. */
export function buildDataset(ctx: BenchContext) {
  console.log('Reference service (in-process, SQLite)');
  const { buildMs } = child([
    'bench/reference-child.ts',
    'build',
    ctx.dir,
    String(ctx.records),
    String(ctx.seed),
  ]);
  row('first build', `${fmt(buildMs / 1000, 1)} s`, '<= 30 s', verdict(buildMs <= 30_000));
}

/** The resolver in-process: warm start, resolve latency by kind of input, search, memory. */
export function benchReference(ctx: BenchContext) {
  const q = child(['bench/reference-child.ts', 'query', ctx.dir, String(ctx.records), String(ctx.seed)]);
  row(
    'warm start (open + indexes in memory)',
    `${fmt(q.warmMs, 0)} ms`,
    '<= 1000 ms',
    verdict(q.warmMs <= 1000),
  );
  row('resolve, known address: p50', `${fmt(q.known.p50, 3)} ms`, '<= 0.5 ms', verdict(q.known.p50 <= 0.5));
  row('resolve, known address: p95 / p99', `${fmt(q.known.p95, 3)} / ${fmt(q.known.p99, 3)}`);
  row('resolve, messy case and spacing: p50 / p95', `${fmt(q.messy.p50, 3)} / ${fmt(q.messy.p95, 3)}`);
  row('resolve, typo + city, state: p50', `${fmt(q.typoWithPlace.p50, 2)} ms`);
  row(
    'resolve, typo + city, state: p95',
    `${fmt(q.typoWithPlace.p95, 2)} ms`,
    '<= 20 ms',
    verdict(q.typoWithPlace.p95 <= 20),
  );
  row(
    'resolve, typo + ZIP: p50 / p95',
    `${fmt(q.typoWithZip.p50, 2)} / ${fmt(q.typoWithZip.p95, 2)}`,
    '<= 20 ms p95',
    verdict(q.typoWithZip.p95 <= 20),
  );
  row(
    'resolve, typo, no place at all: p50 / p95',
    `${fmt(q.typoNoPlace.p50, 1)} / ${fmt(q.typoNoPlace.p95, 1)}`,
    '(no target)',
    'whole-country street scan',
  );
  row('search (typeahead), page of 20: p50 / p95', `${fmt(q.search.p50, 1)} / ${fmt(q.search.p95, 1)}`);
  row(
    'RSS after open / after queries',
    `${fmt(q.rssAfterOpenMb, 0)} / ${fmt(q.rssAfterQueriesMb, 0)} MB`,
    '<= 300 MB',
    verdict(q.rssAfterQueriesMb <= 300),
  );
  row('known addresses not found (must be 0)', String(q.misses));
}
