import { createHmac, hkdfSync } from 'node:crypto';

/**
 * Secrets and key names for the Redis stores. Everything derives from SESSION_SECRET (HKDF-SHA256, one label
 * per use), so replicas that share it share everything else, and nothing secret is kept in Redis itself.
 */
export interface StoreSecrets {
  /** AES-256-GCM key for the session records (the API key among them). */
  sessionKey: Buffer;
  /** HMAC key for key names: Redis shows neither session ids nor key hashes, only their HMACs. */
  namesKey: Buffer;
  /** Signs search cursors when CURSOR_SECRET is not set: the same on every replica. */
  cursorSecret: string;
}

const derive = (secret: string, label: string) =>
  Buffer.from(hkdfSync('sha256', secret, 'proplens:v1', label, 32));

export function deriveSecrets(sessionSecret: string): StoreSecrets {
  return {
    sessionKey: derive(sessionSecret, 'session-encryption'),
    namesKey: derive(sessionSecret, 'redis-key-names'),
    cursorSecret: derive(sessionSecret, 'search-cursors').toString('base64url'),
  };
}

/**
 * Every key PropLens writes, under one prefix with a format version: a change of format gets a new version
 * and never misreads the old one, and `SCAN proplens:v1:*` finds everything. One Redis (a primary, with
 * replicas if the provider adds them), not Redis Cluster: scripts touch keys they compute.
 */
export class RedisKeys {
  static readonly PREFIX = 'proplens:v1:';

  constructor(private readonly namesKey: Buffer) {}

  /** An opaque, stable name for a secret-bearing identifier (a session id, an account's key hash). */
  name(id: string): string {
    return createHmac('sha256', this.namesKey).update(id).digest('base64url').slice(0, 32);
  }

  session(sessionId: string) {
    return this.sessionNamed(this.name(sessionId));
  }

  /** A session's key from its name in the index. */
  sessionNamed(name: string) {
    return `${RedisKeys.PREFIX}session:${name}`;
  }

  /** Sorted set of live sessions by last use, for the cap. */
  sessionIndex() {
    return `${RedisKeys.PREFIX}sessions`;
  }

  /** Sorted set of one account's session names by last use (the review worker borrows their keys). */
  accountSessions(accountId: string) {
    return `${RedisKeys.PREFIX}account-sessions:${this.name(accountId)}`;
  }

  /** Sorted set of account ids by the last use of any of their sessions. */
  liveAccounts() {
    return `${RedisKeys.PREFIX}live-accounts`;
  }

  budget(keyHash: string) {
    return `${RedisKeys.PREFIX}budget:${this.name(keyHash)}`;
  }

  budgetInflight(keyHash: string) {
    return `${RedisKeys.PREFIX}budget-inflight:${this.name(keyHash)}`;
  }
}
