import { afterEach, describe, expect, it, vi } from 'vitest';

/* Numbers and dates in the reader's locale, from one place (issue 28: one formatter, used everywhere). */

async function formatIn(language: string | undefined) {
  vi.resetModules();
  vi.stubGlobal('navigator', { language });
  return import('./format.ts');
}

afterEach(() => vi.unstubAllGlobals());

describe('the SPA’s numbers and dates', () => {
  it('follow the browser’s locale: digits, separators and date order', async () => {
    const us = await formatIn('en-US');
    expect(us.formatCount(12_345)).toBe('12,345');
    expect(us.formatNumber(81.46, 1)).toBe('81.5');
    expect(us.formatUsd(1_250_000)).toBe('$1,250,000');
    const at = new Date(Date.UTC(2026, 10, 26, 12));
    expect(us.formatDateTime(at, { ...us.DATE_TIME.day, timeZone: 'UTC' })).toBe('November 26, 2026');

    const de = await formatIn('de-DE');
    expect(de.formatCount(12_345)).toBe('12.345');
    expect(de.formatNumber(81.46, 1)).toBe('81,5');
    expect(de.formatDateTime(at, { ...de.DATE_TIME.day, timeZone: 'UTC' })).toBe('26. November 2026');
    const gb = await formatIn('en-GB');
    expect(gb.formatDateTime(at, { ...gb.DATE_TIME.day, timeZone: 'UTC' })).toBe('26 November 2026');
  });

  it('fall back to en-US without a locale or with one Intl does not know, and say nothing of a non-date', async () => {
    expect((await formatIn(undefined)).READER_LOCALE).toBe('en-US');
    expect((await formatIn('not a locale!')).READER_LOCALE).toBe('en-US');
    const f = await formatIn('en-US');
    expect(f.formatDateTime('yesterday-ish')).toBeNull();
    expect(f.formatDateTime(Number.NaN)).toBeNull();
    expect(f.formatDateTime('2026-11-26T08:49:00.000Z')).toMatch(/^Nov 26, 2026, \d{1,2}:49 [AP]M$/);
  });
});
