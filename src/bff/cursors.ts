import { createHash } from 'node:crypto';
import { addressKey } from '../contract/index.ts';
import { openAesGcm, sealAesGcm } from './aes-gcm.ts';

/*
 * Our search cursor wraps the upstream's, encrypted and authenticated (AES-256-GCM) with the query and the
 * account as associated data: a client can neither read it (an upstream's cursor may carry what it was asked,
 * even the key), forge it, nor replay it against another search or key. Nothing of the key is in it.
 */

const IV_BYTES = 12;
const TAG_BYTES = 16;

const keyOf = (secret: string) => createHash('sha256').update(`proplens cursor\0${secret}`).digest();
const boundTo = (q: string, keyHash: string) => Buffer.from(`${addressKey(q)}\0${keyHash}`);

export function sealCursor(upstream: string, q: string, keyHash: string, secret: string): string {
  const { iv, tag, body } = sealAesGcm(keyOf(secret), boundTo(q, keyHash), upstream);
  return Buffer.concat([iv, body, tag]).toString('base64url');
}

/** The upstream's cursor, or null when the cursor is forged, altered, or issued for another query or account. */
export function openCursor(cursor: string, q: string, keyHash: string, secret: string): string | null {
  if (cursor.length > 4096 || !/^[\w-]+$/.test(cursor)) return null;
  const raw = Buffer.from(cursor, 'base64url');
  if (raw.length < IV_BYTES + TAG_BYTES) return null;
  return openAesGcm(keyOf(secret), boundTo(q, keyHash), {
    iv: raw.subarray(0, IV_BYTES),
    body: raw.subarray(IV_BYTES, raw.length - TAG_BYTES),
    tag: raw.subarray(raw.length - TAG_BYTES),
  });
}
