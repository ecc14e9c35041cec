import { describe, expect, it } from 'vitest';
import { allowanceInWords, secondsInWords, windowInWords } from './rate-limit-wording.ts';

describe('rate-limit wording', () => {
  it.each([
    [60, 'a minute'],
    [12, 'every 12 seconds'],
    [1, 'a second'],
    [120, 'every 2 minutes'],
    [90, 'every 90 seconds'],
    [61, 'every 61 seconds'],
    [3600, 'an hour'],
    [86_400, 'every 24 hours'],
  ])('a %i s window is "%s"', (windowS, words) => expect(windowInWords(windowS)).toBe(words));

  it('says what the limit allows only as far as it is known', () => {
    const resetAt = '2026-11-21T12:00:30.000Z';
    expect(allowanceInWords({ limit: 60, remaining: 3, resetAt, windowS: 60 })).toBe('60 lookups a minute');
    expect(allowanceInWords({ limit: 4, remaining: 0, resetAt, windowS: 12 })).toBe(
      '4 lookups every 12 seconds',
    );
    expect(allowanceInWords({ limit: 1, remaining: 0, resetAt, windowS: 60 })).toBe('1 lookup a minute');
    expect(allowanceInWords({ limit: 60, remaining: 3, resetAt })).toBe('60 lookups per rate-limit window');
    expect(allowanceInWords({ limit: 0, remaining: 0, resetAt })).toBe('a limited number of lookups');
    expect(allowanceInWords(null)).toBe('a limited number of lookups');
  });

  it.each([
    [42, '42 s'],
    [0, '0 s'],
    [60, '60 s'],
    [119, '119 s'],
    [120, '2 min'],
    [185, '3 min 5 s'],
  ])('%i seconds reads "%s"', (s, words) => expect(secondsInWords(s)).toBe(words));
});
