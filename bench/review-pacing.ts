/**
 * Reviews on the server, end to end: rows uploaded in chunks to /api/reviews, worked by the BFF's worker in
 * the review lane through the scheduler, against the reference with a real fixed-window limit. Measures how
 * much of the allowed rate a review uses (target: ≥ 98%, zero upstream 429s), how fast the same rows go again
 * from the cache, and how long an agent's search on the same key waits while another review runs (≤ 1 s p95).
 */
export interface PacingResult {
  rows: number;
  matched: number;
  /** From creating the review to seeing it done (upload and polling included). */
  seconds: number;
  /** From the review's first answer from the upstream to its last: the time it ran there. */
  upstreamSeconds: number;
  allowedPerSecond: number;
  usedShare: number;
  upstream429: number;
  cachedSeconds: number;
  cachedRows: number;
  /** An agent's searches (resolves, interactive) while a review of the same key runs: latency in ms, sorted. */
  agentWaits: number[];
  agentFailed: number;
}

interface Summary {
  id: string;
  status: string;
  runs: { counts: { total: number; done: number; matched: number } }[];
}

const headers = (cookie: string) => ({
  'Content-Type': 'application/json',
  'X-Requested-With': 'proplens',
  Cookie: cookie,
});

/** Creates a review of `addresses`, uploads it, and waits until every row has an outcome. */
export async function runReview(
  bffUrl: string,
  cookie: string,
  addresses: string[],
  pollMs = 100,
): Promise<{ seconds: number; summary: Summary }> {
  const started = performance.now();
  const created = await fetch(`${bffUrl}/api/reviews`, {
    method: 'POST',
    headers: headers(cookie),
    body: JSON.stringify({
      clientToken: `bench-${Math.random().toString(36).slice(2, 14)}`,
      name: 'Bench',
      kind: 'paste',
      columns: [],
      totalRows: addresses.length,
    }),
  });
  const review = (await created.json()) as Summary;
  for (let i = 0; i * 2000 < addresses.length; i++) {
    const rows = addresses.slice(i * 2000, (i + 1) * 2000).map((address) => ({ address }));
    const res = await fetch(`${bffUrl}/api/reviews/${review.id}/chunks`, {
      method: 'PUT',
      headers: headers(cookie),
      body: JSON.stringify({ index: i, firstRow: i * 2000, rows, last: (i + 1) * 2000 >= addresses.length }),
    });
    if (!res.ok) throw new Error(`chunk ${i}: ${res.status} ${await res.text()}`);
  }
  for (;;) {
    const summary = (await (
      await fetch(`${bffUrl}/api/reviews/${review.id}`, { headers: headers(cookie) })
    ).json()) as Summary;
    if (summary.status === 'done') return { seconds: (performance.now() - started) / 1000, summary };
    await new Promise((r) => setTimeout(r, pollMs));
  }
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
  /** Other addresses: a review of some while an agent searches for the others, every `agentEveryMs`. */
  others: { review: string[]; agent: string[]; agentEveryMs: number },
): Promise<PacingResult> {
  const first = await runReview(bffUrl, cookie, addresses);
  const span = await answeredSpan(bffUrl, cookie, first.summary.id);
  const allowedPerSecond = limit / windowS;
  const again = await runReview(bffUrl, cookie, addresses, 20);
  const agent = await searchingBeside(bffUrl, cookie, others);
  const counts = first.summary.runs[0]?.counts;
  return {
    rows: counts?.done ?? 0,
    matched: counts?.matched ?? 0,
    seconds: first.seconds,
    allowedPerSecond,
    upstreamSeconds: span.seconds,
    // Requests made over requests allowed in the time the review ran on the upstream: between its first answer
    // and its last there are (N - 1) intervals, each at least one allowed request's. Creating the review,
    // uploading it and polling for its end are not time the upstream was asked. The upstream's windows are fixed
    // and the first began before the review (the sign-in's request): a share a little over 100 % is that.
    usedShare: (span.answers - 1) / allowedPerSecond / span.seconds,
    upstream429: countUpstream429(),
    cachedSeconds: again.seconds,
    cachedRows: again.summary.runs[0]?.counts.done ?? 0,
    agentWaits: agent.waits,
    agentFailed: agent.failed,
  };
}

/** A review's answers (rows with a retrievedAt), and the seconds from its first to its last (rows API, paged). */
async function answeredSpan(bffUrl: string, cookie: string, id: string) {
  let [answers, firstAt, lastAt] = [0, Number.POSITIVE_INFINITY, Number.NEGATIVE_INFINITY];
  let cursor: string | null = '';
  while (cursor !== null) {
    const res = await fetch(
      `${bffUrl}/api/reviews/${id}/rows?limit=1000${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`,
      { headers: headers(cookie) },
    );
    if (!res.ok) throw new Error(`rows of ${id}: ${res.status}`);
    const page = (await res.json()) as { rows: { retrievedAt?: string }[]; nextCursor: string | null };
    for (const r of page.rows) {
      const at = r.retrievedAt ? Date.parse(r.retrievedAt) : Number.NaN;
      if (!Number.isFinite(at)) continue;
      answers++;
      firstAt = Math.min(firstAt, at);
      lastAt = Math.max(lastAt, at);
    }
    cursor = page.nextCursor;
  }
  return { answers, seconds: (lastAt - firstAt) / 1000 };
}

/**
 * A review of `review` runs while an agent, on the same session (the same key and budget), resolves each of
 * `agent` in turn, one every `agentEveryMs` (a person at the keyboard, not a load): each search's time to its
 * answer, which is all wait but the upstream's few ms. Searches stop when the review is done.
 */
async function searchingBeside(
  bffUrl: string,
  cookie: string,
  { review, agent, agentEveryMs }: { review: string[]; agent: string[]; agentEveryMs: number },
) {
  const waits: number[] = [];
  let failed = 0;
  let running = true;
  const searching = (async () => {
    // Let the review start and its pacing settle first.
    await new Promise((r) => setTimeout(r, 3_000));
    for (const address of agent) {
      if (!running) break;
      const t = performance.now();
      const res = await fetch(`${bffUrl}/api/properties/resolve?${new URLSearchParams({ address })}`, {
        headers: headers(cookie),
      });
      await res.arrayBuffer();
      if (res.ok) waits.push(performance.now() - t);
      else failed++;
      await new Promise((r) => setTimeout(r, agentEveryMs));
    }
  })();
  await runReview(bffUrl, cookie, review);
  running = false;
  await searching;
  return { waits: waits.sort((a, b) => a - b), failed };
}
