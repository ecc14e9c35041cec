import { Agent, request } from 'node:http';

export interface LoadResult {
  requests: number;
  errors: number;
  seconds: number;
  rps: number;
  p50: number;
  p99: number;
}

const agent = new Agent({ keepAlive: true, maxSockets: 64 });

/** One GET over a kept-alive loopback connection; resolves with the status code. */
function get(url: URL, headers: Record<string, string>): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = request(url, { agent, headers }, (res) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode ?? 0));
    });
    req.on('error', reject);
    req.end();
  });
}

/**
 * Closed-loop load: `concurrency` workers each send the next request as soon as the last answers, for
 * `seconds` (bounded in time and count), against loopback only.
 */
export async function load(
  makeUrl: (i: number) => URL,
  headers: Record<string, string>,
  { concurrency = 16, seconds = 5, maxRequests = 200_000 } = {},
): Promise<LoadResult> {
  const latencies: number[] = [];
  let errors = 0;
  let issued = 0;
  const started = performance.now();
  const deadline = started + seconds * 1000;
  const worker = async () => {
    while (performance.now() < deadline && issued < maxRequests) {
      const i = issued++;
      const t = performance.now();
      try {
        const status = await get(makeUrl(i), headers);
        if (status !== 200) errors++;
      } catch {
        errors++;
      }
      latencies.push(performance.now() - t);
    }
  };
  await Promise.all(Array.from({ length: concurrency }, worker));
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
