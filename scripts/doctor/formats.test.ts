import { describe, expect, it } from 'vitest';
import { dateFormatOf, resetFormatOf } from './formats.ts';

/** The service's clock: 2026-11-25T12:00:00Z. */
const NOW = Date.UTC(2026, 10, 25, 12, 0, 0);
const S = NOW / 1000;

describe('resetFormatOf', () => {
  it.each([
    ['epoch seconds, now', String(S + 30), 'epoch seconds', NOW + 30_000],
    ['epoch seconds with a fraction', `${S + 30}.5`, 'epoch seconds', NOW + 30_500],
    ['epoch seconds, the first of them (2001)', '1000000000', 'epoch seconds', 1e12],
    ['epoch milliseconds', String(NOW + 30_000), 'epoch milliseconds', NOW + 30_000],
    ['epoch milliseconds, the first of them (1973)', '100000000000', 'epoch milliseconds', 1e11],
    ['seconds from now', '30', 'seconds from now', NOW + 30_000],
    ['seconds from now, zero', '0', 'seconds from now', NOW],
    ['seconds from now, the most of them', '999999999', 'seconds from now', NOW + 999_999_999_000],
    ['seconds from now, with spaces', ' 30 ', 'seconds from now', NOW + 30_000],
    ['an HTTP date', 'Wed, 25 Nov 2026 12:00:30 GMT', 'HTTP date', NOW + 30_000],
    ['ISO 8601 in UTC', '2026-11-25T12:00:30Z', 'ISO 8601 date-time', NOW + 30_000],
    [
      'ISO 8601 with milliseconds and an offset',
      '2026-11-25T13:00:30.250+01:00',
      'ISO 8601 date-time',
      NOW + 30_250,
    ],
  ])('reads %s', (_name, header, format, at) => {
    expect(resetFormatOf(header, NOW)).toEqual({ format, at });
  });

  it.each([
    ['words', 'soon'],
    ['a loose date Date.parse would take', 'March 7'],
    ['a negative number', '-30'],
    ['a number with a unit', '30s'],
    ['empty', ''],
  ])('reads %s as nothing', (_name, header) => {
    expect(resetFormatOf(header, NOW)).toBeNull();
  });
});

describe('dateFormatOf', () => {
  it.each([
    [1_764_000_000, 'epoch seconds'],
    [1_764_000_000_000, 'epoch milliseconds'],
    ['2026-11-25', 'YYYY-MM-DD'],
    ['2026-11-25T10:00:00Z', 'ISO date-time'],
    ['1764000000', 'epoch seconds (as text)'],
    ['1764000000000', 'epoch milliseconds (as text)'],
    ['25/11/2026', null],
    [null, null],
  ])('names %s as %s', (value, format) => {
    expect(dateFormatOf(value)).toBe(format);
  });
});
