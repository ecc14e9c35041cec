import type { Context } from 'hono';
import type { UpstreamCandidate, UpstreamErrorCode, UpstreamProperty } from '../contract/index.ts';
import type { Dialect } from './dialect.ts';

/** Renders the service's answers in the configured dialect. Everything dialect-specific on the way out. */

export function formatDate(isoDate: string, dialect: Dialect): string | number {
  const ms = Date.parse(`${isoDate}T00:00:00Z`);
  switch (dialect.date) {
    case 'date':
      return isoDate;
    case 'datetime':
      // A real system records a time of day too; noon UTC keeps the calendar date in every US time zone.
      return new Date(ms + 12 * 3600_000).toISOString();
    case 'epoch-s':
      return Math.floor(ms / 1000) + 12 * 3600;
    case 'epoch-ms':
      return ms + 12 * 3600_000;
  }
}

export function formatReset(resetAtMs: number, nowMs: number, dialect: Dialect): string {
  switch (dialect.reset) {
    case 'epoch-s':
      return String(Math.ceil(resetAtMs / 1000));
    case 'delta-s':
      return String(Math.max(0, Math.ceil((resetAtMs - nowMs) / 1000)));
    case 'epoch-ms':
      return String(resetAtMs);
    case 'http-date':
      // HTTP-dates have whole seconds: round up so a client never retries early.
      return new Date(Math.ceil(resetAtMs / 1000) * 1000).toUTCString();
  }
}

export function toWireProperty(p: UpstreamProperty, dialect: Dialect): Record<string, unknown> {
  const { property_id, last_verified, last_sale_date, ...rest } = p;
  return {
    [dialect.id]: property_id,
    ...rest,
    last_verified: formatDate(last_verified, dialect),
    last_sale_date: last_sale_date === null ? null : formatDate(last_sale_date, dialect),
  };
}

export function toWireCandidate(c: UpstreamCandidate, dialect: Dialect) {
  return { [dialect.id]: c.property_id, address: c.address, confidence: c.confidence };
}

/** A single object, in the dialect's envelope. `name` is the key of the named envelope. */
export function envelope(body: unknown, name: 'property' | 'account', dialect: Dialect): unknown {
  if (dialect.envelope === 'data') return { data: body };
  if (dialect.envelope === 'named') return { [name]: body };
  return body;
}

export function errorResponse(
  c: Context,
  dialect: Dialect,
  status: 400 | 401 | 403 | 404 | 405 | 409 | 422 | 429 | 500 | 503,
  code: UpstreamErrorCode,
  message: string,
  extra: Record<string, unknown> = {},
): Response {
  if (dialect.errors === 'text') return c.text(message, status);
  // This dialect has no code: a client must go by the status (and any candidates) alone.
  if (dialect.errors === 'message') return c.json({ message, ...extra }, status);
  return c.json({ error: { code, message, ...extra } }, status);
}
