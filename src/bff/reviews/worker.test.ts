import pino from 'pino';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { ApiErrorCode } from '../../contract/index.ts';
import type { HeldEntry } from '../audit/audit.ts';
import type { Session } from '../stores/sessions/types.ts';
import type { RowResult } from './look-up-row.ts';
import { type LeasedRow, type ReviewQueue, ReviewWorker, retryAt } from './worker.ts';
import { PARKED_PER_ACCOUNT } from './worker-holding.ts';

const logger = pino({ level: 'silent' });
const session = (accountId: string): Session => ({
  apiKey: `key-${accountId}`,
  keyHash: `hash-${accountId}`,
  account: { name: accountId, plan: 'professional' },
  accountId,
  createdAt: 0,
  lastSeenAt: 0,
});

/** The queue's contract as the database keeps it, in memory: leases, one outcome per row, retries. */
class QueueDouble implements ReviewQueue {
  pending: (LeasedRow & { notBefore: number })[] = [];
  done = new Map<string, RowResult>();
  leasedTo = new Map<string, string>();
  lost = new Set<string>();
  extended = 0;
  constructor(private readonly now: () => number) {}
  add(accountId: string, n: number) {
    for (let i = 0; i < n; i++)
      this.pending.push({
        reviewId: `r-${accountId}`,
        accountId,
        run: 1,
        index: i,
        address: `${i} Main St`,
        fresh: false,
        attempts: 0,
        notBefore: 0,
      });
  }
  async lease(owner: string, accounts: readonly string[], limit: number) {
    const out = this.pending
      .filter((r) => accounts.includes(r.accountId) && r.notBefore <= this.now())
      .slice(0, limit);
    this.pending = this.pending.filter((r) => !out.includes(r));
    for (const r of out) this.leasedTo.set(`${r.reviewId}:${r.index}`, owner);
    return out.map(({ notBefore: _, ...r }) => r);
  }
  async extend() {
    this.extended++;
  }
  async complete(_owner: string, row: LeasedRow, result: RowResult) {
    const key = `${row.reviewId}:${row.index}`;
    if (this.lost.has(key) || this.done.has(key)) return false;
    this.done.set(key, result);
    return true;
  }
  async retryLater(_owner: string, row: LeasedRow, notBefore: number) {
    this.pending.push({ ...row, attempts: row.attempts + 1, notBefore });
  }
  async release(_owner: string, rows: readonly LeasedRow[]) {
    this.pending.unshift(...rows.map((r) => ({ ...r, notBefore: 0 })));
  }
}

const matched = (): RowResult => ({
  outcome: 'matched',
  cached: false,
  retrievedAt: '2026-11-24T00:00:00.000Z',
});
const failed = (code: ApiErrorCode): RowResult => ({
  outcome: 'failed',
  cached: false,
  retrievedAt: '2026-11-24T00:00:00.000Z',
  error: { code, message: code },
});
/** The upstream's 429, as a row's answer: the budget refills at `resetAt` (epoch ms). */
const rateLimited = (resetAt: number): RowResult => ({
  ...failed('rate_limited'),
  error: { code: 'rate_limited', message: 'rate_limited', resetAt: new Date(resetAt).toISOString() },
});

describe('ReviewWorker', () => {
  let now = 0;
  beforeEach(() => {
    vi.useFakeTimers();
    now = 1_000_000;
  });
  afterEach(() => vi.useRealTimers());

  const setup = (
    opts: {
      live?: string[];
      lookUp?: (address: string, options: { hold: (held: HeldEntry) => void }) => Promise<RowResult>;
      concurrency?: number;
      maxAttempts?: number;
      onClockAdvance?: (listener: () => void) => () => void;
    } = {},
  ) => {
    const queue = new QueueDouble(() => now);
    const live = new Set(opts.live ?? ['a']);
    let inFlight = 0;
    let peak = 0;
    const progress: string[] = [];
    const worker = new ReviewWorker({
      queue,
      sessions: {
        liveAccounts: async () => [...live],
        sessionFor: async (id) => (live.has(id) ? session(id) : undefined),
      },
      lookUp: async (s, { address }, options) => {
        inFlight++;
        peak = Math.max(peak, inFlight);
        try {
          expect(s.apiKey).toMatch(/^key-/);
          return await (opts.lookUp ?? (async () => matched()))(address, options);
        } finally {
          inFlight--;
        }
      },
      logger,
      owner: 'replica-1',
      concurrency: opts.concurrency ?? 3,
      pollMs: 1_000,
      leaseMs: 30_000,
      ...(opts.maxAttempts ? { maxAttempts: opts.maxAttempts } : {}),
      now: () => now,
      ...(opts.onClockAdvance ? { onClockAdvance: opts.onClockAdvance } : {}),
      onProgress: (id) => progress.push(id),
    });
    return { queue, worker, live, progress, peak: () => peak };
  };

  /** Lets `ms` pass on both clocks, the worker's `now` and the fake timers, one poll (1 s) at a time. */
  const elapse = async (ms: number) => {
    for (let t = 0; t < ms; t += 1_000) {
      now += 1_000;
      await vi.advanceTimersByTimeAsync(1_000);
    }
  };
  /** The time between one ask and the next. */
  const gaps = (times: number[]) => times.slice(1).map((t, i) => t - (times[i] as number));

  it('works every row of an account with a live session, never more at once than its concurrency', async () => {
    const { queue, worker, progress, peak } = setup({
      lookUp: () => new Promise((r) => setTimeout(() => r(matched()), 100)),
    });
    queue.add('a', 10);
    worker.start();
    await vi.advanceTimersByTimeAsync(2_000);
    await worker.stop();
    expect(queue.done.size).toBe(10);
    expect(peak()).toBe(3);
    expect(progress).toHaveLength(10);
  });

  it('works rows answered from the cache hundreds at once, and goes back to its concurrency at one that was not', async () => {
    let served = 0;
    const inFlight: number[] = [];
    let flying = 0;
    const { queue, worker } = setup({
      // The first 1,000 rows from the cache, the next 1,000 from the service; each answer takes 10 ms.
      lookUp: () => {
        const cached = ++served <= 1_000;
        inFlight.push(++flying);
        return new Promise((r) =>
          setTimeout(() => {
            flying--;
            r({ ...matched(), cached });
          }, 10),
        );
      },
    });
    queue.add('a', 2_000);
    worker.start();
    await vi.advanceTimersByTimeAsync(20_000);
    await worker.stop();
    expect(queue.done.size).toBe(2_000);
    // Cached rows: the window doubles from 3 up to 512 (and 3 more in hand) at once.
    expect(Math.max(...inFlight.slice(0, 1_000))).toBeGreaterThan(256);
    expect(Math.max(...inFlight)).toBeLessThanOrEqual(512 + 3);
    // Once a row went to the service, the rows already in hand go (one window at most, once), then the rest
    // 3 at a time again.
    expect(Math.max(...inFlight.slice(-500))).toBeLessThanOrEqual(3);
  });

  it('leaves the rows of an account nobody is signed in to, and takes them at its next sign-in', async () => {
    const { queue, worker, live } = setup({ live: [] });
    queue.add('b', 4);
    worker.start();
    await vi.advanceTimersByTimeAsync(5_000);
    expect(queue.done.size).toBe(0);
    live.add('b');
    worker.notify();
    await vi.advanceTimersByTimeAsync(10);
    await worker.stop();
    expect(queue.done.size).toBe(4);
  });

  /** One row that always fails with a retryable error, worked for `ms`: when it was asked, and the queue. */
  async function failingRow(ms: number, maxAttempts?: number) {
    const asked: number[] = [];
    const { queue, worker } = setup({
      lookUp: async () => {
        asked.push(now);
        return failed('upstream_unavailable');
      },
      concurrency: 1,
      ...(maxAttempts ? { maxAttempts } : {}),
    });
    queue.add('a', 1);
    worker.start();
    await vi.advanceTimersByTimeAsync(0);
    await elapse(ms);
    await worker.stop();
    return { asked, queue };
  }

  it('asks a retryable failure again with back-off, and keeps a final failed outcome after the last attempt', async () => {
    const { asked, queue } = await failingRow(200_000);
    // Five attempts (maxAttempts), 1 s, 2 s, 4 s and 8 s apart; the last one's failure is the row's outcome.
    expect(gaps(asked)).toEqual([1_000, 2_000, 4_000, 8_000]);
    expect(queue.done.get('r-a:0')).toMatchObject({
      outcome: 'failed',
      error: { code: 'upstream_unavailable' },
    });
  });

  it('never waits more than a minute between two attempts of a failing row', async () => {
    const { asked, queue } = await failingRow(300_000, 9);
    expect(gaps(asked)).toEqual([1_000, 2_000, 4_000, 8_000, 16_000, 32_000, 60_000, 60_000]);
    expect(queue.done.get('r-a:0')?.outcome).toBe('failed');
  });

  it('asks no row the upstream refused with a reset again before that reset, every row of a refused batch', async () => {
    const resetAt = now + 30_000;
    const asked: { address: string; at: number }[] = [];
    const { queue, worker } = setup({
      lookUp: async (address) => {
        asked.push({ address, at: now });
        return now < resetAt ? rateLimited(resetAt) : matched();
      },
      concurrency: 3,
    });
    queue.add('a', 3);
    worker.start();
    await vi.advanceTimersByTimeAsync(0);
    expect(asked).toHaveLength(3); // the whole batch, refused
    await elapse(29_000);
    expect(asked).toHaveLength(3); // nothing sent into a known refusal
    await elapse(2_000);
    await worker.stop();
    // Once the reset has passed, each row is asked once more, and answered.
    const again = asked.slice(3);
    expect(again.map((a) => a.address).sort()).toEqual(['0 Main St', '1 Main St', '2 Main St']);
    expect(again.every((a) => a.at >= resetAt)).toBe(true);
    expect([...queue.done.values()].map((r) => r.outcome)).toEqual(['matched', 'matched', 'matched']);
  });

  it('when a test moves the clock past a reset, asks the refused rows again at once, its leases extended first', async () => {
    // The embedded reference's controllable clock, as src/bff/graph.ts passes it (REFERENCE_CLOCK=controllable).
    const listeners = new Set<() => void>();
    const move = (ms: number) => {
      now += ms;
      for (const listener of listeners) listener();
    };
    const resetAt = now + 30_000;
    const asked: number[] = [];
    // One row still in hand at the move (its answer not back yet): a move past its lease must not end it.
    let answerSlowRow: (result: RowResult) => void = () => {};
    const { queue, worker } = setup({
      lookUp: async (address) => {
        if (address === '2 Main St') return new Promise<RowResult>((resolve) => (answerSlowRow = resolve));
        asked.push(now);
        return now < resetAt ? rateLimited(resetAt) : matched();
      },
      concurrency: 3,
      onClockAdvance: (listener) => {
        listeners.add(listener);
        return () => listeners.delete(listener);
      },
    });
    queue.add('a', 3);
    worker.start();
    await vi.advanceTimersByTimeAsync(0);
    expect(asked).toHaveLength(2);
    const extendedBefore = queue.extended;

    move(31_000);
    // No poll interval passes: the move itself extends the lease in hand and wakes the worker.
    await vi.advanceTimersByTimeAsync(0);
    expect(queue.extended).toBe(extendedBefore + 1);
    expect(asked).toHaveLength(4);
    answerSlowRow(matched());
    await vi.advanceTimersByTimeAsync(0);
    expect([...queue.done.values()].map((r) => r.outcome)).toEqual(['matched', 'matched', 'matched']);
    await worker.stop();
    // Stopped: a later move reaches no worker.
    expect(listeners.size).toBe(0);
  });

  it('commits the entry of a lookup whose answer is not kept (its lease lost, or its completion refused)', async () => {
    const commits: string[] = [];
    const { queue, worker } = setup({
      lookUp: async (address, { hold }) => {
        hold({
          entry: { kind: 'review_row' } as HeldEntry['entry'],
          commit: async () => {
            commits.push(address);
          },
        });
        return matched();
      },
      concurrency: 2,
    });
    queue.add('a', 2);
    // Row 0's lease is lost before it completes (another holder has it); row 1's completion is refused.
    queue.lost.add('r-a:0');
    const complete = queue.complete.bind(queue);
    queue.complete = async (owner, row, result) => {
      if (row.index === 1 && row.attempts === 0) throw new Error('the database refused the transaction');
      return complete(owner, row, result);
    };
    worker.start();
    await vi.advanceTimersByTimeAsync(0);
    await worker.stop();
    // Both lookups were made with the account's key: both are on record, though neither answer was kept.
    expect(commits.sort()).toEqual(['0 Main St', '1 Main St']);
    expect(queue.done.size).toBe(0);
  });

  it('does not count a refused key (401) as an attempt: the row waits for a working session', async () => {
    const answers: ApiErrorCode[] = [];
    const { queue, worker } = setup({
      lookUp: async () => {
        // Four times the key is refused (its session ended); then the service fails every time.
        const code = answers.length < 4 ? 'unauthenticated' : 'upstream_unavailable';
        answers.push(code);
        return failed(code);
      },
      concurrency: 1,
    });
    queue.add('a', 1);
    worker.start();
    await vi.advanceTimersByTimeAsync(0);
    await elapse(200_000);
    await worker.stop();
    // All five attempts are the service's failures; the refused key's asks did not use any of them up.
    expect(answers.filter((c) => c === 'unauthenticated')).toHaveLength(4);
    expect(answers.filter((c) => c === 'upstream_unavailable')).toHaveLength(5);
    expect(queue.done.get('r-a:0')?.error?.code).toBe('upstream_unavailable');
  });

  it('does not retry a failure that needs a different input', async () => {
    let calls = 0;
    const { queue, worker } = setup({
      lookUp: async () => {
        calls++;
        return failed('bad_request');
      },
    });
    queue.add('a', 1);
    worker.start();
    await vi.advanceTimersByTimeAsync(5_000);
    await worker.stop();
    expect(calls).toBe(1);
    expect(queue.done.get('r-a:0')?.outcome).toBe('failed');
  });

  it('keeps its leases alive while rows wait, and reports nothing for a row whose lease was lost', async () => {
    const { queue, worker, progress } = setup({
      lookUp: () => new Promise((r) => setTimeout(() => r(matched()), 45_000)),
      concurrency: 1,
    });
    queue.add('a', 1);
    queue.lost.add('r-a:0');
    worker.start();
    await vi.advanceTimersByTimeAsync(46_000);
    await worker.stop();
    expect(queue.extended).toBeGreaterThanOrEqual(4);
    expect(progress).toEqual([]);
  });

  it('stops without writing the rows in hand (their leases run out and any replica asks them again)', async () => {
    const { queue, worker } = setup({ lookUp: () => new Promise(() => {}) });
    queue.add('a', 2);
    worker.start();
    await vi.advanceTimersByTimeAsync(10);
    expect(worker.activeRows).toBe(2);
    await worker.stop();
    expect(queue.done.size).toBe(0);
  });
});

describe('retryAt', () => {
  it('waits for the rate limit reset when the failure names one, else backs off up to a minute', () => {
    const now = Date.parse('2026-11-24T10:00:00Z');
    const limited: RowResult = {
      ...failed('upstream_unavailable'),
      error: { code: 'rate_limited', message: '', resetAt: '2026-11-24T10:00:30Z' },
    };
    expect(retryAt(limited, 0, now)).toBe(now + 30_000);
    expect(retryAt(failed('upstream_unavailable'), 0, now)).toBe(now + 1_000);
    expect(retryAt(failed('upstream_unavailable'), 3, now)).toBe(now + 8_000);
    expect(retryAt(failed('upstream_unavailable'), 20, now)).toBe(now + 60_000);
  });
});

describe('ReviewWorker beside an account waiting on its rate limit', () => {
  beforeEach(() => vi.useFakeTimers());
  afterEach(() => vi.useRealTimers());

  it('holds at most two of its rows, gives the rest back untouched, and works another account’s meanwhile', async () => {
    const queue = new QueueDouble(() => Date.now());
    // Account a's rows come first in the queue, as its backlog came first.
    queue.add('a', 20);
    queue.add('b', 5);
    // The scheduler, as the worker sees it: every lookup of a waits for a slot that never comes in this test.
    let waitingA = 0;
    const worker = new ReviewWorker({
      queue,
      sessions: { liveAccounts: async () => ['a', 'b'], sessionFor: async (id) => session(id) },
      lookUp: (s, _row, { signal }) =>
        s.accountId === 'b'
          ? Promise.resolve(matched())
          : new Promise<RowResult>((_resolve, reject) => {
              waitingA++;
              signal.addEventListener('abort', () => {
                waitingA--;
                reject(signal.reason);
              });
            }),
      slotWaiters: (keyHash) => (keyHash === 'hash-a' ? waitingA : 0),
      logger,
      owner: 'replica-1',
      concurrency: 4,
      pollMs: 1_000,
    });
    worker.start();
    await vi.advanceTimersByTimeAsync(5_000);
    // b's rows are answered although a's took every slot first; a keeps two rows waiting, the rest go back.
    expect([...queue.done.keys()].filter((k) => k.startsWith('r-b')).length).toBe(5);
    expect(worker.activeRows).toBe(PARKED_PER_ACCOUNT);
    expect(waitingA).toBe(PARKED_PER_ACCOUNT);
    const back = queue.pending.filter((r) => r.accountId === 'a');
    expect(back).toHaveLength(20 - PARKED_PER_ACCOUNT);
    expect(back.every((r) => r.attempts === 0)).toBe(true);
    await worker.stop();
  });
});
