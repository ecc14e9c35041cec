import { setFlagsFromString } from 'node:v8';

/**
 * How far V8 lets the heap grow past what the last full collection kept before it collects again, in percent
 * (docs/decisions/015-heap-growth.md). V8 picks it itself, up to 300 % (4x the live heap) on a 64-bit machine
 * with 8 GB or more; a review's rows promote enough short-lived objects that it goes there, and a BFF holding
 * 150 MB (64 MB of cache among it) then peaked past 600 MB. A percentage is no cap: the limit follows the live
 * heap, so a server with a bigger CACHE_MAX_MB gets a bigger heap, never an out-of-memory crash.
 *
 * V8 reads the flag each time it sets the next limit (heap-controller.cc), so setting it once the process runs
 * takes effect from the next collection on. 0 leaves V8's own; so does a --heap-growing-percent given to node
 * (NODE_OPTIONS or the command line): the operator's word wins.
 */
export function limitHeapGrowth(
  percent: number,
  nodeFlags: readonly string[] = [...process.execArgv, process.env.NODE_OPTIONS ?? ''],
): boolean {
  if (percent <= 0 || nodeFlags.some((f) => /--heap[-_]growing[-_]percent/.test(f))) return false;
  setFlagsFromString(`--heap-growing-percent=${Math.round(percent)}`);
  return true;
}
