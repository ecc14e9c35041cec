/*
 * Every number and date the SPA shows goes through here: one locale (the reader's browser's), one formatter per
 * shape, made once. The words around them stay English; the digits, separators and date order are the reader's
 * ("1,240" in the US, "1.240" in Germany; "Nov 26, 2026" or "26 Nov 2026").
 */

/** The reader's locale, as the browser says it; en-US where there is none (a test runner without one). */
export const READER_LOCALE: string = (() => {
  const asked = typeof navigator === 'undefined' ? undefined : navigator.language;
  try {
    return asked ? (Intl.getCanonicalLocales(asked)[0] ?? 'en-US') : 'en-US';
  } catch {
    return 'en-US';
  }
})();

const numberFormats = new Map<string, Intl.NumberFormat>();

function numberFormat(options: Intl.NumberFormatOptions = {}): Intl.NumberFormat {
  const key = JSON.stringify(options);
  let format = numberFormats.get(key);
  if (!format) {
    format = new Intl.NumberFormat(READER_LOCALE, options);
    numberFormats.set(key, format);
  }
  return format;
}

/** A count with the reader's grouping: "12,345". */
export const formatCount = (n: number): string => numberFormat().format(n);

/** A number with at most `fractionDigits` decimals: "81.5". */
export const formatNumber = (n: number, fractionDigits: number): string =>
  numberFormat({ maximumFractionDigits: fractionDigits }).format(n);

/** Whole US dollars: "$1,250,000" (the service's values are in USD whatever the reader's locale). */
export const formatUsd = (n: number): string =>
  numberFormat({ style: 'currency', currency: 'USD', maximumFractionDigits: 0 }).format(n);

/** The moments the screens show, by how much of them is said. */
export const DATE_TIME = {
  /** "Nov 26, 2026, 8:49 AM" */
  short: { dateStyle: 'medium', timeStyle: 'short' },
  /** "November 26, 2026 at 8:49 AM" */
  long: { dateStyle: 'long', timeStyle: 'short' },
  /** "November 26, 2026" */
  day: { dateStyle: 'long' },
  /** "8:49:05 AM" */
  time: { timeStyle: 'medium' },
  /** "Nov 26, 2026, 8:49:05 AM", in UTC (the audit trail's moments, the same for every reader of one export) */
  utc: { dateStyle: 'medium', timeStyle: 'medium', timeZone: 'UTC' },
} as const satisfies Record<string, Intl.DateTimeFormatOptions>;

/**
 * A moment as the reader reads one (`options`: a DATE_TIME shape, or Intl's own for a chart's axis); null when it is
 * not a moment (an unreadable string from storage or the wire), so a screen can leave it out.
 */
export function formatDateTime(
  at: Date | string | number,
  options: Intl.DateTimeFormatOptions = DATE_TIME.short,
): string | null {
  const date = at instanceof Date ? at : new Date(at);
  if (Number.isNaN(date.getTime())) return null;
  // Made at each call: a formatter made once keeps the time zone it was made in, and moments are said in the
  // reader's zone as it is now (a laptop carried across zones, a test that sets one).
  return new Intl.DateTimeFormat(READER_LOCALE, options).format(date);
}
