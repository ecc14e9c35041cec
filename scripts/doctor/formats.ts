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

export type ResetFormat = 'epoch seconds' | 'epoch milliseconds' | 'seconds from now' | 'HTTP date';

/** How X-RateLimit-Reset is written, and when it says (epoch ms on the service's clock). */
export function resetFormatOf(value: string, serviceNow: number): { format: ResetFormat; at: number } | null {
  const s = value.trim();
  if (/^\d+(\.\d+)?$/.test(s)) {
    const n = Number(s);
    if (n >= 1e11) return { format: 'epoch milliseconds', at: n };
    if (n >= 1e9) return { format: 'epoch seconds', at: n * 1000 };
    return { format: 'seconds from now', at: serviceNow + n * 1000 };
  }
  const ms = Date.parse(s);
  return Number.isNaN(ms) ? null : { format: 'HTTP date', at: ms };
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
