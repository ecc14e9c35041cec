import { createHmac, timingSafeEqual } from 'node:crypto';

// Cursors: the offset and a hash of the query, signed. Tamper-evident, bound to the query they were issued
// for, and opaque to clients. Offsets are stable because the data and its ranking do not change.

function sign(payload: string, secret: string): string {
  return createHmac('sha256', secret).update(payload).digest('base64url').slice(0, 22);
}

function queryTag(q: string): string {
  return createHmac('sha256', 'query').update(q.trim().toLowerCase()).digest('base64url').slice(0, 10);
}

export function sealCursor(q: string, offset: number, secret: string): string {
  const payload = Buffer.from(JSON.stringify({ o: offset, q: queryTag(q) })).toString('base64url');
  return `${payload}.${sign(payload, secret)}`;
}

export function openCursor(cursor: string, q: string, secret: string): number | null {
  const [payload = '', mac = '', ...rest] = cursor.split('.');
  if (rest.length > 0 || payload === '' || cursor.length > 200) return null;
  const expected = Buffer.from(sign(payload, secret));
  const given = Buffer.from(mac);
  if (expected.length !== given.length || !timingSafeEqual(expected, given)) return null;
  try {
    const data = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8')) as {
      o?: unknown;
      q?: unknown;
    };
    if (data.q !== queryTag(q) || !Number.isInteger(data.o) || (data.o as number) < 0) return null;
    return data.o as number;
  } catch {
    return null;
  }
}
