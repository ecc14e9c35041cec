import { describe, expect, it } from 'vitest';
import { describeEta, lookupsPerMinute, PaceTracker } from './eta.ts';

const resetAt = '2026-11-21T10:00:00Z';

describe('ETA', () => {
  it('goes at the rate the limit allows when the window is known', () => {
    expect(lookupsPerMinute({ limit: 60, remaining: 3, resetAt, windowS: 60 }, 12)).toBe(60);
    expect(lookupsPerMinute({ limit: 30, remaining: 3, resetAt, windowS: 10 }, 0)).toBe(180);
    expect(lookupsPerMinute({ limit: 4, remaining: 3, resetAt, windowS: 12 }, 0)).toBe(20);
  });

  it('falls back to the rate seen lately, or nothing', () => {
    expect(lookupsPerMinute({ limit: 60, remaining: 3, resetAt }, 42)).toBe(42);
    expect(lookupsPerMinute(null, 0)).toBeNull();
  });

  it('says it the way the issue does', () => {
    expect(describeEta(840, 60)).toBe('about 14 min left at 60 lookups a minute');
    expect(describeEta(30, 60)).toBe('less than a minute left at 60 lookups a minute');
    expect(describeEta(61, 60)).toBe('about 2 min left at 60 lookups a minute');
    expect(describeEta(9_000, 60)).toBe('about 2 h 30 min left at 60 lookups a minute');
    expect(describeEta(7_200, 60)).toBe('about 2 h left at 60 lookups a minute');
    expect(describeEta(10, 1)).toBe('about 10 min left at 1 lookup a minute');
    expect(describeEta(10, 2.5)).toBe('about 4 min left at 2.5 lookups a minute');
  });
});

/** Minutes left as the page would say them, sampled every 5 s of a run described by `doneAt(ms)`. */
function watch(total: number, doneAt: (ms: number) => number, minutes: number) {
  const pace = new PaceTracker();
  const left: { at: number; minutes: number | null }[] = [];
  for (let t = 0; t <= minutes * 60_000; t += 5_000) {
    const done = Math.min(total, Math.floor(doneAt(t)));
    pace.sample(t, done);
    const rate = pace.perMinute();
    left.push({ at: t, minutes: rate ? (total - done) / rate : null });
  }
  return left;
}

describe('the pace a running review achieves', () => {
  it('does not swing: bursts of cached rows and waits for the rate limit move it little', () => {
    // 2,000 cached rows in the first 20 s; then 60 lookups a minute, arriving as a rate-limited key gets them (60
    // at the start of each minute, then a wait), and now and then a stretch of 150 repeats answered at once.
    const total = 12_000;
    const bursts = [13, 19, 24, 31, 38, 44, 52];
    const doneAt = (ms: number) => {
      if (ms < 20_000) return (ms / 20_000) * 2_000;
      const minute = (ms - 20_000) / 60_000;
      return 2_000 + Math.floor(minute + 1) * 60 + bursts.filter((b) => b <= minute).length * 150;
    };
    const left = watch(total, doneAt, 60).filter((s) => s.at >= 10 * 60_000);
    // From minute 10 on, the time left moves less than a quarter in any minute (20 % at most here, as the first
    // burst leaves the window); over the last two minutes alone, as before, it moved up to 57 %.
    for (let i = 12; i < left.length; i++) {
      const [a, b] = [left[i - 12]?.minutes as number, left[i]?.minutes as number];
      expect(Math.abs(b - a) / a).toBeLessThan(0.25);
    }
    // And it stays near the pace achieved: the rows of the last half hour over its 30 minutes.
    const at = 60 * 60_000;
    const achieved = (doneAt(at) - doneAt(at - 30 * 60_000)) / 30;
    const said = left.at(-1)?.minutes as number;
    expect(Math.abs(said - (total - doneAt(at)) / achieved) / said).toBeLessThan(0.25);
  });

  it('follows a lasting change of pace within minutes', () => {
    // 120 rows a minute for 20 minutes, then 30 (another key took over, on a smaller plan).
    const doneAt = (ms: number) =>
      ms < 20 * 60_000 ? (ms / 60_000) * 120 : 2_400 + ((ms - 20 * 60_000) / 60_000) * 30;
    const pace = new PaceTracker();
    let rate: number | null = null;
    for (let t = 0; t <= 35 * 60_000; t += 5_000) {
      pace.sample(t, Math.floor(doneAt(t)));
      rate = pace.perMinute();
    }
    expect(rate).toBeCloseTo(30, 0);
  });

  it('says nothing until a row is answered, and starts again with a new run', () => {
    const pace = new PaceTracker();
    pace.sample(0, 0);
    pace.sample(30_000, 0);
    expect(pace.perMinute()).toBeNull();
    pace.sample(60_000, 60);
    expect(pace.perMinute()).toBeCloseTo(60, 5);
    // Check again: the count starts from 0.
    pace.sample(70_000, 0);
    expect(pace.perMinute()).toBeNull();
  });

  it('says "less than a minute" only under a minute, at the pace in rows when the pace is observed', () => {
    expect(describeEta(90, 60, 'row')).toBe('about 2 min left at 60 rows a minute');
    expect(describeEta(59, 60, 'row')).toBe('less than a minute left at 60 rows a minute');
  });
});
