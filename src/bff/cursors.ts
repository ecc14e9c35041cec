import { createHmac, timingSafeEqual } from 'node:crypto';
import { addressKey } from '../contract/index.ts';

/*
 * Our search cursor wraps the upstream's: signed, and bound to the query and the account, so a client can
 * neither forge one nor replay one against another search or key.
 */

function mac(payload: string, secret: string): string {
  return createHmac('sha256', secret).update(payload).digest('base64url');
}

export function sealCursor(upstream: string, q: string, keyHash: string, secret: string): string {
  const payload = Buffer.from(
    JSON.stringify({ u: upstream, q: addressKey(q), k: keyHash.slice(0, 16) }),
  ).toString('base64url');
  return `${payload}.${mac(payload, secret)}`;
}

/** The upstream's cursor, or null when the cursor is forged, altered, or issued for another query or account. */
export function openCursor(cursor: string, q: string, keyHash: string, secret: string): string | null {
  if (cursor.length > 4096) return null;
  const [payload = '', sig = '', ...rest] = cursor.split('.');
  if (rest.length > 0) return null;
  const expected = Buffer.from(mac(payload, secret));
  const given = Buffer.from(sig);
  if (expected.length !== given.length || !timingSafeEqual(expected, given)) return null;
  try {
    const data = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8')) as Record<string, unknown>;
    if (typeof data !== 'object' || data === null) return null;
    const { u, q: query, k } = data;
    if (query !== addressKey(q) || k !== keyHash.slice(0, 16) || typeof u !== 'string') return null;
    return u;
  } catch {
    return null;
  }
}
