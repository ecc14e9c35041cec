import { Pool } from 'undici';

export interface LoadResult {
  requests: number;
  errors: number;
  seconds: number;
  rps: number;
  p50: number;
  p99: number;
}

/**
 * Closed-loop load: `concurrency` workers, one kept-alive connection each, each sending the next request as
 * soon as the last answers, for `seconds` (bounded in time and count), against loopback only. The load
 * generator shares the machine's two cores with the servers it measures, so it uses undici's Pool, the
 * cheapest client here (node:http's costs several times more CPU per request): what it does not spend, the
 * servers get, the same for every phase.
 */
export async function load(
  makeUrl: (i: number) => URL,
  headers: Record<string, string>,
  { concurrency = 32, seconds = 5, maxRequests = 500_000 } = {},
): Promise<LoadResult> {
  const origin = makeUrl(0).origin;
  const pool = new Pool(origin, { connections: concurrency, pipelining: 1 });
  const latencies: number[] = [];
  let errors = 0;
  let issued = 0;
  const started = performance.now();
  const deadline = started + seconds * 1000;
  const worker = async () => {
    while (performance.now() < deadline && issued < maxRequests) {
      const url = makeUrl(issued++);
      const t = performance.now();
      try {
        const res = await pool.request({ method: 'GET', path: url.pathname + url.search, headers });
        await res.body.dump({ limit: 4 * 1024 * 1024 });
        if (res.statusCode !== 200) errors++;
      } catch {
        errors++;
      }
      latencies.push(performance.now() - t);
    }
  };
  try {
    await Promise.all(Array.from({ length: concurrency }, worker));
  } finally {
    await pool.close();
  }
  const elapsed = (performance.now() - started) / 1000;
  latencies.sort((a, b) => a - b);
  const at = (p: number) => latencies[Math.min(latencies.length - 1, Math.floor(p * latencies.length))] ?? 0;
  return {
    requests: latencies.length,
    errors,
    seconds: elapsed,
    rps: latencies.length / elapsed,
    p50: at(0.5),
    p99: at(0.99),
  };
}

/** Several rounds of the same load as one result: the median of each figure, requests and errors summed. */
export function medianOf(rounds: LoadResult[]): LoadResult {
  const mid = (pick: (r: LoadResult) => number) => {
    const xs = rounds.map(pick).sort((a, b) => a - b);
    return xs[Math.floor(xs.length / 2)] ?? 0;
  };
  return {
    requests: rounds.reduce((s, r) => s + r.requests, 0),
    errors: rounds.reduce((s, r) => s + r.errors, 0),
    seconds: rounds.reduce((s, r) => s + r.seconds, 0),
    rps: mid((r) => r.rps),
    p50: mid((r) => r.p50),
    p99: mid((r) => r.p99),
  };
}
