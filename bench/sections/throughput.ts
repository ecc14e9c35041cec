import type { BenchContext } from '../support.ts';

/** A 100,000-row review end to end through the worker (written by the issue-26 throughput work). */
export async function benchThroughput(_ctx: BenchContext) {
  console.log('\nReview throughput — section being written (issue 26)');
}
