import { type BenchContext, child, fmt, row, verdict } from '../support.ts';

/** The resolver's accuracy on messy input generated from the dataset, by kind of mistake. */
export function benchAccuracy(ctx: BenchContext) {
  const perKind = Number(process.env.BENCH_ACCURACY_CASES ?? 1000);
  console.log(
    `\nResolver accuracy — messy input generated from the dataset, ${perKind} cases per kind of mistake`,
  );
  const a = child([
    'bench/resolver-accuracy.ts',
    ctx.dir,
    String(ctx.records),
    String(ctx.seed),
    String(perKind),
  ]);
  const pct = (x: number) => `${fmt(x * 100, 1)} %`;
  row('one typo (street or city)', pct(a.oneTypo), '>= 99 %', verdict(a.oneTypo >= 0.99));
  row('two typos', pct(a.twoTypos), '>= 90 %', verdict(a.twoTypos >= 0.9));
  row(
    'no suffix',
    pct(a.noSuffix),
    '>= 95 %',
    `${verdict(a.noSuffix >= 0.95)} (the record, or the candidates where two streets fit)`,
  );
  row('wrong record, of all answers', pct(a.wrongRate), '<= 0.5 %', verdict(a.wrongRate <= 0.005));
  row('a neighbour for a missing house number', String(a.neighbours), '0', verdict(a.neighbours === 0));
  row('resolve, messy input: p50 / p95', `${fmt(a.p50Ms, 2)} / ${fmt(a.p95Ms, 2)} ms`);
  for (const [kind, k] of Object.entries(a.kinds) as [string, Record<string, number>][]) {
    row(
      `  ${kind}`,
      `${k.right} / ${k.cases}`,
      '',
      `${k.wrong} wrong${k.ambiguous ? `, ${k.ambiguous} rightly ambiguous` : ''}${k.leftOut ? `, ${k.leftOut} left out (another address fits better)` : ''}`,
    );
  }
}
