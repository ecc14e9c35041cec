import { afterEach, describe, expect, it, vi } from 'vitest';
import { ageInDays, longDate, relativeAge, tierFor } from './verification.ts';

describe('ageInDays', () => {
  it('counts calendar days in the local time zone, not UTC instants', () => {
    // 23:30 on 21 November in New York is already 22 November in UTC: still one day after the 20th.
    const evening = new Date(2026, 10, 21, 23, 30);
    expect(ageInDays('2026-11-20', evening)).toBe(1);
    const morning = new Date(2026, 10, 21, 0, 5);
    expect(ageInDays('2026-11-20', morning)).toBe(1);
    expect(ageInDays('2026-11-21', morning)).toBe(0);
  });

  it('crosses month, year and leap-day boundaries exactly', () => {
    expect(ageInDays('2026-10-31', new Date(2026, 10, 1, 12))).toBe(1);
    expect(ageInDays('2025-12-31', new Date(2026, 0, 1, 12))).toBe(1);
    expect(ageInDays('2024-02-28', new Date(2024, 2, 1, 12))).toBe(2);
    expect(ageInDays('2025-11-21', new Date(2026, 10, 21, 12))).toBe(365);
  });

  it('is never negative when the record is dated after today (clock skew)', () => {
    expect(ageInDays('2026-11-25', new Date(2026, 10, 21))).toBe(0);
  });
});

describe('ageInDays across time zones', () => {
  // vi.stubEnv restores TZ as it was, unset included (assigning undefined would set the string "undefined").
  afterEach(() => {
    vi.unstubAllEnvs();
  });

  // One instant: 03:30 UTC on 22 November 2026, still the evening of the 21st in the Americas.
  const instant = Date.parse('2026-11-22T03:30:00Z');
  it.each([
    ['UTC', 1],
    ['America/Los_Angeles', 0],
    ['America/New_York', 0],
    ['Asia/Tokyo', 1],
    ['Pacific/Kiritimati', 1],
  ])('in %s, a record verified on 21 November is %i days old', (zone, days) => {
    vi.stubEnv('TZ', zone);
    expect(ageInDays('2026-11-21', new Date(instant))).toBe(days);
  });
});

describe('tierFor: fresh up to 90 days, ageing up to 365, stale beyond', () => {
  it.each([
    [0, 'fresh'],
    [90, 'fresh'],
    [91, 'ageing'],
    [365, 'ageing'],
    [366, 'stale'],
    [4000, 'stale'],
  ])('%i days is %s', (days, tier) => expect(tierFor(days)).toBe(tier));
});

describe('relativeAge', () => {
  it.each([
    [0, 'today'],
    [1, 'yesterday'],
    [12, '12 days ago'],
    [44, '44 days ago'],
    [45, '1 month ago'],
    [90, '3 months ago'],
    [91, 'over 3 months ago'],
    [200, '7 months ago'],
    [365, '12 months ago'],
    [366, 'over a year ago'],
    [729, 'over a year ago'],
    [730, '2 years ago'],
    [1460, '4 years ago'],
  ])('%i days reads "%s"', (days, text) => expect(relativeAge(days)).toBe(text));

  it('never says the same words in two tiers: at every day, the words belong to one tier only', () => {
    const tierOf = new Map<string, string>();
    for (let days = 0; days <= 2_000; days++) {
      const words = relativeAge(days);
      const tier = tierFor(days);
      expect(tierOf.get(words) ?? tier, `${days} days: "${words}"`).toBe(tier);
      tierOf.set(words, tier);
    }
  });
});

describe('longDate', () => {
  it('writes the month out and keeps the calendar date in every time zone', () => {
    expect(longDate('2026-10-20')).toBe('October 20, 2026');
  });
});
