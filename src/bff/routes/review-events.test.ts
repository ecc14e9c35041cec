import { describe, expect, it, vi } from 'vitest';
import {
  ApiErrorBody,
  type CreateReviewRequest,
  type ReviewInputRow,
  ReviewListResponse,
  ReviewRowResult,
  ReviewRowsResponse,
  ReviewSummary,
  SearchResponse,
} from '../../contract/index.ts';
import type { RowResult } from '../reviews/look-up-row.ts';
import { SqlReviewQueue } from '../stores/reviews/queue.ts';
import { type Harness, reviewDatabase } from '../test-support/review-database.ts';

/*
 * What a live view and a client paging a review rely on: the event stream (GET /api/reviews/:id/events) and the
 * rows pages (GET /api/reviews/:id/rows). Rows are answered here through the review queue itself, in an order of
 * the test's choosing, so that the sequence numbers the stream resumes from are known and a catch-up can be
 * longer than one page of the stream without a thousand lookups.
 */

const reviews = reviewDatabase('review-events');

const token = () => `t${Math.random().toString(36).slice(2, 14)}`;
const rowsOf = (n: number): ReviewInputRow[] =>
  Array.from({ length: n }, (_, i) => ({
    address: `${i + 1} Nowhere Lane, Atlantis, ZZ`,
    cells: [`R-${i}`],
  }));

async function signedIn(h: Harness): Promise<string> {
  const res = await h.signIn();
  expect(res.status).toBe(200);
  const { accountId } = (await res.json()) as { accountId: string };
  return accountId;
}

/** A review with all its rows in (status running); nobody answers them until the test does. */
async function reviewWith(
  h: Harness,
  input: number | ReviewInputRow[],
  over: Partial<CreateReviewRequest> = {},
) {
  const rows = typeof input === 'number' ? rowsOf(input) : input;
  const n = rows.length;
  const created = await h.call('/api/reviews', {
    method: 'POST',
    body: { clientToken: token(), name: 'Events', kind: 'csv', columns: ['ref'], totalRows: n, ...over },
  });
  expect(created.status).toBe(201);
  const review = ReviewSummary.parse(await created.json());
  for (let first = 0, index = 0; first < n; first += 2_000, index++) {
    const part = rows.slice(first, first + 2_000);
    const res = await h.call(`/api/reviews/${review.id}/chunks`, {
      method: 'PUT',
      body: { index, firstRow: first, rows: part, last: first + part.length >= n },
    });
    expect(res.status, await res.clone().text()).toBe(200);
  }
  return review;
}

const notFound = (): RowResult => ({
  outcome: 'not_found',
  cached: false,
  retrievedAt: new Date().toISOString(),
  error: { code: 'not_found', message: 'No property at that address.' },
});

/**
 * Answers rows of one review, in the order of `indexes`, as a replica's worker would (lease, then complete):
 * the n-th answered gets the review's next sequence number. Rows of other reviews leased on the way go back.
 */
async function answer(h: Harness, accountId: string, reviewId: string, indexes: number[]) {
  const reviewsOf = h.reviews;
  if (!reviewsOf) throw new Error('no reviews');
  const queue = new SqlReviewQueue(reviewsOf.database.db, reviewsOf.database.dialect);
  const leased = [];
  // In leases of 200, as a worker takes them (one lease names each row it takes).
  for (let more = true; more; ) {
    const batch = await queue.lease('test-replica', [accountId], 200, 60_000);
    leased.push(...batch);
    more = batch.length > 0;
  }
  const mine = new Map(leased.filter((r) => r.reviewId === reviewId).map((r) => [r.index, r]));
  for (const other of leased.filter((r) => r.reviewId !== reviewId))
    await queue.retryLater('test-replica', { ...other, attempts: other.attempts - 1 }, 0);
  for (const index of indexes) {
    const row = mine.get(index);
    if (!row) throw new Error(`row ${index} was not leasable`);
    expect(await queue.complete('test-replica', row, notFound())).toBe(true);
  }
  for (const [index, row] of mine)
    if (!indexes.includes(index))
      await queue.retryLater('test-replica', { ...row, attempts: row.attempts - 1 }, 0);
}

interface ServerEvent {
  event: string;
  id?: string;
  data: string;
}

/** An open event stream: its events so far, read on demand until a condition holds (or a deadline passes). */
async function follow(h: Harness, reviewId: string, lastEventId?: number) {
  const controller = new AbortController();
  const res = await h.call(`/api/reviews/${reviewId}/events`, {
    signal: controller.signal,
    ...(lastEventId === undefined ? {} : { headers: { 'Last-Event-ID': String(lastEventId) } }),
  });
  expect(res.status).toBe(200);
  expect(res.headers.get('content-type')).toMatch(/text\/event-stream/);
  const reader = res.body?.getReader();
  if (!reader) throw new Error('no body');
  const decoder = new TextDecoder();
  const events: ServerEvent[] = [];
  let buffer = '';
  let ended = false;
  const take = (value: Uint8Array | undefined) => {
    buffer += decoder.decode(value, { stream: true });
    for (let end = buffer.indexOf('\n\n'); end >= 0; end = buffer.indexOf('\n\n')) {
      const block = buffer.slice(0, end);
      buffer = buffer.slice(end + 2);
      const fields = block.split('\n').filter((l) => !l.startsWith(':') && l.includes(':'));
      if (fields.length === 0) continue;
      const field = (name: string) =>
        fields.filter((l) => l.startsWith(`${name}:`)).map((l) => l.slice(name.length + 1).trimStart());
      const id = field('id')[0];
      events.push({
        event: field('event')[0] ?? 'message',
        data: field('data').join('\n'),
        ...(id ? { id } : {}),
      });
    }
  };
  return {
    events,
    get ended() {
      return ended;
    },
    /** Reads until `until(events)` holds or the stream ends; fails after `ms` (a stream that never says it). */
    async readUntil(until: (events: ServerEvent[]) => boolean, ms = 5_000) {
      let timer: ReturnType<typeof setTimeout> | undefined;
      const deadline = new Promise<'late'>((resolve) => {
        timer = setTimeout(() => resolve('late'), ms);
      });
      try {
        while (!until(events) && !ended) {
          const next = await Promise.race([reader.read(), deadline]);
          if (next === 'late')
            throw new Error(`the stream did not say it within ${ms} ms: ${JSON.stringify(events)}`);
          if (next.done) ended = true;
          else take(next.value);
        }
      } finally {
        clearTimeout(timer);
      }
    },
    /** As a closed tab: the request aborted and its body no longer read. */
    close: () => {
      controller.abort();
      void reader.cancel().catch(() => {});
    },
  };
}

const rowsIn = (e: ServerEvent) =>
  (JSON.parse(e.data) as { rows: unknown[] }).rows.map((r) => ReviewRowResult.parse(r));
const summaryIn = (e: ServerEvent) => ReviewSummary.parse(JSON.parse(e.data));
const isDone = (e: ServerEvent) => {
  if (e.event !== 'summary') return false;
  const counts = summaryIn(e).runs.at(-1)?.counts;
  return counts !== undefined && counts.done === counts.total;
};

describe('the review event stream', () => {
  it('on a catch-up longer than one page, sends every row answered since Last-Event-ID before the summary that says done', async () => {
    const h = reviews.make();
    const accountId = await signedIn(h);
    const n = 1_003;
    const review = await reviewWith(h, n);
    await answer(
      h,
      accountId,
      review.id,
      Array.from({ length: n }, (_, i) => n - 1 - i),
    );
    const stream = await follow(h, review.id, 2);
    const rowsSent = (events: ServerEvent[]) =>
      events.filter((e) => e.event === 'rows').reduce((sum, e) => sum + rowsIn(e).length, 0);
    await stream.readUntil((events) => events.some(isDone) && rowsSent(events) >= n - 2, 10_000);
    stream.close();
    const firstSummary = stream.events.findIndex((e) => e.event === 'summary');
    const rowEvents = stream.events.filter((e) => e.event === 'rows');
    expect(rowEvents.length).toBeGreaterThan(1); // the catch-up took more than one page
    // Every rows event comes before the first summary, and that summary already says done.
    expect(stream.events.slice(firstSummary).some((e) => e.event === 'rows')).toBe(false);
    expect(isDone(stream.events[firstSummary] as ServerEvent)).toBe(true);
    const seqs = rowEvents.flatMap((e) => rowsIn(e).map((r) => r.seq));
    expect(seqs).toEqual(Array.from({ length: n - 2 }, (_, i) => i + 3));
    expect(summaryIn(stream.events[firstSummary] as ServerEvent).runs[0]?.counts).toMatchObject({
      total: n,
      done: n,
      notFound: n,
    });
    // 1,003 rows answered one by one: seconds on a loaded two-core machine.
  }, 30_000);

  it('resumes from Last-Event-ID with only the rows answered after it, each event under the highest seq it sent', async () => {
    const h = reviews.make();
    const accountId = await signedIn(h);
    const review = await reviewWith(h, 5);
    // Answered out of row order: seq 1..3 are rows 4, 2, 0.
    await answer(h, accountId, review.id, [4, 2, 0]);
    const stream = await follow(h, review.id, 1);
    await stream.readUntil((events) => events.some((e) => e.event === 'summary'));
    const [caughtUp, ...more] = stream.events.filter((e) => e.event === 'rows');
    expect(more).toEqual([]);
    if (!caughtUp) throw new Error('no rows event');
    expect(rowsIn(caughtUp).map((r) => [r.seq, r.index])).toEqual([
      [2, 2],
      [3, 0],
    ]);
    expect(caughtUp.id).toBe('3');
    // Rows answered while the stream is open come in an event of their own, under their highest seq.
    await answer(h, accountId, review.id, [3, 1]);
    h.reviews?.announce(review.id);
    await stream.readUntil((events) => events.some(isDone));
    stream.close();
    const live = stream.events.filter((e) => e.event === 'rows').slice(1);
    expect(live.flatMap((e) => rowsIn(e).map((r) => [r.seq, r.index]))).toEqual([
      [4, 3],
      [5, 1],
    ]);
    expect(live.at(-1)?.id).toBe('5');
    expect(stream.events.find(isDone)?.id).toBe('5');
  });

  it('announces a deleted review and ends the stream', async () => {
    // The stream's own poll a minute away: only the delete itself can wake it.
    const h = reviews.make({ eventPollMs: 60_000 });
    await signedIn(h);
    const review = await reviewWith(h, 2);
    const stream = await follow(h, review.id);
    await stream.readUntil((events) => events.some((e) => e.event === 'summary'));
    expect((await h.call(`/api/reviews/${review.id}`, { method: 'DELETE' })).status).toBe(204);
    await stream.readUntil(() => false, 2_000);
    expect(stream.ended).toBe(true);
    expect(stream.events.at(-1)).toMatchObject({ event: 'deleted' });
  });

  it('streams progress as the worker answers: a summary first, each row once, and done only after the last row', async () => {
    const h = reviews.make();
    await signedIn(h);
    const page = SearchResponse.parse(await (await h.call('/api/properties/search?q=main')).json());
    const list = [...new Set(page.items.filter((p) => !p.attributes.unit).map((p) => p.address))].slice(0, 2);
    const rows = list.map((address, i) => ({ address, cells: [`R-${i}`] }));
    const live = await reviewWith(h, rows);
    const stream = await follow(h, live.id);
    await stream.readUntil((events) => events.some((e) => e.event === 'summary'));
    expect(summaryIn(stream.events[0] as ServerEvent)).toMatchObject({ id: live.id, status: 'running' });
    expect(summaryIn(stream.events[0] as ServerEvent).runs[0]?.counts.done).toBe(0);
    h.reviews?.worker.start();
    await stream.readUntil((events) => events.some(isDone), 10_000);
    stream.close();
    const done = stream.events.findIndex(isDone);
    const before = stream.events.slice(0, done);
    const sent = before.filter((e) => e.event === 'rows').flatMap(rowsIn);
    expect(sent.map((r) => r.index).sort()).toEqual([0, 1]);
    expect(sent.map((r) => [r.input, r.outcome, r.cells?.[0]]).sort()).toEqual(
      rows.map((r) => [r.address, 'matched', r.cells[0]]).sort(),
    );
    for (const e of before.filter((x) => x.event === 'rows'))
      expect(e.id).toBe(String(Math.max(...rowsIn(e).map((r) => r.seq))));
    expect(stream.events[done]?.id).toBe(String(rows.length));
    expect(summaryIn(stream.events[done] as ServerEvent)).toMatchObject({ status: 'done' });
  });
});

describe('GET /api/reviews/:id/rows and the list', () => {
  const ids = async (h: Harness, path: string) => {
    const res = await h.call(path);
    expect(res.status, await res.clone().text()).toBe(200);
    return ReviewRowsResponse.parse(await res.json());
  };

  it('pages through every row exactly once by nextCursor, and a page of exactly the limit is the last', async () => {
    const h = reviews.make();
    const accountId = await signedIn(h);
    const review = await reviewWith(h, 5);
    await answer(h, accountId, review.id, [1, 3]); // answered and pending rows page alike
    const seen: number[] = [];
    const cursors: (string | null)[] = [];
    let cursor: string | null = null;
    do {
      const page = await ids(
        h,
        `/api/reviews/${review.id}/rows?limit=2${cursor === null ? '' : `&cursor=${cursor}`}`,
      );
      seen.push(...page.rows.map((r) => r.index));
      cursor = page.nextCursor;
      cursors.push(cursor);
    } while (cursor !== null && cursors.length < 10);
    expect(seen).toEqual([0, 1, 2, 3, 4]);
    expect(cursors.length).toBe(3);
    // Exactly `limit` rows left: that page says no more follow.
    const whole = await ids(h, `/api/reviews/${review.id}/rows?limit=5`);
    expect(whole.rows.map((r) => r.index)).toEqual([0, 1, 2, 3, 4]);
    expect(whole.nextCursor).toBeNull();
    const tail = await ids(h, `/api/reviews/${review.id}/rows?limit=2&cursor=2`);
    expect(tail.rows.map((r) => r.index)).toEqual([3, 4]);
    expect(tail.nextCursor).toBeNull();
  });

  it('lists the account’s reviews newest first', async () => {
    const h = reviews.make();
    await signedIn(h);
    const made: string[] = [];
    const start = Date.now();
    vi.useFakeTimers({ toFake: ['Date'] });
    try {
      for (const [i, name] of ['Oldest', 'Middle', 'Newest'].entries()) {
        vi.setSystemTime(start + 60_000 * (i + 1));
        made.push((await reviewWith(h, 1, { name })).id);
      }
    } finally {
      vi.useRealTimers();
    }
    const list = ReviewListResponse.parse(await (await h.call('/api/reviews')).json());
    expect(list.reviews.map((r) => r.id).filter((id) => made.includes(id))).toEqual(made.reverse());
  });

  it('holds at most 6 live views per sign-in: the 7th is refused (429) until one closes; another sign-in has its own', async () => {
    const h = reviews.make();
    await signedIn(h);
    const review = await reviewWith(h, 1);
    const open = [];
    for (let i = 0; i < 6; i++) open.push(await follow(h, review.id));
    const refused = await h.call(`/api/reviews/${review.id}/events`);
    expect(refused.status).toBe(429);
    expect(ApiErrorBody.parse(await refused.json()).error.code).toBe('too_many_streams');
    open[0]?.close();
    await vi.waitFor(async () => {
      const again = await h.call(`/api/reviews/${review.id}/events`);
      again.body?.cancel();
      expect(again.status).toBe(200);
    });
    const mine = h.cookie;
    await signedIn(h);
    expect(h.cookie).not.toBe(mine);
    const colleague = await follow(h, review.id);
    colleague.close();
    for (const s of open) s.close();
  });
});
