import { createHmac, hkdfSync } from 'node:crypto';
import { openAesGcm, sealAesGcm } from '../aes-gcm.ts';

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
    const { iv, tag, body } = sealAesGcm(this.#dataKey(accountId), aad(accountId), JSON.stringify(kept));
    return {
      ciphertext: body.toString('base64'),
      iv: iv.toString('base64'),
      authTag: tag.toString('base64'),
    };
  }

  /** The kept key, or null when it does not open (another account's row, another secret, altered bytes). */
  open(accountId: string, sealed: Sealed): KeptKey | null {
    const plain = openAesGcm(this.#dataKey(accountId), aad(accountId), {
      iv: Buffer.from(sealed.iv, 'base64'),
      tag: Buffer.from(sealed.authTag, 'base64'),
      body: Buffer.from(sealed.ciphertext, 'base64'),
    });
    if (plain === null) return null;
    try {
      const kept = JSON.parse(plain) as KeptKey;
      return typeof kept.apiKey === 'string' && kept.account ? kept : null;
    } catch {
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
