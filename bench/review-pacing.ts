/**
 * Review pacing: how much of the upstream's allowed rate a review uses, measured end to end (browser-shaped
 * NDJSON batches → BFF scheduler → reference with a real fixed-window limit), and what a re-run of the same
 * rows costs once cached. Target (issue 8): ≥ 95% of the allowed rate, zero upstream 429s.
 */
export interface PacingResult {
  rows: number;
  matched: number;
  seconds: number;
  allowedPerSecond: number;
  usedShare: number;
  upstream429: number;
  cachedSeconds: number;
  cachedRows: number;
}

type Line = { index: number; outcome: string; cached: boolean };

async function runBatches(bffUrl: string, cookie: string, addresses: string[], batch = 50, inFlight = 4) {
  const lines: Line[] = [];
  let next = 0;
  const worker = async () => {
    while (next < addresses.length) {
      const slice = addresses.slice(next, next + batch);
      next += batch;
      const res = await fetch(`${bffUrl}/api/reviews/lookups`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json', 'X-Requested-With': 'proplens', Cookie: cookie },
        body: JSON.stringify({ addresses: slice }),
      });
      const text = await res.text();
      for (const l of text.split('\n')) if (l) lines.push(JSON.parse(l) as Line);
    }
  };
  await Promise.all(Array.from({ length: inFlight }, worker));
  return lines;
}

/**
 * `limit` requests per `windowS` on the reference; `addresses` distinct, uncached. The sign-in spends one
 * request of the first window, as it would for a reviewer.
 */
export async function measurePacing(
  bffUrl: string,
  cookie: string,
  addresses: string[],
  limit: number,
  windowS: number,
  countUpstream429: () => number,
): Promise<PacingResult> {
  const started = performance.now();
  const lines = await runBatches(bffUrl, cookie, addresses);
  const seconds = (performance.now() - started) / 1000;
  const allowedPerSecond = limit / windowS;
  const cachedStart = performance.now();
  const again = await runBatches(bffUrl, cookie, addresses);
  return {
    rows: lines.length,
    matched: lines.filter((l) => l.outcome === 'matched').length,
    seconds,
    allowedPerSecond,
    // The first request of a review waits for nothing, so N rows need (N - 1) intervals of the allowed rate.
    usedShare: (addresses.length - 1) / allowedPerSecond / seconds,
    upstream429: countUpstream429(),
    cachedSeconds: (performance.now() - cachedStart) / 1000,
    cachedRows: again.filter((l) => l.cached).length,
  };
}
