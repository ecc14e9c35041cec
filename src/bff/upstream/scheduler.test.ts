import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { Lane } from '../../contract/index.ts';
import { ClientGone } from '../cancel.ts';
import { MemoryBudgetStore } from '../stores/budget/memory.ts';
import { type BudgetStore, NO_HEADERS_CONCURRENCY } from './budget.ts';
import { type Slot, SlotUnavailable, UpstreamScheduler } from './scheduler.ts';

/**
 * A fixed-window upstream, as the reference and most providers count: `limit` requests per `windowMs`,
 * answered after `latencyMs`, each answer stating Limit / Remaining / Reset. It counts what it refuses.
 */
function simulatedUpstream(limit: number, windowMs: number, latencyMs = 20) {
  const start = Date.now();
  let windowIndex = -1;
  let used = 0;
  const stats = { sent: 0, refused: 0, served: 0 };
  const send = async () => {
    stats.sent++;
    await new Promise((r) => setTimeout(r, latencyMs / 2));
    const now = Date.now();
    const w = Math.floor((now - start) / windowMs);
    if (w !== windowIndex) {
      windowIndex = w;
      used = 0;
    }
    const resetAt = start + (w + 1) * windowMs;
    const ok = used < limit;
    if (ok) used++;
    else stats.refused++;
    if (ok) stats.served++;
    await new Promise((r) => setTimeout(r, latencyMs / 2));
    return { status: ok ? 200 : 429, rate: { limit, remaining: Math.max(0, limit - used), resetAt } };
  };
  return { send, stats };
}

async function runRows(
  scheduler: UpstreamScheduler,
  upstream: ReturnType<typeof simulatedUpstream>,
  count: number,
  lane: Lane,
  deadlineMs = Number.POSITIVE_INFINITY,
) {
  const finished: number[] = [];
  const rows = Array.from({ length: count }, async () => {
    for (;;) {
      const slot = await scheduler.acquire('acct', lane, Date.now() + deadlineMs);
      const answer = await upstream.send();
      await slot.release({ kind: 'answer', status: answer.status, rate: answer.rate });
      if (answer.status !== 429) break;
    }
    finished.push(Date.now());
  });
  return { done: Promise.all(rows), finished };
}

/** The same rules with only the asynchronous methods, as a shared (Redis) store offers: no fast path. */
function asyncOnly(store: MemoryBudgetStore): BudgetStore {
  return {
    reserve: (key, lane, now) => store.reserve(key, lane, now),
    observe: (key, result, now) => store.observe(key, result, now),
    view: (key, now) => store.view(key, now),
  };
}

// Every rule holds whether slots are granted synchronously (in-process store) or through the queue's chain.
describe.each([
  ['in-process store', () => new MemoryBudgetStore()],
  ['asynchronous store', () => asyncOnly(new MemoryBudgetStore())],
])('UpstreamScheduler, %s', (_name, newStore: () => BudgetStore) => {
  beforeEach(() => {
    vi.useFakeTimers({
      toFake: ['setTimeout', 'clearTimeout', 'Date'],
      now: new Date('2026-11-22T12:00:00Z'),
    });
  });
  afterEach(() => vi.useRealTimers());

  it('paces 1,000 review rows to 600 per minute: about 100 s, at least 95% of the allowed rate, no 429', async () => {
    const scheduler = new UpstreamScheduler(newStore());
    const upstream = simulatedUpstream(600, 60_000);
    const started = Date.now();
    const { done, finished } = await runRows(scheduler, upstream, 1000, 'review');
    await vi.advanceTimersByTimeAsync(200_000);
    expect(finished).toHaveLength(1000); // every row done within the 200 s that passed
    await done;
    expect(upstream.stats.refused).toBe(0);
    const seconds = (Math.max(...finished) - started) / 1000;
    // 1,000 rows at 10 a second is 100 s of budget; 95% of the rate is 105 s.
    expect(seconds).toBeLessThanOrEqual(105);
    expect(seconds).toBeGreaterThan(60); // paced across the windows, not burst into the first
  });

  it('never sends a request the upstream must refuse, with many rows at once on a small limit', async () => {
    const scheduler = new UpstreamScheduler(newStore());
    const upstream = simulatedUpstream(30, 10_000, 50);
    const { done, finished } = await runRows(scheduler, upstream, 200, 'review');
    await vi.advanceTimersByTimeAsync(90_000);
    expect(finished).toHaveLength(200); // every row done within the 90 s that passed
    await done;
    expect(upstream.stats.refused).toBe(0);
    expect(upstream.stats.sent).toBe(200);
  });

  it('serves an interactive request ahead of queued review rows', async () => {
    const scheduler = new UpstreamScheduler(newStore());
    const upstream = simulatedUpstream(60, 60_000);
    const { done } = await runRows(scheduler, upstream, 300, 'review');
    await vi.advanceTimersByTimeAsync(5_000); // the review is under way and pacing
    let slot: Slot | null = null;
    const asked = scheduler.acquire('acct', 'interactive', Date.now() + 20_000).then((s) => {
      slot = s;
      return s;
    });
    // A reserve is held back for interactive work: it goes at once, not after 250 queued rows (the rows are
    // paced a second apart, so waiting for their next slot would take longer than this).
    await vi.advanceTimersByTimeAsync(100);
    expect(slot).not.toBeNull();
    await (await asked).release({ kind: 'answer', status: 200, rate: null });
    await vi.advanceTimersByTimeAsync(400_000);
    await done;
    expect(upstream.stats.refused).toBe(0);
  });

  it('when the window refills, gives the first slot to the interactive request that came last', async () => {
    const scheduler = new UpstreamScheduler(newStore());
    const probe = await scheduler.acquire('acct', 'review', Date.now() + 60_000);
    await probe.release({
      kind: 'answer',
      status: 200,
      rate: { limit: 3, remaining: 0, resetAt: Date.now() + 5_000 },
    });
    const order: string[] = [];
    const reviews = Array.from({ length: 4 }, (_, i) =>
      scheduler.acquire('acct', 'review', Date.now() + 60_000).then((s) => {
        order.push(`review ${i}`);
        return s.release({ kind: 'none' });
      }),
    );
    await vi.advanceTimersByTimeAsync(1_000);
    const interactive = scheduler.acquire('acct', 'interactive', Date.now() + 20_000).then((s) => {
      order.push('interactive');
      return s.release({ kind: 'none' });
    });
    await vi.advanceTimersByTimeAsync(4_500);
    expect(order[0]).toBe('interactive');
    await interactive;
    await vi.advanceTimersByTimeAsync(30_000);
    // Then the review rows, first come first served.
    expect(order).toEqual(['interactive', 'review 0', 'review 1', 'review 2', 'review 3']);
    await Promise.all(reviews);
  });

  it('refuses an interactive request at once when no slot frees up before its deadline', async () => {
    const scheduler = new UpstreamScheduler(newStore());
    const upstream = simulatedUpstream(2, 60_000);
    const { done } = await runRows(scheduler, upstream, 2, 'interactive');
    await vi.advanceTimersByTimeAsync(1_000);
    await done;
    const err = await scheduler.acquire('acct', 'interactive', Date.now() + 20_000).catch((e) => e);
    expect(err).toBeInstanceOf(SlotUnavailable);
    // When a slot frees up, as the upstream stated it: the window's end, a minute after the first request.
    expect((err as SlotUnavailable).resetAt).toBe(Date.parse('2026-11-22T12:01:00Z'));
  });

  it('recovers from an unforeseen 429 per its reset, without the rest of the account failing', async () => {
    const scheduler = new UpstreamScheduler(newStore());
    const resetAt = Date.now() + 3_000;
    const first = await scheduler.acquire('acct', 'interactive', Date.now() + 20_000);
    await first.release({ kind: 'answer', status: 429, rate: { limit: 100, remaining: 0, resetAt } });
    const waiting = Array.from({ length: 5 }, () =>
      scheduler.acquire('acct', 'interactive', Date.now() + 20_000),
    );
    let granted = 0;
    for (const w of waiting) void w.then(() => granted++);
    await vi.advanceTimersByTimeAsync(2_900);
    expect(granted).toBe(0); // nothing is sent into a known refusal
    await vi.advanceTimersByTimeAsync(500);
    expect(granted).toBe(5); // all go once the advertised reset has passed
  });

  it('probes with one request until the upstream has stated its limit', async () => {
    const scheduler = new UpstreamScheduler(newStore());
    const probe = await scheduler.acquire('acct', 'interactive', Date.now() + 20_000);
    let second = false;
    const next = scheduler.acquire('acct', 'interactive', Date.now() + 20_000).then((s) => {
      second = true;
      return s;
    });
    await vi.advanceTimersByTimeAsync(10);
    expect(second).toBe(false);
    await probe.release({
      kind: 'answer',
      status: 200,
      rate: { limit: 10, remaining: 9, resetAt: Date.now() + 60_000 },
    });
    await vi.advanceTimersByTimeAsync(0);
    expect(second).toBe(true);
    await (await next).release({ kind: 'none' });
  });

  it('keeps accounts apart: one exhausted account does not hold up another', async () => {
    const scheduler = new UpstreamScheduler(newStore());
    const a = await scheduler.acquire('a', 'interactive', Date.now() + 20_000);
    await a.release({
      kind: 'answer',
      status: 200,
      rate: { limit: 1, remaining: 0, resetAt: Date.now() + 10_000 },
    });
    // Account a's next request waits for its reset, queued ahead of b's.
    const granted: string[] = [];
    const aNext = scheduler.acquire('a', 'interactive', Date.now() + 20_000).then((s) => {
      granted.push('a');
      return s;
    });
    const b = scheduler.acquire('b', 'interactive', Date.now() + 20_000).then((s) => {
      granted.push('b');
      return s;
    });
    await vi.advanceTimersByTimeAsync(0);
    expect(granted).toEqual(['b']);
    await (await b).release({ kind: 'none' });
    await vi.advanceTimersByTimeAsync(10_500);
    expect(granted).toEqual(['b', 'a']);
    await (await aNext).release({ kind: 'none' });
  });

  it('lets a caller that goes away leave the queue', async () => {
    const scheduler = new UpstreamScheduler(newStore());
    const probe = await scheduler.acquire('acct', 'review', Date.now() + 60_000);
    const controller = new AbortController();
    const waiting = scheduler.acquire('acct', 'review', Date.now() + 60_000, controller.signal);
    controller.abort();
    await expect(waiting).rejects.toBeInstanceOf(ClientGone);
    expect(scheduler.waiting('acct')).toEqual({ interactive: 0, review: 0 });
    await probe.release({ kind: 'none' });
  });

  it('lets several requests go at once when the upstream states no limit', async () => {
    const scheduler = new UpstreamScheduler(newStore());
    const probe = await scheduler.acquire('acct', 'review', Date.now() + 60_000);
    await probe.release({ kind: 'answer', status: 200, rate: null });
    // Nothing to pace by: a small number at once (NO_HEADERS_CONCURRENCY), the rest as those finish.
    const slots: Slot[] = [];
    for (let i = 0; i < NO_HEADERS_CONCURRENCY + 1; i++)
      void scheduler.acquire('acct', 'review', Date.now() + 60_000).then((s) => slots.push(s));
    await vi.advanceTimersByTimeAsync(0);
    expect(slots).toHaveLength(NO_HEADERS_CONCURRENCY);
    expect(NO_HEADERS_CONCURRENCY).toBeGreaterThan(1);
    await slots[0]?.release({ kind: 'answer', status: 200, rate: null });
    await vi.advanceTimersByTimeAsync(0);
    expect(slots).toHaveLength(NO_HEADERS_CONCURRENCY + 1);
  });

  it('lets a request held for the reset go as soon as a test moves the clock past it, not when the old wait ends', async () => {
    // The embedded reference's controllable clock (REFERENCE_CLOCK=controllable), as src/main.ts shares it.
    let offset = 0;
    const listeners = new Set<() => void>();
    const now = () => Date.now() + offset;
    const onAdvance = (listener: () => void) => {
      listeners.add(listener);
      return () => listeners.delete(listener);
    };
    const scheduler = new UpstreamScheduler(newStore(), { now, onAdvance });
    const first = await scheduler.acquire('acct', 'interactive', now() + 120_000);
    await first.release({
      kind: 'answer',
      status: 200,
      rate: { limit: 1, remaining: 0, resetAt: now() + 60_000 },
    });
    let granted = false;
    const second = scheduler.acquire('acct', 'interactive', now() + 120_000).then((slot) => {
      granted = true;
      return slot;
    });
    await vi.advanceTimersByTimeAsync(5_000);
    expect(granted).toBe(false);

    offset += 60_000;
    for (const listener of listeners) listener();
    await vi.advanceTimersByTimeAsync(0);
    expect(granted).toBe(true);
    await (await second).release({ kind: 'none' });
  });

  it('gives a freed slot to the request already waiting, not to one that arrives in the same tick', async () => {
    const scheduler = new UpstreamScheduler(newStore());
    const probe = await scheduler.acquire('acct', 'review', Date.now() + 60_000);
    await probe.release({ kind: 'answer', status: 200, rate: null });
    // Every slot taken (no stated limit: NO_HEADERS_CONCURRENCY at once), and one more request waiting.
    const slots = await Promise.all(
      Array.from({ length: NO_HEADERS_CONCURRENCY }, () =>
        scheduler.acquire('acct', 'review', Date.now() + 60_000),
      ),
    );
    const granted: string[] = [];
    const take = (who: string) =>
      scheduler.acquire('acct', 'review', Date.now() + 60_000).then((slot) => {
        granted.push(who);
        return slot;
      });
    const waiter = take('waiter');
    await vi.advanceTimersByTimeAsync(0);
    expect(scheduler.waiting('acct')).toEqual({ interactive: 0, review: 1 });
    // A slot frees, and a newcomer asks before anything else runs.
    void slots[0]?.release({ kind: 'answer', status: 200, rate: null });
    const newcomer = take('newcomer');
    await vi.advanceTimersByTimeAsync(0);
    expect(granted).toEqual(['waiter']);
    // The newcomer waits its turn: the next slot that frees.
    await slots[1]?.release({ kind: 'answer', status: 200, rate: null });
    await vi.advanceTimersByTimeAsync(0);
    expect(granted).toEqual(['waiter', 'newcomer']);
    for (const slot of [...slots.slice(2), await waiter, await newcomer])
      await slot?.release({ kind: 'none' });
  });
});
