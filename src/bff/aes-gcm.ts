import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';

/*
 * AES-256-GCM, the one way PropLens seals what it must read back (session records in Redis, search cursors, kept
 * API keys): a fresh 12-byte IV each time, the caller's additional data bound in, the tag checked on opening.
 * Each caller keeps its own key derivation and stored format; this is only the cipher.
 */

export interface SealedParts {
  iv: Buffer;
  tag: Buffer;
  body: Buffer;
}

export function sealAesGcm(key: Buffer, aad: Buffer, plain: string): SealedParts {
  const iv = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', key, iv);
  cipher.setAAD(aad);
  const body = Buffer.concat([cipher.update(plain, 'utf8'), cipher.final()]);
  return { iv, tag: cipher.getAuthTag(), body };
}

/** The text sealed, or null when it does not open (another key or additional data, a byte changed, bad parts). */
export function openAesGcm(key: Buffer, aad: Buffer, sealed: SealedParts): string | null {
  // The whole 16-byte tag, and a 12-byte IV, or nothing: GCM checks as many tag bytes as it is given, so a
  // truncated tag (4 bytes: one forgery in 2^32 tries) would open what nobody sealed (hostile review M11).
  if (sealed.tag.length !== 16 || sealed.iv.length !== 12) return null;
  try {
    const decipher = createDecipheriv('aes-256-gcm', key, sealed.iv, { authTagLength: 16 });
    decipher.setAAD(aad);
    decipher.setAuthTag(sealed.tag);
    return Buffer.concat([decipher.update(sealed.body), decipher.final()]).toString('utf8');
  } catch {
    // No detail: a tag mismatch says nothing useful, and nothing of what was sealed leaks.
    return null;
  }
}
