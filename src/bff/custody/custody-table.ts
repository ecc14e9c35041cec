/** A key kept for an account's unattended work (migration 0013, docs/decisions/013-key-custody.md). */
export interface CustodyKeysTable {
  account_id: string;
  /** The kept key's fingerprint: who turned custody on. */
  key_fingerprint: string;
  /** HMAC-SHA256 of the key's hash under the secret (hex): finds the row of a key refused at sign-in. */
  key_check: string | null;
  /** Base64 AES-256-GCM ciphertext of `{ apiKey, account }`, its 12-byte IV and 16-byte tag; null once refused. */
  ciphertext: string | null;
  iv: string | null;
  auth_tag: string | null;
  /** How the data key was derived ('hkdf-sha256:v1'). */
  kdf: string;
  /** Which secret sealed it: HMAC of the secret (hex, 16 chars), never the secret. */
  secret_id: string;
  turned_on_at: number;
  /** The service refused the kept key then (epoch ms): it was deleted, the account's unattended work waits. */
  refused_at: number | null;
  refused_note: string | null;
}
