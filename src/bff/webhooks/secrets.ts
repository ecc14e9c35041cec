import { hkdfSync } from 'node:crypto';
import { openAesGcm, sealAesGcm } from '../aes-gcm.ts';
import type { CustodySecret } from '../custody/secret.ts';

/*
 * Webhook signing secrets at rest (docs/decisions/013-key-custody.md, addendum): AES-256-GCM (aes-gcm.ts) under
 * one data key derived with HKDF-SHA256 from the server secret key custody uses (KEY_ENCRYPTION_SECRET, or the file
 * generated beside the embedded database), with an `info` of its own, so it is no kept key's data key; the
 * endpoint id is the additional data, so a sealed secret copied into another endpoint's row does not open.
 * Stored in the endpoint's `secret` column as `sealed:v1:<iv>.<tag>.<body>` (base64url); a `whsec_` value there is
 * a secret from before sealing, sealed at the next start that has a server secret (sealClearSecrets).
 */

const PREFIX = 'sealed:v1:';
const SALT = 'proplens-webhook-secrets-v1';
const INFO = 'webhook-signing-secrets';

/** Why nothing can be sealed here: custody's words about the missing server secret. */
export interface NoSecretKeeping {
  unavailable: string;
}

/** Seals and opens endpoints' signing secrets under the server secret; never shows either in an error. */
export class WebhookSecrets {
  readonly #key: Buffer;

  constructor(serverSecret: string) {
    this.#key = Buffer.from(hkdfSync('sha256', Buffer.from(serverSecret, 'utf8'), SALT, INFO, 32));
  }

  seal(endpointId: string, secret: string): string {
    const { iv, tag, body } = sealAesGcm(this.#key, aad(endpointId), secret);
    return `${PREFIX}${[iv, tag, body].map((b) => b.toString('base64url')).join('.')}`;
  }

  /** The secret, or null when it does not open (another endpoint's row, another server secret, altered bytes). */
  open(endpointId: string, stored: string): string | null {
    if (!isSealed(stored)) return null;
    const [iv, tag, body] = stored.slice(PREFIX.length).split('.');
    if (iv === undefined || tag === undefined || body === undefined) return null;
    return openAesGcm(this.#key, aad(endpointId), {
      iv: Buffer.from(iv, 'base64url'),
      tag: Buffer.from(tag, 'base64url'),
      body: Buffer.from(body, 'base64url'),
    });
  }
}

/** How this server keeps webhook secrets: sealed under its server secret, or not at all (no secret to seal with). */
export type SecretKeeping = WebhookSecrets | NoSecretKeeping;

export const secretKeepingOf = (secret: CustodySecret): SecretKeeping =>
  'secret' in secret ? new WebhookSecrets(secret.secret) : secret;

export const isSealed = (stored: string) => stored.startsWith(PREFIX);

/**
 * The secret a message is signed with: opened when sealed; a secret from before sealing as it is (a server
 * without a secret to seal with keeps those working); null when it does not open.
 */
export function signingSecret(keeping: SecretKeeping, endpointId: string, stored: string): string | null {
  if (!isSealed(stored)) return stored;
  return keeping instanceof WebhookSecrets ? keeping.open(endpointId, stored) : null;
}

const aad = (endpointId: string) => Buffer.from(`proplens-webhook-secret:v1:${endpointId}`, 'utf8');
