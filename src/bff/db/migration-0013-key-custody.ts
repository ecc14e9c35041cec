import type { Kysely, Migration } from 'kysely';

// biome-ignore lint/suspicious/noExplicitAny: migrations run before, and regardless of, the typed schema
type Db = Kysely<any>;

/**
 * Migration 0013: key custody ("Work while I'm signed out", docs/decisions/013-key-custody.md). At most one kept key
 * per account, sealed with AES-256-GCM under a data key derived from KEY_ENCRYPTION_SECRET and the account id.
 * Turning custody off deletes the row; a key the service refused loses its sealed columns and keeps the date, so
 * the account is told why its reviews wait.
 */
export const keyCustody: Migration = {
  async up(db: Db) {
    await db.schema
      .createTable('custody_keys')
      .addColumn('account_id', 'text', (c) => c.primaryKey())
      // Who turned it on: the kept key's fingerprint (never the key, never its hash).
      .addColumn('key_fingerprint', 'text', (c) => c.notNull())
      // HMAC of the key's hash under the secret: finds the row of a key refused at sign-in, useless without it.
      .addColumn('key_check', 'text')
      // The sealed key (and the account as the service named it): base64 ciphertext, 12-byte IV, 16-byte tag.
      .addColumn('ciphertext', 'text')
      .addColumn('iv', 'text')
      .addColumn('auth_tag', 'text')
      // How the data key was derived (hkdf-sha256 and its version), and which secret (an HMAC of it, not it).
      .addColumn('kdf', 'text', (c) => c.notNull())
      .addColumn('secret_id', 'text', (c) => c.notNull())
      .addColumn('turned_on_at', 'bigint', (c) => c.notNull())
      .addColumn('refused_at', 'bigint')
      .addColumn('refused_note', 'text')
      .execute();
  },
};
