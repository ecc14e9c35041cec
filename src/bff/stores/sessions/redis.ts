import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import { type RedisConnection, replies } from '../redis-connection.ts';
import type { RedisKeys } from '../redis-keys.ts';
import {
  accountIdFor,
  newAuditRef,
  newSessionId,
  type Session,
  type SessionLimits,
  type SessionStore,
} from './types.ts';

/** What one session record holds, all of it encrypted. */
interface SessionRecord {
  apiKey: string;
  keyHash: string;
  account: Session['account'];
  /** Absent in records sealed before accounts were named by the service's id. */
  accountId?: string;
  auditRef?: string;
  createdAt: number;
  absoluteAt: number;
}

const FORMAT = 'v1';

/**
 * Sessions in Redis, shared by every replica. The idle timeout is the key's expiry, pushed back on each use
 * (GETEX); the absolute timeout caps that expiry and is checked against the record. The record, API key and
 * all, is sealed with AES-256-GCM under a key derived from SESSION_SECRET and bound to its Redis key name, so
 * Redis (a dump, a replica, a MONITOR) never shows a key in clear, and a record moved to another name does
 * not open. The key name is an HMAC of the session id, so it cannot be used as a cookie either.
 * The cap (SESSION_MAX_COUNT) is a sorted set by last use: over it, the session idle longest goes first.
 */
export class RedisSessionStore implements SessionStore {
  constructor(
    private readonly redis: RedisConnection,
    private readonly keys: RedisKeys,
    private readonly sessionKey: Buffer,
    private readonly limits: SessionLimits,
    private readonly now: () => number = Date.now,
  ) {}

  async create(data: Omit<Session, 'createdAt' | 'lastSeenAt'>): Promise<string> {
    const id = newSessionId();
    const now = this.now();
    const key = this.keys.session(id);
    const record: SessionRecord = {
      apiKey: data.apiKey,
      keyHash: data.keyHash,
      account: data.account,
      accountId: data.accountId,
      auditRef: data.auditRef ?? newAuditRef(),
      createdAt: now,
      absoluteAt: now + this.limits.absoluteMs,
    };
    const ttl = Math.min(this.limits.idleMs, this.limits.absoluteMs);
    const index = this.keys.sessionIndex();
    await this.redis.run(async (r) => {
      const results = replies(
        await r
          .multi()
          .set(key, this.#seal(record, key), 'PX', ttl)
          .zadd(index, now, this.keys.name(id))
          // Members idle past the timeout have expired in Redis already: drop them from the count.
          .zremrangebyscore(index, '-inf', now - this.limits.idleMs)
          .zcard(index)
          // The account's sessions, for the review worker (evicted or expired names are dropped on reading).
          .zadd(this.keys.accountSessions(data.accountId), now, this.keys.name(id))
          .zadd(this.keys.liveAccounts(), now, data.accountId)
          .exec(),
      );
      const count = Number(results[3]);
      if (count <= this.limits.maxSessions) return;
      const evicted = (await r.zpopmin(index, count - this.limits.maxSessions)).filter((_, i) => i % 2 === 0);
      if (evicted.length > 0) {
        await r.del(...evicted.map((name) => this.keys.sessionNamed(name)));
      }
    });
    return id;
  }

  async get(id: string): Promise<Session | undefined> {
    // A cookie is any text a browser sends; ours are 43 characters.
    if (id.length === 0 || id.length > 128) return undefined;
    return this.#getNamed(this.keys.name(id));
  }

  /** The live session under a key name, its idle clock reset. */
  #getNamed(name: string): Promise<Session | undefined> {
    const key = this.keys.sessionNamed(name);
    const index = this.keys.sessionIndex();
    const now = this.now();
    return this.redis.run(async (r) => {
      const [sealed] = replies(
        await r.pipeline().getex(key, 'PX', this.limits.idleMs).zadd(index, 'XX', now, name).exec(),
      );
      if (typeof sealed !== 'string') {
        await r.zrem(index, name);
        return undefined;
      }
      const record = this.#open(sealed, key);
      if (!record || now > record.absoluteAt) {
        // Past the absolute timeout, or sealed under another SESSION_SECRET: over either way.
        replies(await r.multi().del(key).zrem(index, name).exec());
        return undefined;
      }
      const left = record.absoluteAt - now;
      if (left < this.limits.idleMs) await r.pexpire(key, Math.max(1, left));
      return {
        apiKey: record.apiKey,
        keyHash: record.keyHash,
        account: record.account,
        accountId: record.accountId ?? accountIdFor(record.keyHash),
        ...(record.auditRef ? { auditRef: record.auditRef } : {}),
        createdAt: record.createdAt,
        lastSeenAt: now,
      };
    });
  }

  async delete(id: string): Promise<void> {
    if (id.length === 0 || id.length > 128) return;
    await this.redis.run(async (r) => {
      replies(
        await r.multi().del(this.keys.session(id)).zrem(this.keys.sessionIndex(), this.keys.name(id)).exec(),
      );
    });
  }

  ping(): Promise<boolean> {
    return this.redis.ping();
  }

  async liveAccounts(): Promise<string[]> {
    // An account leaves when sessionFor finds none of its sessions live, or past the absolute timeout.
    const since = this.now() - this.limits.absoluteMs;
    return this.redis.run(async (r) => {
      await r.zremrangebyscore(this.keys.liveAccounts(), '-inf', String(since));
      return r.zrange(this.keys.liveAccounts(), '0', '-1');
    });
  }

  async sessionFor(accountId: string): Promise<{ session: Session; ref: string } | undefined> {
    const index = this.keys.accountSessions(accountId);
    const names = await this.redis.run((r) => r.zrevrange(index, 0, 9));
    for (const name of names) {
      const session = await this.#getNamed(name);
      if (session) {
        if (session.accountId !== accountId) continue;
        const now = this.now();
        await this.redis.run(async (r) => {
          replies(
            await r.multi().zadd(index, now, name).zadd(this.keys.liveAccounts(), now, accountId).exec(),
          );
        });
        return { session, ref: name };
      }
      await this.redis.run((r) => r.zrem(index, name));
    }
    await this.redis.run((r) => r.zrem(this.keys.liveAccounts(), accountId));
    return undefined;
  }

  async refuseKey(refused: Pick<Session, 'accountId' | 'keyHash'>): Promise<void> {
    // The account's sessions are where a key is lent from: each holding the refused key goes, and so does the
    // account from the live ones once it has none left (the worker then leases none of its rows).
    const index = this.keys.accountSessions(refused.accountId);
    await this.redis.run(async (r) => {
      for (const name of await r.zrange(index, '0', '-1')) {
        const key = this.keys.sessionNamed(name);
        const sealed = await r.get(key);
        const record = typeof sealed === 'string' ? this.#open(sealed, key) : null;
        if (record && record.keyHash !== refused.keyHash) continue;
        // Refused, or already expired or unreadable: gone either way.
        replies(await r.multi().del(key).zrem(this.keys.sessionIndex(), name).zrem(index, name).exec());
      }
      if ((await r.zcard(index)) === 0) await r.zrem(this.keys.liveAccounts(), refused.accountId);
    });
  }

  #seal(record: SessionRecord, key: string): string {
    const iv = randomBytes(12);
    const cipher = createCipheriv('aes-256-gcm', this.sessionKey, iv);
    cipher.setAAD(Buffer.from(key));
    const body = Buffer.concat([cipher.update(JSON.stringify(record), 'utf8'), cipher.final()]);
    const parts = [iv, cipher.getAuthTag(), body].map((b) => b.toString('base64url'));
    return `${FORMAT}.${parts.join('.')}`;
  }

  #open(sealed: string, key: string): SessionRecord | null {
    const [format, iv = '', tag = '', body = '', ...rest] = sealed.split('.');
    if (format !== FORMAT || rest.length > 0) return null;
    try {
      const decipher = createDecipheriv('aes-256-gcm', this.sessionKey, Buffer.from(iv, 'base64url'));
      decipher.setAAD(Buffer.from(key));
      decipher.setAuthTag(Buffer.from(tag, 'base64url'));
      const text = Buffer.concat([decipher.update(Buffer.from(body, 'base64url')), decipher.final()]);
      const record = JSON.parse(text.toString('utf8')) as SessionRecord;
      if (typeof record.apiKey !== 'string' || typeof record.absoluteAt !== 'number') return null;
      return record;
    } catch {
      return null;
    }
  }
}
