/** Names for the "not shown" formats the doctor finds, in the words an operator reads. */

export function dateFormatOf(value: unknown): string | null {
  if (typeof value === 'number' && Number.isFinite(value))
    return Math.abs(value) >= 1e11 ? 'epoch milliseconds' : 'epoch seconds';
  if (typeof value !== 'string') return null;
  const s = value.trim();
  if (/^\d{4}-\d{2}-\d{2}$/.test(s)) return 'YYYY-MM-DD';
  if (/^\d{4}-\d{2}-\d{2}T/.test(s) && !Number.isNaN(Date.parse(s))) return 'ISO date-time';
  if (/^\d+$/.test(s)) return Number(s) >= 1e11 ? 'epoch milliseconds (as text)' : 'epoch seconds (as text)';
  return null;
}

export type ResetFormat =
  | 'epoch seconds'
  | 'epoch milliseconds'
  | 'seconds from now'
  | 'HTTP date'
  | 'ISO 8601 date-time';

/** RFC 9110's IMF-fixdate, the form every HTTP date header takes (`Sun, 06 Nov 1994 08:49:37 GMT`). */
const HTTP_DATE = /^[A-Z][a-z]{2}, \d{2} [A-Z][a-z]{2} \d{4} \d{2}:\d{2}:\d{2} GMT$/;
const ISO_DATE_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:?\d{2})?$/;

/**
 * How X-RateLimit-Reset is written, and when it says (epoch ms on the service's clock); null when it is none
 * of these. Numbers are told apart by size, as the BFF reads them (parseReset): from 1e11 epoch milliseconds
 * (1973 on), from 1e9 epoch seconds (2001 on), below that seconds from now (up to 31 years).
 */
export function resetFormatOf(value: string, serviceNow: number): { format: ResetFormat; at: number } | null {
  const s = value.trim();
  if (/^\d+(\.\d+)?$/.test(s)) {
    const n = Number(s);
    if (n >= 1e11) return { format: 'epoch milliseconds', at: n };
    if (n >= 1e9) return { format: 'epoch seconds', at: n * 1000 };
    return { format: 'seconds from now', at: serviceNow + n * 1000 };
  }
  // Date.parse alone takes almost anything ("March 7" is a date in 2001): only the two standard forms.
  const format = HTTP_DATE.test(s) ? 'HTTP date' : ISO_DATE_TIME.test(s) ? 'ISO 8601 date-time' : null;
  const ms = format ? Date.parse(s) : Number.NaN;
  return format && !Number.isNaN(ms) ? { format, at: ms } : null;
}

/** The envelope a single object came in: bare, or under a named key. */
export function envelopeOf(
  body: unknown,
  names: readonly string[],
): { envelope: string; inner: Record<string, unknown> } | null {
  if (!body || typeof body !== 'object' || Array.isArray(body)) return null;
  const obj = body as Record<string, unknown>;
  for (const name of names) {
    const inner = Object.hasOwn(obj, name) ? obj[name] : undefined;
    if (inner && typeof inner === 'object' && !Array.isArray(inner))
      return { envelope: `{ ${name}: … }`, inner: inner as Record<string, unknown> };
  }
  return { envelope: 'bare', inner: obj };
}

export function median(values: readonly number[]): number | null {
  if (values.length === 0) return null;
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2
    ? (sorted[mid] as number)
    : ((sorted[mid - 1] as number) + (sorted[mid] as number)) / 2;
}
