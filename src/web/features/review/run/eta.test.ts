import { describe, expect, it } from 'vitest';
import { describeEta, lookupsPerMinute } from './eta.ts';

const resetAt = '2026-11-21T10:00:00Z';

describe('ETA', () => {
  it('goes at the rate the limit allows when the window is known', () => {
    expect(lookupsPerMinute({ limit: 60, remaining: 3, resetAt, windowS: 60 }, 12)).toBe(60);
    expect(lookupsPerMinute({ limit: 30, remaining: 3, resetAt, windowS: 10 }, 0)).toBe(180);
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
