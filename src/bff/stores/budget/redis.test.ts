import { describe, expect, it } from 'vitest';
import type { Lane } from '../../../contract/index.ts';
import { redisServerAvailable, useTestRedis } from '../../test-support/test-redis.ts';
import {
  type AttemptResult,
  type BudgetState,
  type BudgetStore,
  type Decision,
  initialBudget,
  observe,
  type RateView,
  reserve,
} from '../../upstream/budget.ts';
import { UpstreamScheduler } from '../../upstream/scheduler.ts';
import { RedisConnection } from '../redis-connection.ts';
import { deriveSecrets, RedisKeys } from '../redis-keys.ts';
import { MemoryBudgetStore } from './memory.ts';
import { RedisBudgetStore } from './redis.ts';

/*
 * One set of rules, two implementations: the pure functions in upstream/budget.ts (the memory store) and their
 * Lua port (the Redis store). Every case below runs on both and must give the same, hand-checked, answers;
 * then random sequences must give the same decisions and the same state on both, step by step.
 */

const POLL_MS = 50;
const ACCOUNT = 'account-key-hash';
const keys = new RedisKeys(deriveSecrets('test-session-secret-test-session-secret').namesKey);

const ok = (): Decision => ({ ok: true });
const wait = (retryAt: number | null, resetAt: number | null): Decision => ({ ok: false, retryAt, resetAt });
const answer = (status: number, limit: number, remaining: number, resetAt: number): AttemptResult => ({
  kind: 'answer',
  status,
  rate: { limit, remaining, resetAt },
});
const bare = (status: number): AttemptResult => ({ kind: 'answer', status, rate: null });
const none: AttemptResult = { kind: 'none' };

type Step =
  | { at: number; reserve: Lane; expect: Decision }
  | { at: number; observe: AttemptResult }
  | { at: number; view: RateView | null };

const r = (at: number, expect: Decision, lane: Lane = 'interactive'): Step => ({ at, reserve: lane, expect });
const o = (at: number, result: AttemptResult): Step => ({ at, observe: result });
const v = (at: number, view: RateView | null): Step => ({ at, view });

const CASES: [string, Step[]][] = [
  [
    'until the first answer one request probes; the rest wait for its headers',
    [
      r(0, ok()),
      r(0, wait(null, null)),
      v(0, null),
      o(10, answer(200, 10, 9, 60_000)),
      r(10, ok()),
      v(10, { limit: 10, remaining: 8, resetAt: 60_000, windowMs: 59_990 }),
    ],
  ],
  [
    'an attempt with no answer frees its slot and tells nothing',
    [r(0, ok()), r(0, wait(null, null)), o(5, none), r(5, ok()), v(5, null)],
  ],
  [
    'no slot left: wait for the reset plus the margin, then a window refilled on our own estimate',
    [
      r(0, ok()),
      o(5, answer(200, 2, 1, 1000)),
      r(10, ok()),
      r(20, wait(1250, 1000)),
      o(30, answer(200, 2, 0, 1000)),
      r(1249, wait(1250, 1000)),
      r(1250, ok()),
      v(1250, { limit: 2, remaining: 1, resetAt: 1995, windowMs: 995 }),
    ],
  ],
  [
    'a 429 blocks every request until its reset, and the window after it is full',
    [
      r(0, ok()),
      o(0, answer(200, 10, 9, 10_000)),
      r(100, ok()),
      o(200, answer(429, 10, 0, 5000)),
      r(300, wait(5000, 5000)),
      r(300, wait(5000, 5000), 'review'),
      r(5000, wait(5250, 5000)),
      r(5250, ok()),
      v(5250, { limit: 10, remaining: 9, resetAt: 15_000, windowMs: 10_000 }),
    ],
  ],
  [
    'a 429 that names no reset holds the account for a second',
    [r(0, ok()), o(10, bare(429)), r(500, wait(1010, 1010)), r(1010, ok())],
  ],
  [
    'an upstream with no rate-limit headers gets four at a time',
    [
      r(0, ok()),
      o(1, bare(200)),
      r(2, ok()),
      r(2, ok()),
      r(2, ok()),
      r(2, ok()),
      r(2, wait(null, null)),
      o(3, none),
      r(3, ok()),
      v(3, null),
    ],
  ],
  [
    'review work is spread evenly over the window less its last second, and leaves 2% of it to interactive requests',
    [
      r(0, ok()),
      o(0, answer(200, 100, 99, 10_000)),
      r(0, ok(), 'review'),
      // Paced on a virtual schedule that a request may meet a clock tick (1 ms) early.
      r(50, wait(9_000 / 97 - 1, null), 'review'),
      r(50, ok()),
      r(104, ok(), 'review'),
      r(105, wait(104 + 8896 / 95 - 1, null), 'review'),
      v(105, { limit: 100, remaining: 96, resetAt: 10_000, windowMs: 10_000 }),
    ],
  ],
  [
    'review requests spaced under a millisecond go many to a millisecond, as the limit allows, not one a millisecond',
    [
      r(0, ok()),
      o(0, answer(200, 1_000_000, 999_999, 61_000)),
      // 60 s over 979,999 usable slots: 0.06 ms apart, so some sixteen go in the same millisecond.
      ...Array.from({ length: 10 }, () => r(1, ok(), 'review')),
      r(2, ok(), 'review'),
    ],
  ],
  [
    'with no interactive request for 5 s the reserve is lent to review work; the next one takes a slot at once and the reserve back',
    [
      r(0, ok()),
      o(0, answer(200, 100, 99, 20_000)),
      // 4,999 ms after the interactive request: 2 of the 99 held back, the rest spread over the window.
      r(4_999, ok(), 'review'),
      r(5_000, wait(4_999 + 14_001 / 97 - 1, null), 'review'),
      // 5 s on: all 98 left are the review's to spread.
      r(5_200, ok(), 'review'),
      r(5_201, wait(5_200 + 13_800 / 98 - 1, null), 'review'),
      r(5_300, ok()),
      // Held again after an interactive request: 2 of the 96 left.
      r(5_400, ok(), 'review'),
      r(5_401, wait(5_400 + 13_600 / 94 - 1, null), 'review'),
      v(5_401, { limit: 100, remaining: 95, resetAt: 20_000, windowMs: 20_000 }),
    ],
  ],
  [
    "in the window's last second the interactive reserve goes to review work too",
    [
      r(0, ok()),
      o(0, answer(200, 10, 1, 2000)),
      r(10, wait(1000, 2000), 'review'),
      r(1000, ok(), 'review'),
      r(1001, wait(2250, 2000)),
    ],
  ],
  [
    'answers overtaking each other: the lowest figure, less what is in flight; exact once none is',
    [
      r(0, ok()),
      o(0, answer(200, 10, 9, 10_000)),
      r(1, ok()),
      r(1, ok()),
      r(1, ok()),
      o(2, answer(200, 10, 6, 10_000)),
      v(2, { limit: 10, remaining: 4, resetAt: 10_000, windowMs: 10_000 }),
      o(3, answer(200, 10, 7, 10_000)),
      v(3, { limit: 10, remaining: 4, resetAt: 10_000, windowMs: 10_000 }),
      o(4, answer(200, 10, 8, 10_000)),
      v(4, { limit: 10, remaining: 6, resetAt: 10_000, windowMs: 10_000 }),
    ],
  ],
  [
    'a late answer from an ended window says nothing of the new one',
    [
      r(0, ok()),
      o(0, answer(200, 10, 9, 10_000)),
      r(5000, ok()),
      r(10_250, ok()),
      v(10_250, { limit: 10, remaining: 8, resetAt: 20_000, windowMs: 10_000 }),
      o(10_300, answer(200, 10, 8, 10_000)),
      v(10_300, { limit: 10, remaining: 8, resetAt: 20_000, windowMs: 10_000 }),
      o(10_400, answer(200, 10, 9, 20_000)),
      v(10_400, { limit: 10, remaining: 8, resetAt: 20_000, windowMs: 10_000 }),
    ],
  ],
  [
    'after its reset the view shows the window full again, whatever we last heard',
    [
      r(0, ok()),
      o(0, answer(200, 5, 0, 1000)),
      v(999, { limit: 5, remaining: 0, resetAt: 1000, windowMs: 1000 }),
      v(1000, { limit: 5, remaining: 5, resetAt: 1000, windowMs: 1000 }),
    ],
  ],
];

async function play(store: BudgetStore, steps: Step[], pollMs: number | null) {
  for (const step of steps) {
    if ('reserve' in step) {
      const expected =
        pollMs !== null && !step.expect.ok && step.expect.retryAt === null
          ? wait(step.at + pollMs, step.expect.resetAt)
          : step.expect;
      expect(await store.reserve(ACCOUNT, step.reserve, step.at), `reserve at ${step.at}`).toEqual(expected);
    } else if ('observe' in step) {
      await store.observe(ACCOUNT, step.observe, step.at);
    } else {
      expect(await store.view(ACCOUNT, step.at), `view at ${step.at}`).toEqual(step.view);
    }
  }
}

describe('the rate budget rules, in memory', () => {
  it.each(CASES)('%s', async (_name, steps) => {
    await play(new MemoryBudgetStore(), steps, null);
  });
});

describe.skipIf(!redisServerAvailable())('the rate budget rules, in Redis (the same cases)', () => {
  const local = useTestRedis();
  const stores: RedisBudgetStore[] = [];
  const newStore = (inflightTtlMs = 3_600_000) => {
    const store = new RedisBudgetStore(local.redis, keys, { inflightTtlMs, releasePollMs: POLL_MS });
    stores.push(store);
    return store;
  };

  it.each(CASES)('%s', async (_name, steps) => {
    // A wait for an answer in flight comes back as a short poll: that answer may reach another replica.
    await play(newStore(), steps, POLL_MS);
  });

  it('makes the same decisions and keeps the same state as the pure rules over random sequences', async () => {
    let seed = 42;
    const random = () => {
      seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31;
      return seed / 2 ** 31;
    };
    const pick = <T>(items: T[]): T => items[Math.floor(random() * items.length)] as T;
    for (let run = 0; run < 40; run++) {
      await local.redis.client.flushall();
      const store = newStore();
      const state: BudgetState = initialBudget();
      const limit = pick([1, 3, 10, 60]);
      const windowMs = pick([1000, 5000, 60_000]);
      let now = 1_700_000_000_000 + Math.floor(random() * 1000);
      let windowEnd = now + windowMs;
      let upstreamRemaining = limit;
      let inflight = 0;
      for (let step = 0; step < 60; step++) {
        now += pick([0, 1, 7, 120, 333.5, 900, 1500]);
        while (now >= windowEnd) {
          windowEnd += windowMs;
          upstreamRemaining = limit;
        }
        if (inflight > 0 && random() < 0.5) {
          inflight--;
          const roll = random();
          let result: AttemptResult;
          if (roll < 0.1) result = none;
          else if (roll < 0.15) result = bare(pick([200, 429, 503]));
          else {
            const refused = upstreamRemaining <= 0 || roll < 0.2;
            if (!refused) upstreamRemaining--;
            // Answers report the window as it stood, sometimes a late one from the window before.
            const reset = roll > 0.95 ? windowEnd - windowMs : windowEnd;
            result = answer(refused ? 429 : pick([200, 404]), limit, Math.max(0, upstreamRemaining), reset);
          }
          observe(state, result, now);
          await store.observe(ACCOUNT, result, now);
        } else {
          const lane: Lane = random() < 0.5 ? 'review' : 'interactive';
          const expected = reserve(state, lane, now);
          if (expected.ok) inflight++;
          const got = await store.reserve(ACCOUNT, lane, now);
          const normal =
            !expected.ok && expected.retryAt === null ? wait(now + POLL_MS, expected.resetAt) : expected;
          expect(got, `run ${run} step ${step}`).toEqual(normal);
        }
        const raw = await local.redis.client.hgetall(keys.budget(ACCOUNT));
        if (raw.known !== undefined) {
          const { inflight: expectedInflight, ...fields } = state;
          const stored = Object.fromEntries(Object.keys(fields).map((k) => [k, Number(raw[k])]));
          const asNumbers = Object.fromEntries(
            Object.entries(fields).map(([k, value]) => [
              k,
              typeof value === 'boolean' ? Number(value) : value,
            ]),
          );
          expect(stored, `state after run ${run} step ${step}`).toEqual(asNumbers);
          expect(await local.redis.client.zcard(keys.budgetInflight(ACCOUNT))).toBe(expectedInflight);
        }
      }
    }
  }, 30_000); // 20 runs of 60 steps, each read back from Redis: about 5 s on a loaded machine, nothing timed

  it('is one budget for every replica: together they never take more slots than the upstream has left', async () => {
    const a = newStore();
    const b = newStore();
    expect(await a.reserve(ACCOUNT, 'interactive', 0)).toEqual(ok());
    await a.observe(ACCOUNT, answer(200, 20, 10, 60_000), 1);
    const decisions = await Promise.all(
      Array.from({ length: 40 }, (_, i) => (i % 2 ? a : b).reserve(ACCOUNT, 'interactive', 2)),
    );
    expect(decisions.filter((d) => d.ok)).toHaveLength(10);
    expect(decisions.find((d) => !d.ok)).toEqual(wait(60_250, 60_000));
  });

  it("a 429 seen by one replica holds every replica until the upstream's reset", async () => {
    const a = newStore();
    const b = newStore();
    await a.reserve(ACCOUNT, 'interactive', 0);
    await a.observe(ACCOUNT, answer(200, 10, 9, 60_000), 0);
    await a.reserve(ACCOUNT, 'interactive', 10);
    await a.observe(ACCOUNT, answer(429, 10, 0, 30_000), 20);
    expect(await b.reserve(ACCOUNT, 'interactive', 30)).toEqual(wait(30_000, 30_000));
  });

  it('a replica waiting on another one’s probe polls, and goes once that answer is in', async () => {
    const a = newStore();
    const b = newStore();
    expect(await a.reserve(ACCOUNT, 'interactive', 0)).toEqual(ok());
    expect(await b.reserve(ACCOUNT, 'interactive', 1)).toEqual(wait(1 + POLL_MS, null));
    await a.observe(ACCOUNT, answer(200, 10, 9, 60_000), 40);
    expect(await b.reserve(ACCOUNT, 'interactive', 51)).toEqual(ok());
  });

  it('gives back the slots of a replica that died holding them, after their safety expiry', async () => {
    const crashed = newStore(5000);
    const alive = newStore(5000);
    expect(await crashed.reserve(ACCOUNT, 'interactive', 0)).toEqual(ok());
    // The probe's answer never comes: the others wait, but not for ever.
    expect(await alive.reserve(ACCOUNT, 'interactive', 4999)).toEqual(wait(4999 + POLL_MS, null));
    expect(await alive.reserve(ACCOUNT, 'interactive', 5001)).toEqual(ok());
  });

  it('keeps accounts apart, under versioned key names that do not show the account', async () => {
    const store = newStore();
    await store.reserve('hash-one', 'interactive', 0);
    await store.observe('hash-one', answer(200, 10, 0, 60_000), 1);
    expect(await store.reserve('hash-two', 'interactive', 2)).toEqual(ok());
    const names = await local.redis.client.keys('*');
    expect(names.length).toBeGreaterThan(0);
    for (const name of names) {
      expect(name).toMatch(/^proplens:v1:budget(-inflight)?:[A-Za-z0-9_-]{32}$/);
      expect(name).not.toContain('hash-');
    }
  });

  it('answers 503 store_unavailable at once when Redis is away, and the scheduler passes that on', async () => {
    const gone = new RedisConnection({ url: 'redis://127.0.0.1:1' });
    const store = new RedisBudgetStore(gone, keys);
    const scheduler = new UpstreamScheduler(store);
    const started = Date.now();
    await expect(scheduler.acquire(ACCOUNT, 'interactive', Date.now() + 20_000)).rejects.toMatchObject({
      status: 503,
      code: 'store_unavailable',
    });
    expect(Date.now() - started).toBeLessThan(500);
    // Display and bookkeeping degrade quietly instead of failing an answer already in hand.
    expect(await store.view(ACCOUNT, 0)).toBeNull();
    await expect(store.observe(ACCOUNT, none, 0)).resolves.toBeUndefined();
    await gone.close();
  });
});
