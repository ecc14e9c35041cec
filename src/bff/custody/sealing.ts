import { createCipheriv, createDecipheriv, createHmac, hkdfSync, randomBytes } from 'node:crypto';

/*
 * How a kept key is sealed (docs/decisions/013-key-custody.md): AES-256-GCM under a data key derived with
 * HKDF-SHA256 from KEY_ENCRYPTION_SECRET, the account id in its `info`, and the account id again as the
 * additional authenticated data. So a sealed key copied into another account's row does not open, a changed
 * byte does not open, and neither does anything sealed under another secret.
 */

/** The derivation named in each row: a change of scheme is a new name, and rows of the old one are re-sealed. */
export const KDF = 'hkdf-sha256:v1';
const SALT = 'proplens-key-custody-v1';

export interface Sealed {
  ciphertext: string;
  iv: string;
  authTag: string;
}

/** What is sealed: the key, and the account as the service named it (the session built from it needs both). */
export interface KeptKey {
  apiKey: string;
  account: { name: string; plan: string | null };
}

/** Seals and opens kept keys with one secret; never shows the secret, never names it in an error. */
export class KeySealer {
  readonly #secret: Buffer;
  /** Data keys by account: derived once (each is a pure function of the secret and the account id). */
  readonly #dataKeys = new Map<string, Buffer>();
  /** Which secret this is, for the rows: an HMAC of it, from which it cannot be got back. */
  readonly secretId: string;

  constructor(secret: string) {
    this.#secret = Buffer.from(secret, 'utf8');
    this.secretId = createHmac('sha256', this.#secret)
      .update('proplens-custody-secret-id')
      .digest('hex')
      .slice(0, 16);
  }

  seal(accountId: string, kept: KeptKey): Sealed {
    const iv = randomBytes(12);
    const cipher = createCipheriv('aes-256-gcm', this.#dataKey(accountId), iv);
    cipher.setAAD(aad(accountId));
    const ciphertext = Buffer.concat([cipher.update(JSON.stringify(kept), 'utf8'), cipher.final()]);
    return {
      ciphertext: ciphertext.toString('base64'),
      iv: iv.toString('base64'),
      authTag: cipher.getAuthTag().toString('base64'),
    };
  }

  /** The kept key, or null when it does not open (another account's row, another secret, altered bytes). */
  open(accountId: string, sealed: Sealed): KeptKey | null {
    try {
      const decipher = createDecipheriv(
        'aes-256-gcm',
        this.#dataKey(accountId),
        Buffer.from(sealed.iv, 'base64'),
      );
      decipher.setAAD(aad(accountId));
      decipher.setAuthTag(Buffer.from(sealed.authTag, 'base64'));
      const plain = Buffer.concat([
        decipher.update(Buffer.from(sealed.ciphertext, 'base64')),
        decipher.final(),
      ]);
      const kept = JSON.parse(plain.toString('utf8')) as KeptKey;
      return typeof kept.apiKey === 'string' && kept.account ? kept : null;
    } catch {
      // Deliberately no detail: the reason (a tag mismatch) says nothing useful and nothing of the key leaks.
      return null;
    }
  }

  /** A key's check value (hex): finds its row when the service refuses it at a sign-in. Needs the secret. */
  keyCheck(keyHash: string): string {
    return createHmac('sha256', this.#secret).update(`proplens-custody-key:${keyHash}`).digest('hex');
  }

  #dataKey(accountId: string): Buffer {
    let key = this.#dataKeys.get(accountId);
    if (!key) {
      if (this.#dataKeys.size >= 10_000) this.#dataKeys.clear();
      key = Buffer.from(hkdfSync('sha256', this.#secret, SALT, `account:${accountId}`, 32));
      this.#dataKeys.set(accountId, key);
    }
    return key;
  }
}

const aad = (accountId: string) => Buffer.from(`proplens-key-custody:v1:${accountId}`, 'utf8');
