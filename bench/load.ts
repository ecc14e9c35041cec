import { Pool } from 'undici';

export interface LoadResult {
  requests: number;
  errors: number;
  seconds: number;
  rps: number;
  p50: number;
  p99: number;
}

/** One GET, its answer read to the end: false when it failed or was not a 200. */
async function get(pool: Pool, url: URL, headers: Record<string, string>): Promise<boolean> {
  try {
    const res = await pool.request({ method: 'GET', path: url.pathname + url.search, headers });
    await res.body.dump({ limit: 4 * 1024 * 1024 });
    return res.statusCode === 200;
  } catch {
    return false;
  }
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
      if (!(await get(pool, url, headers))) errors++;
      latencies.push(performance.now() - t);
    }
  };
  try {
    await Promise.all(Array.from({ length: concurrency }, worker));
  } finally {
    await pool.close();
  }
  return summarise(latencies, errors, started);
}

/** Throughput and percentiles of one phase's latencies (sorted here). */
function summarise(latencies: number[], errors: number, started: number): LoadResult {
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

/**
 * Open-loop load at a fixed rate, as latency is measured against an SLO (wrk2's way): request i is due at
 * start + i / rate whatever happened to the ones before it, and its latency counts from when it was due, so a
 * server that stalls is charged for every request it delayed (no coordinated omission). `connections`
 * kept-alive sockets; a request due while all are busy waits for one, and that wait is part of its latency.
 * Unlike the closed loop (`load`), the offered load is the same for every target, so a slower server's
 * latency is not inflated by its own lower throughput, only by its cost per request and its stalls.
 */
export async function loadAtRate(
  makeUrl: (i: number) => URL,
  headers: Record<string, string>,
  {
    rate,
    seconds = 5,
    connections = 32,
    maxInFlight = 5_000,
  }: { rate: number; seconds?: number; connections?: number; maxInFlight?: number },
): Promise<LoadResult> {
  const origin = makeUrl(0).origin;
  const pool = new Pool(origin, { connections, pipelining: 1 });
  const latencies: number[] = [];
  const total = Math.max(1, Math.floor(rate * seconds));
  let errors = 0;
  let sent = 0;
  const inFlight = new Set<Promise<void>>();
  const one = async (url: URL, due: number) => {
    if (!(await get(pool, url, headers))) errors++;
    latencies.push(performance.now() - due);
  };
  const started = performance.now();
  try {
    while (sent < total) {
      const due = Math.min(total, Math.floor(((performance.now() - started) * rate) / 1000) + 1);
      for (; sent < due; sent++) {
        // Hopelessly behind: what is not sent is counted as failed rather than queued without bound.
        if (inFlight.size >= maxInFlight) {
          errors += total - sent;
          sent = total;
          break;
        }
        const p = one(makeUrl(sent), started + (sent * 1000) / rate);
        inFlight.add(p);
        void p.finally(() => inFlight.delete(p));
      }
      // Timers fire about every millisecond: requests due meanwhile leave together, late by under a tick.
      if (sent < total) await new Promise((r) => setTimeout(r, 1));
    }
    await Promise.all(inFlight);
  } finally {
    await pool.close();
  }
  return summarise(latencies, errors, started);
}
