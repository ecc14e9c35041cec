import 'fake-indexeddb/auto';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { LookupResult, Property } from '../../../../contract/index.ts';
import type { Review, ReviewRow } from '../model.ts';
import { openReviewStore, type ReviewStore } from './review-store.ts';
import { prepareRows } from './rows.ts';
import { createReviewRunner, type RunnerDeps } from './runner.ts';

const T0 = Date.parse('2026-11-21T10:00:00Z');
/** Lets streams, promises and IndexedDB (which schedules with setImmediate, not faked) run. */
async function settle() {
  for (let i = 0; i < 300; i++) await new Promise((r) => setImmediate(r));
}

const property = (address: string): Property => ({
  id: `pi_${address.length}`,
  address,
  source: 'Travis County Assessor',
  sourceKind: 'assessor',
  confidence: 'high',
  lastVerified: '2026-11-09',
  attributes: {},
});

const rateLimit = { limit: 30, remaining: 20, resetAt: new Date(T0 + 10_000).toISOString(), windowS: 10 };

function line(index: number, over: Partial<LookupResult> = {}): LookupResult {
  return {
    index,
    outcome: 'matched',
    property: property(`Address ${index}`),
    cached: false,
    retrievedAt: new Date(T0).toISOString(),
    rateLimit,
    ...over,
  };
}
const rateLimited = (index: number, resetInMs: number) =>
  line(index, {
    outcome: 'failed',
    property: undefined,
    error: {
      code: 'rate_limited',
      message: 'Wait.',
      resetAt: new Date(Date.now() + resetInMs).toISOString(),
    },
  });

/** One call to POST /api/reviews/lookups, whose NDJSON answer the test writes line by line. */
interface Call {
  addresses: string[];
  headers: Headers;
  signal: AbortSignal;
  send: (...lines: (LookupResult | string)[]) => void;
  end: () => void;
  cut: () => void;
}

function fakeLookups() {
  const calls: Call[] = [];
  let respond: ((call: Call) => Response | Promise<Response>) | null = null;
  const fetchFn = vi.fn(async (_input: RequestInfo | URL, init?: RequestInit) => {
    let ctrl!: ReadableStreamDefaultController<Uint8Array>;
    const body = new ReadableStream<Uint8Array>({
      start(c) {
        ctrl = c;
      },
    });
    const enc = new TextEncoder();
    const signal = init?.signal as AbortSignal;
    const call: Call = {
      addresses: JSON.parse(String(init?.body)).addresses,
      headers: new Headers(init?.headers),
      signal,
      send: (...lines) =>
        ctrl.enqueue(
          enc.encode(lines.map((l) => (typeof l === 'string' ? l : `${JSON.stringify(l)}\n`)).join('')),
        ),
      end: () => ctrl.close(),
      cut: () => ctrl.error(new TypeError('network error')),
    };
    // A real fetch errors the body when its request is aborted.
    signal.addEventListener('abort', () => {
      try {
        ctrl.error(new DOMException('Aborted', 'AbortError'));
      } catch {}
    });
    calls.push(call);
    if (respond) return respond(call);
    return new Response(body, { status: 200, headers: { 'content-type': 'application/x-ndjson' } });
  });
  return {
    calls,
    fetch: fetchFn as unknown as typeof fetch,
    respondWith: (fn: typeof respond) => {
      respond = fn;
    },
  };
}

let store: ReviewStore;
let dbCount = 0;

async function makeReview(inputs: string[], state: Review['state'] = 'running') {
  const prepared = prepareRows(inputs);
  const review: Review = {
    id: `r${dbCount}`,
    accountId: 'acct-1',
    name: 'Test',
    source: { kind: 'paste' },
    state,
    createdAt: T0,
    updatedAt: T0,
    total: prepared.rows.length,
    skippedBlank: prepared.skippedBlank,
    accountName: 'Harbor & Vale Realty',
  };
  const rows: ReviewRow[] = prepared.rows.map((r) => ({ ...r, reviewId: review.id }));
  await store.createReview(review, rows);
  return { review, rows };
}

async function run(inputs: string[], deps: Partial<RunnerDeps> = {}, state: Review['state'] = 'running') {
  const { review, rows } = await makeReview(inputs, state);
  const runner = createReviewRunner(review, rows, { store, notifyMs: 250, ...deps });
  runner.start();
  await settle();
  return runner;
}

const outcomes = (rows: readonly ReviewRow[]) => rows.map((r) => r.outcome);

beforeEach(() => {
  vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'Date'], now: T0 });
  store = openReviewStore(`runner-test-${++dbCount}`);
});
afterEach(() => {
  vi.useRealTimers();
});

describe('review runner', () => {
  it('sends batches of 50 with two in flight, writes each answer as it arrives, and finishes', async () => {
    const api = fakeLookups();
    const inputs = Array.from({ length: 120 }, (_, i) => `${i + 1} Main St`);
    const runner = await run(inputs, { fetch: api.fetch });

    expect(api.calls.map((c) => c.addresses.length)).toEqual([50, 50]);
    expect(api.calls[0]?.headers.get('X-Requested-With')).toBe('proplens');
    expect(api.calls[0]?.addresses[0]).toBe('1 Main St');

    const first = api.calls[0] as Call;
    first.send(line(3));
    await settle();
    // Written before the stream ends.
    const stored = await store.getRows(runner.id);
    expect(stored[3]).toMatchObject({
      outcome: 'matched',
      property: { address: 'Address 3' },
      cached: false,
    });
    expect(stored.filter((r) => r.outcome === 'pending')).toHaveLength(119);

    first.send(...Array.from({ length: 50 }, (_, i) => line(i)).filter((l) => l.index !== 3));
    first.end();
    await settle();
    // The first batch drained: the third one went out while the second is still streaming.
    expect(api.calls.map((c) => c.addresses.length)).toEqual([50, 50, 20]);
    for (const call of api.calls.slice(1)) {
      call.send(...call.addresses.map((_, i) => line(i)));
      call.end();
    }
    await settle();
    await runner.settled();
    const snap = runner.getSnapshot();
    expect(snap.status).toEqual({ kind: 'done' });
    expect(snap.counts).toMatchObject({ matched: 120, pending: 0 });
    expect((await store.getRows(runner.id)).every((r) => r.outcome === 'matched')).toBe(true);
    expect((await store.getReview('acct-1', runner.id))?.state).toBe('done');
  });

  it('looks a duplicate address up once and gives every copy the answer; a refused row is never sent', async () => {
    const api = fakeLookups();
    const long = `1 ${'x'.repeat(600)}`;
    const runner = await run(['1 Main St', long, '2 Oak Ave', '1 MAIN ST'], { fetch: api.fetch });
    expect(api.calls.map((c) => c.addresses)).toEqual([['1 Main St', '2 Oak Ave']]);
    api.calls[0]?.send(
      line(0),
      line(1, { outcome: 'not_found', property: undefined, error: { code: 'not_found', message: 'No.' } }),
    );
    api.calls[0]?.end();
    await settle();
    await vi.advanceTimersByTimeAsync(300);
    const snap = runner.getSnapshot();
    expect(outcomes(snap.rows)).toEqual(['matched', 'failed', 'not_found', 'matched']);
    expect(snap.rows[3]?.property?.address).toBe('Address 0');
    expect(snap.rows[1]?.error?.code).toBe('bad_request');
    expect(snap.status.kind).toBe('done');
  });

  it('waits for the reset of rows the BFF hands back as rate limited, then sends them again', async () => {
    const api = fakeLookups();
    const runner = await run(['1 Main St', '2 Main St'], { fetch: api.fetch });
    api.calls[0]?.send(line(0), rateLimited(1, 8000));
    api.calls[0]?.end();
    await settle();
    await vi.advanceTimersByTimeAsync(300);
    let snap = runner.getSnapshot();
    expect(snap.status.kind).toBe('running');
    expect(snap.waitingUntil).toBe(T0 + 8000);
    // Not an outcome: the row is still pending, nothing says "failed".
    expect(outcomes(snap.rows)).toEqual(['matched', 'pending']);
    expect(api.calls).toHaveLength(1);

    await vi.advanceTimersByTimeAsync(7000);
    expect(api.calls).toHaveLength(1);
    await vi.advanceTimersByTimeAsync(1000);
    await settle();
    expect(api.calls.map((c) => c.addresses)).toEqual([['1 Main St', '2 Main St'], ['2 Main St']]);
    api.calls[1]?.send(line(0));
    api.calls[1]?.end();
    await settle();
    await vi.advanceTimersByTimeAsync(300);
    snap = runner.getSnapshot();
    expect(outcomes(snap.rows)).toEqual(['matched', 'matched']);
    expect(snap.status.kind).toBe('done');
    expect(snap.waitingUntil).toBeNull();
  });

  it('pause aborts the request and keeps the unanswered rows pending; resume sends them again', async () => {
    const api = fakeLookups();
    const runner = await run(['1 Main St', '2 Main St', '3 Main St'], { fetch: api.fetch });
    api.calls[0]?.send(line(0));
    await settle();
    runner.pause();
    await settle();
    expect(api.calls[0]?.signal.aborted).toBe(true);
    expect(runner.getSnapshot().status).toEqual({ kind: 'paused', reason: 'user' });
    expect(outcomes(await store.getRows(runner.id))).toEqual(['matched', 'pending', 'pending']);
    expect((await store.getReview('acct-1', runner.id))?.state).toBe('paused');
    await vi.advanceTimersByTimeAsync(60_000);
    expect(api.calls).toHaveLength(1);

    runner.resume();
    await settle();
    expect(api.calls[1]?.addresses).toEqual(['2 Main St', '3 Main St']);
    expect((await store.getReview('acct-1', runner.id))?.state).toBe('running');
  });

  it('pauses when the session ends (401), keeps the review marked running, and goes on after sign-in', async () => {
    const api = fakeLookups();
    const ended = vi.fn();
    api.respondWith(
      () =>
        new Response(JSON.stringify({ error: { code: 'unauthenticated', message: 'Sign in.' } }), {
          status: 401,
        }),
    );
    const runner = await run(['1 Main St'], { fetch: api.fetch, onSessionEnded: ended });
    expect(runner.getSnapshot().status).toEqual({ kind: 'paused', reason: 'session' });
    expect(ended).toHaveBeenCalledTimes(1);
    expect((await store.getReview('acct-1', runner.id))?.state).toBe('running');
    expect(outcomes(runner.getSnapshot().rows)).toEqual(['pending']);

    api.respondWith(null);
    runner.resumeAfterSignIn();
    await settle();
    expect(api.calls).toHaveLength(2);
    api.calls[1]?.send(line(0));
    api.calls[1]?.end();
    await settle();
    expect(runner.getSnapshot().status.kind).toBe('done');
  });

  it('treats a row that says unauthenticated as the session ending, not as an outcome', async () => {
    const api = fakeLookups();
    const ended = vi.fn();
    const runner = await run(['1 Main St', '2 Main St'], { fetch: api.fetch, onSessionEnded: ended });
    api.calls[0]?.send(
      line(0),
      line(1, { outcome: 'failed', property: undefined, error: { code: 'unauthenticated', message: 'x' } }),
    );
    await settle();
    expect(ended).toHaveBeenCalled();
    expect(outcomes(await store.getRows(runner.id))).toEqual(['matched', 'pending']);
  });

  it('pauses when the network is lost and goes on when the browser is back online', async () => {
    const api = fakeLookups();
    let online = true;
    const listeners = new Set<() => void>();
    const runner = await run(['1 Main St', '2 Main St'], {
      fetch: api.fetch,
      isOnline: () => online,
      onOnline: (l) => {
        listeners.add(l);
        return () => listeners.delete(l);
      },
    });
    api.calls[0]?.send(line(0));
    await settle();
    online = false;
    api.calls[0]?.cut();
    await settle();
    expect(runner.getSnapshot().status).toMatchObject({ kind: 'paused', reason: 'offline' });
    expect(outcomes(await store.getRows(runner.id))).toEqual(['matched', 'pending']);

    online = true;
    for (const l of listeners) l();
    await settle();
    expect(runner.getSnapshot().status.kind).toBe('running');
    expect(api.calls[1]?.addresses).toEqual(['2 Main St']);
  });

  it('tries again by itself after a failed request when no online event will come', async () => {
    const api = fakeLookups();
    let fail = true;
    api.respondWith(() => {
      if (fail) throw new TypeError('Failed to fetch');
      return null as never;
    });
    const runner = await run(['1 Main St'], { fetch: api.fetch });
    const status = runner.getSnapshot().status;
    expect(status).toMatchObject({ kind: 'paused', reason: 'offline' });
    fail = false;
    api.respondWith(null);
    await vi.advanceTimersByTimeAsync((status.kind === 'paused' ? (status.retryAt ?? 0) : 0) - Date.now());
    await settle();
    expect(api.calls).toHaveLength(2);
    expect(runner.getSnapshot().status.kind).toBe('running');
  });

  it('resends rows a stream ended without, and fails them (retryable) after three tries', async () => {
    const api = fakeLookups();
    const runner = await run(['1 Main St', '2 Main St'], { fetch: api.fetch });
    for (let attempt = 0; attempt < 3; attempt++) {
      const call = api.calls.at(-1) as Call;
      if (attempt === 0) call.send(line(0), 'not json\n', '{"index":1}\n');
      call.end();
      await settle();
    }
    expect(api.calls.map((c) => c.addresses)).toEqual([
      ['1 Main St', '2 Main St'],
      ['2 Main St'],
      ['2 Main St'],
    ]);
    await vi.advanceTimersByTimeAsync(300);
    const snap = runner.getSnapshot();
    expect(outcomes(snap.rows)).toEqual(['matched', 'failed']);
    expect(snap.rows[1]?.error?.code).toBe('internal');
    expect(snap.retryable).toBe(1);
    expect(snap.status.kind).toBe('done');
  });

  it('"Retry failed" sends retryable failures again, not rows that need a change', async () => {
    const api = fakeLookups();
    const runner = await run(['1 Main St', `1 ${'x'.repeat(600)}`, '2 Main St'], { fetch: api.fetch });
    api.calls[0]?.send(
      line(0),
      line(1, {
        outcome: 'failed',
        property: undefined,
        error: { code: 'upstream_unavailable', message: 'Down.' },
      }),
    );
    api.calls[0]?.end();
    await settle();
    expect(runner.getSnapshot().status.kind).toBe('done');
    runner.retryFailed();
    await settle();
    expect(api.calls[1]?.addresses).toEqual(['2 Main St']);
    expect(outcomes(runner.getSnapshot().rows)).toEqual(['matched', 'failed', 'pending']);
    api.calls[1]?.send(line(0));
    api.calls[1]?.end();
    await settle();
    expect(outcomes(runner.getSnapshot().rows)).toEqual(['matched', 'failed', 'matched']);
  });

  it('a review that was running when the page closed resumes by itself where it stopped', async () => {
    const api = fakeLookups();
    const first = await run(['1 Main St', '2 Main St', '3 Main St'], { fetch: api.fetch });
    api.calls[0]?.send(line(1));
    await settle();
    first.dispose(); // the tab closes
    await settle();

    const review = await store.getReview('acct-1', first.id);
    expect(review?.state).toBe('running');
    const again = createReviewRunner(review as Review, await store.getRows(first.id), {
      store,
      fetch: api.fetch,
    });
    again.start();
    await settle();
    expect(api.calls[1]?.addresses).toEqual(['1 Main St', '3 Main St']);
    expect(again.getSnapshot().finished).toBe(1);
  });

  it('a paused review stays paused when opened again', async () => {
    const api = fakeLookups();
    const runner = await run(['1 Main St'], { fetch: api.fetch }, 'paused');
    expect(api.calls).toHaveLength(0);
    expect(runner.getSnapshot().status).toEqual({ kind: 'paused', reason: 'user' });
  });

  it('tells the page a few times a second, not once per row', async () => {
    const api = fakeLookups();
    const inputs = Array.from({ length: 50 }, (_, i) => `${i + 1} Main St`);
    const runner = await run(inputs, { fetch: api.fetch });
    const heard = vi.fn();
    runner.subscribe(heard);
    for (let i = 0; i < 50; i++) api.calls[0]?.send(line(i));
    await settle();
    expect(heard).not.toHaveBeenCalled();
    await vi.advanceTimersByTimeAsync(250);
    expect(heard).toHaveBeenCalledTimes(1);
    expect(runner.getSnapshot().finished).toBe(50);
  });

  it('pauses when the browser will not store answers, and stores them on resume', async () => {
    const api = fakeLookups();
    let refuse = true;
    const flaky: ReviewStore = {
      ...store,
      putRows: (rows) =>
        refuse ? Promise.reject(new DOMException('Quota', 'QuotaExceededError')) : store.putRows(rows),
    };
    const { review, rows } = await makeReview(['1 Main St', '2 Main St']);
    const runner = createReviewRunner(review, rows, { store: flaky, fetch: api.fetch });
    runner.start();
    await settle();
    api.calls[0]?.send(line(0));
    await settle();
    expect(runner.getSnapshot().status).toEqual({ kind: 'paused', reason: 'storage' });
    expect(api.calls[0]?.signal.aborted).toBe(true);
    expect(outcomes(await store.getRows(review.id))).toEqual(['pending', 'pending']);

    refuse = false;
    runner.resume();
    await settle();
    expect(outcomes(await store.getRows(review.id))).toEqual(['matched', 'pending']);
    expect(api.calls[1]?.addresses).toEqual(['2 Main St']);
  });

  it('cancel stops for good, leaving what is not looked up pending', async () => {
    const api = fakeLookups();
    const runner = await run(['1 Main St', '2 Main St'], { fetch: api.fetch });
    api.calls[0]?.send(line(0));
    await settle();
    runner.cancel();
    await settle();
    expect(api.calls[0]?.signal.aborted).toBe(true);
    expect(runner.getSnapshot().status).toEqual({ kind: 'cancelled' });
    expect((await store.getReview('acct-1', runner.id))?.state).toBe('cancelled');
    runner.resume();
    expect(runner.getSnapshot().status).toEqual({ kind: 'cancelled' });
  });
});
