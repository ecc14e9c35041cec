import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { ApiErrorBody, ResolveMiss, ResolveResponse } from '../contract/index.ts';
import { createHarness } from './test-support/harness.ts';

/** Every answer made in a session says what is left of the account's rate limit, refusals included. */
const errorOf = async (res: Response) => ApiErrorBody.parse(await res.json()).error;
/** No one record (not found, ambiguous, no such unit) is a 200 answer, with the budget beside it. */
const missOf = async (res: Response) => {
  expect(res.status).toBe(200);
  return ResolveMiss.parse(await res.json());
};

describe('the rate limit on error answers', () => {
  beforeEach(() =>
    vi.useFakeTimers({
      toFake: ['setTimeout', 'clearTimeout', 'Date'],
      now: new Date('2026-11-21T12:00:00Z'),
    }),
  );
  afterEach(() => vi.useRealTimers());

  it('a not-found answer carries the budget it spent, one less than before', async () => {
    const h = createHarness();
    await h.signIn();
    const found = ResolveResponse.parse(await (await h.resolve('1100 Congress Ave, Austin, TX')).json());
    expect(found.rateLimit?.remaining).toBe(58);

    const miss = await missOf(await h.resolve('99999 Congress Ave, Austin, TX'));
    expect(miss.miss.code).toBe('not_found');
    expect(miss.rateLimit).toEqual({
      limit: 60,
      remaining: 57,
      resetAt: found.rateLimit?.resetAt,
      windowS: expect.any(Number),
    });
  });

  it('states the window as the plan does: a minute read from whole-second resets as 61 s is 60', async () => {
    // Past a whole second: the reference states its reset in whole seconds, rounded up, 60.7 s away.
    vi.setSystemTime(new Date('2026-11-21T12:00:00.300Z'));
    const h = createHarness();
    const signedIn = (await (await h.signIn()).json()) as { rateLimit: { windowS: number; resetAt: string } };
    expect(signedIn.rateLimit.resetAt).toBe('2026-11-21T12:01:01.000Z');
    expect(signedIn.rateLimit.windowS).toBe(60);
  });

  it('an ambiguous answer and a missing unit carry it too', async () => {
    const h = createHarness();
    await h.signIn();
    const ambiguous = await missOf(await h.resolve('100 Main St'));
    expect(ambiguous.miss.code).toBe('ambiguous');
    expect(ambiguous.rateLimit?.remaining).toBe(58);
    const unit = await missOf(await h.resolve('615 Bourbon St Apt 9, New Orleans, LA 70116'));
    expect(unit.miss.code).toBe('unit_not_found');
    expect(unit.rateLimit?.remaining).toBe(57);
  });

  it('a rate-limited answer says nothing is left, and when it resets', async () => {
    const h = createHarness({ rateLimit: { requests: 2, seconds: 60 } });
    await h.signIn();
    await h.resolve('1100 Congress Ave, Austin, TX');
    const res = await h.resolve('233 S Wacker Dr, Chicago, IL');
    expect(res.status).toBe(429);
    const err = await errorOf(res);
    expect(err.rateLimit).toMatchObject({ limit: 2, remaining: 0, resetAt: '2026-11-21T12:01:00.000Z' });
  });

  it('an answer in the next window states that window’s reset, not the last one’s', async () => {
    const h = createHarness({ rateLimit: { requests: 2, seconds: 60 } });
    await h.signIn();
    const first = ResolveResponse.parse(await (await h.resolve('1100 Congress Ave, Austin, TX')).json());
    expect(first.rateLimit?.resetAt).toBe('2026-11-21T12:01:00.000Z');
    vi.setSystemTime(new Date('2026-11-21T12:01:30Z'));
    const next = ResolveResponse.parse(await (await h.resolve('233 S Wacker Dr, Chicago, IL')).json());
    expect(Date.parse(next.rateLimit?.resetAt ?? '')).toBeGreaterThan(Date.parse('2026-11-21T12:01:30Z'));
  });

  it('a bad request in a session carries it; an answer with no session has none to give', async () => {
    const h = createHarness();
    await h.signIn();
    const bad = await h.call('/api/properties/resolve?address=');
    expect(bad.status).toBe(400);
    expect((await errorOf(bad)).rateLimit?.limit).toBe(60);

    h.cookie = '';
    const anonymous = await h.resolve('1100 Congress Ave, Austin, TX');
    expect(anonymous.status).toBe(401);
    expect((await errorOf(anonymous)).rateLimit).toBeUndefined();
    const refused = await h.signIn('pi_not_a_key');
    expect(refused.status).toBe(401);
    expect((await errorOf(refused)).rateLimit).toBeUndefined();
  });
});
