import { describe, expect, it } from 'vitest';
import { createReferenceApp } from './app.ts';
import { ControllableClock, parseClockSetting } from './clock.ts';
import { readReferenceConfig } from './config.ts';
import { openTestStore } from './test-support.ts';

const { store } = await openTestStore();
const KEY = { Authorization: 'Bearer pi_demo_professional' };

const move = (app: ReturnType<typeof createReferenceApp>, body: unknown) =>
  app.request('/_test/clock', {
    method: 'POST',
    // A key, so that without the clock the path is judged as an endpoint (404), not as a caller (401).
    headers: { 'content-type': 'application/json', ...KEY },
    body: JSON.stringify(body),
  });

describe('the reference clock a test moves (REFERENCE_CLOCK=controllable)', () => {
  it('ends a spent rate window at once: the next request is served, with a new window', async () => {
    const clock = new ControllableClock();
    const app = createReferenceApp({ store, clock, rateLimit: { requests: 2, seconds: 60 } });
    for (let i = 0; i < 2; i++) expect((await app.request('/auth/me', { headers: KEY })).status).toBe(200);
    const refused = await app.request('/auth/me', { headers: KEY });
    expect(refused.status).toBe(429);

    const moved = await move(app, { advance_ms: 60_000 });
    expect(moved.status).toBe(200);
    expect(await moved.json()).toMatchObject({ offset_ms: 60_000 });
    const served = await app.request('/auth/me', { headers: KEY });
    expect(served.status).toBe(200);
    expect(served.headers.get('X-RateLimit-Remaining')).toBe('1');
    // Its Date is the moved time too: clients read an absolute reset against it.
    const date = Date.parse(served.headers.get('Date') ?? '');
    expect(Math.abs(date - clock.now())).toBeLessThan(1_000);
    // (An HTTP date has whole seconds: up to a second below the moved time.)
    expect(date - Date.now()).toBeGreaterThan(58_000);
  });

  it('moves only forward, by a whole number of milliseconds up to a day, and says what was wrong', async () => {
    const clock = new ControllableClock();
    const app = createReferenceApp({ store, clock });
    for (const body of [
      { advance_ms: -1 },
      { advance_ms: 0 },
      { advance_ms: 1.5 },
      { advance_ms: 86_400_001 },
      {},
    ]) {
      const res = await move(app, body);
      expect(res.status).toBe(400);
      expect(JSON.stringify(await res.json())).toContain('advance_ms');
    }
    const bad = await app.request('/_test/clock', { method: 'POST', body: 'not json' });
    expect(bad.status).toBe(400);
    expect(clock.offsetMs).toBe(0);
    expect(await (await app.request('/_test/clock')).json()).toMatchObject({ offset_ms: 0 });
  });

  it('tells every listener after each move, so what waits for a moment re-arms', () => {
    const clock = new ControllableClock();
    const seen: number[] = [];
    const stop = clock.onAdvance(() => seen.push(clock.offsetMs));
    clock.advance(1_000);
    clock.advance(2_000);
    stop();
    clock.advance(3_000);
    expect(seen).toEqual([1_000, 3_000]);
  });

  it('does not exist unless asked for: the path is an unknown endpoint on the system clock', async () => {
    const app = createReferenceApp({ store });
    expect((await move(app, { advance_ms: 1_000 })).status).toBe(404);
    expect(readReferenceConfig({}).clock).toBe('system');
    expect(readReferenceConfig({ REFERENCE_CLOCK: 'controllable' }).clock).toBe('controllable');
    expect(() => parseClockSetting('fast')).toThrow(/system \(the default\) or controllable/);
  });
});
