import type { BenchContext } from '../support.ts';

/** The review page in Chromium with a large review (written by the issue-26 page work). */
export async function benchPage(_ctx: BenchContext) {
  console.log('\nReview page — section being written (issue 26)');
}
