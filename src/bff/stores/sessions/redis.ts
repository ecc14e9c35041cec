import { openAesGcm, sealAesGcm } from '../../aes-gcm.ts';
import { type RedisConnection, replies } from '../redis-connection.ts';
import { RedisKeys } from '../redis-keys.ts';
import {
  accountIdFor,
  keyFingerprint,
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
  client?: string;
  createdAt: number;
  absoluteAt: number;
}

const FORMAT = 'v1';

/**
 * Forgets one session by its name everywhere the cap's bookkeeping holds it: its record, the index, its
 * account's and its client address's sets, and its account's count. The owners hash says where those are
 * (the keys are HMACs the script cannot compute).
 */
const FORGET_LUA = `
local function forget(index, owners, counts, prefix, name)
  redis.call('DEL', prefix .. name)
  redis.call('ZREM', index, name)
  local owner = redis.call('HGET', owners, name)
  if owner then
    local accountSet, clientSet = string.match(owner, '^([^\\n]*)\\n(.*)$')
    redis.call('ZREM', accountSet, name)
    redis.call('ZREM', clientSet, name)
    redis.call('HDEL', owners, name)
    if tonumber(redis.call('ZINCRBY', counts, -1, accountSet)) <= 0 then redis.call('ZREM', counts, accountSet) end
  end
end
`;

/** KEYS: index, owners, counts. ARGV: session key prefix, name. */
const FORGET_ONE = `${FORGET_LUA}
forget(KEYS[1], KEYS[2], KEYS[3], ARGV[1], ARGV[2])
return 1
`;

/**
 * A session's record, its idle clock reset: the key's expiry pushed back, and its last use in the index and in
 * its account's and client address's sets (eviction takes the least recently used of one of them).
 * KEYS: the session's key, index, owners. ARGV: idle ms, now, name.
 */
const TOUCH = `
local sealed = redis.call('GETEX', KEYS[1], 'PX', ARGV[1])
if not sealed then return false end
redis.call('ZADD', KEYS[2], 'XX', ARGV[2], ARGV[3])
local owner = redis.call('HGET', KEYS[3], ARGV[3])
if owner then
  local accountSet, clientSet = string.match(owner, '^([^\\n]*)\\n(.*)$')
  redis.call('ZADD', accountSet, 'XX', ARGV[2], ARGV[3])
  redis.call('ZADD', clientSet, 'XX', ARGV[2], ARGV[3])
end
return sealed
`;

/**
 * A new session, and the cap kept (the rule is SessionStore.create's), atomically whichever replica signs in.
 * KEYS: the session's key, index, owners, counts, its account's set, its client's set, live accounts, its key's set.
 * ARGV: sealed record, ttl, now, idle ms, max sessions, name, account id, session key prefix, absolute ms.
 * Counts are by account set key (a member per account holding sessions, scored by how many).
 */
const CREATE = `${FORGET_LUA}
local key, index, owners, counts, accountSet, clientSet, live = KEYS[1], KEYS[2], KEYS[3], KEYS[4], KEYS[5], KEYS[6], KEYS[7]
local now, name, prefix = tonumber(ARGV[3]), ARGV[6], ARGV[8]
redis.call('SET', key, ARGV[1], 'PX', ARGV[2])
redis.call('ZADD', index, now, name)
redis.call('ZADD', accountSet, now, name)
redis.call('ZADD', clientSet, now, name)
redis.call('ZADD', live, now, ARGV[7])
redis.call('HSET', owners, name, accountSet .. '\\n' .. clientSet)
redis.call('ZINCRBY', counts, 1, accountSet)
-- The key's sessions (holdsKey), kept as long as a session of it can live.
redis.call('ZADD', KEYS[8], now, name)
redis.call('PEXPIRE', KEYS[8], ARGV[9])
-- Idle past the timeout: expired in Redis already, forgotten first.
for _, old in ipairs(redis.call('ZRANGEBYSCORE', index, '-inf', now - tonumber(ARGV[4]))) do
  forget(index, owners, counts, prefix, old)
end
local evicted = 0
local function oldestOf(set)
  for _, n in ipairs(redis.call('ZRANGE', set, 0, 1)) do
    if n ~= name then return n end
  end
  return nil
end
while redis.call('ZCARD', index) > tonumber(ARGV[5]) and evicted < 1000 do
  local victim = nil
  local top = redis.call('ZREVRANGE', counts, 0, 0, 'WITHSCORES')
  local own = tonumber(redis.call('ZSCORE', counts, accountSet) or '0')
  if top[1] == nil or top[1] == accountSet or own >= tonumber(top[2]) then
    victim = oldestOf(clientSet) or oldestOf(accountSet)
  else
    victim = oldestOf(top[1])
    -- A name left in a set without its owner entry (older records): out of the set, and try again.
    if victim and not redis.call('HGET', owners, victim) then redis.call('ZREM', top[1], victim) end
  end
  -- Nothing of the kind (records from before this bookkeeping): the session idle longest.
  if not victim then victim = oldestOf(index) end
  if not victim then break end
  forget(index, owners, counts, prefix, victim)
  evicted = evicted + 1
end
return evicted
`;

/**
 * Sessions in Redis, shared by every replica. The idle timeout is the key's expiry, pushed back on each use
 * (GETEX); the absolute timeout caps that expiry and is checked against the record. The record, API key and
 * all, is sealed with AES-256-GCM under a key derived from SESSION_SECRET and bound to its Redis key name, so
 * Redis (a dump, a replica, a MONITOR) never shows a key in clear, and a record moved to another name does
 * not open. The key name is an HMAC of the session id, so it cannot be used as a cookie either.
 * The cap (SESSION_MAX_COUNT) counts a sorted set by last use; who goes over it is SessionStore.create's rule,
 * kept by one script (CREATE) from each account's count and each client address's set of sessions.
 */
export class RedisSessionStore implements SessionStore {
  readonly #create: ReturnType<RedisConnection['script']>;
  readonly #forget: ReturnType<RedisConnection['script']>;
  readonly #touch: ReturnType<RedisConnection['script']>;
  /** A session's key is this and its name. */
  readonly #prefix: string;

  constructor(
    private readonly redis: RedisConnection,
    private readonly keys: RedisKeys,
    private readonly sessionKey: Buffer,
    private readonly limits: SessionLimits,
    private readonly now: () => number = Date.now,
  ) {
    this.#create = redis.script(CREATE);
    this.#forget = redis.script(FORGET_ONE);
    this.#touch = redis.script(TOUCH);
    this.#prefix = keys.sessionNamed('');
  }

  /** Where each session's account and client sets are, and each account's count (see CREATE). */
  readonly #owners = `${RedisKeys.PREFIX}session-owners`;
  readonly #counts = `${RedisKeys.PREFIX}session-counts`;

  /** One client address's sessions of one account (its name an HMAC: Redis never shows the address). */
  #clientSet(accountId: string, client: string | undefined): string {
    return `${RedisKeys.PREFIX}client-sessions:${this.keys.name(`${accountId}\n${client ?? ''}`)}`;
  }

  /**
   * The names of an account's sessions of one key (its name an HMAC of account and fingerprint): what holdsKey
   * reads, so a demo visitor's check opens that visitor's few sessions, not every visitor's (hostile review
   * H16b-F1: 180 ms of CPU at 10,000 demo sessions). Names whose session has gone are dropped as they are read.
   */
  #keySet(accountId: string, fingerprint: string): string {
    return `${RedisKeys.PREFIX}key-sessions:${this.keys.name(`${accountId}\nkey\n${fingerprint}`)}`;
  }

  /** Forgets a session by its name: record, index, and the cap's bookkeeping. */
  #forgetNamed(name: string): Promise<unknown> {
    return this.redis.run(() =>
      this.#forget([this.keys.sessionIndex(), this.#owners, this.#counts], [this.#prefix, name]),
    );
  }

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
      ...(data.client ? { client: data.client } : {}),
      createdAt: now,
      absoluteAt: now + this.limits.absoluteMs,
    };
    const ttl = Math.min(this.limits.idleMs, this.limits.absoluteMs);
    const name = this.keys.name(id);
    await this.redis.run(() =>
      this.#create(
        [
          key,
          this.keys.sessionIndex(),
          this.#owners,
          this.#counts,
          // The account's sessions, for the review worker and the cap (evicted or expired names are dropped).
          this.keys.accountSessions(data.accountId),
          this.#clientSet(data.accountId, data.client),
          this.keys.liveAccounts(),
          this.#keySet(data.accountId, keyFingerprint(data.keyHash)),
        ],
        [
          this.#seal(record, key),
          ttl,
          now,
          this.limits.idleMs,
          this.limits.maxSessions,
          name,
          data.accountId,
          this.#prefix,
          this.limits.absoluteMs,
        ],
      ),
    );
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
      const sealed = await this.#touch([key, index, this.#owners], [this.limits.idleMs, now, name]);
      const record = typeof sealed === 'string' ? this.#open(sealed, key) : null;
      if (!record || now > record.absoluteAt) {
        // Expired, past the absolute timeout, or sealed under another SESSION_SECRET: over either way.
        await this.#forgetNamed(name);
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
        ...(record.client ? { client: record.client } : {}),
        createdAt: record.createdAt,
        lastSeenAt: now,
      };
    });
  }

  async delete(id: string): Promise<void> {
    if (id.length === 0 || id.length > 128) return;
    await this.#forgetNamed(this.keys.name(id));
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

  async sessionFor(
    accountId: string,
    prefer?: string,
  ): Promise<{ session: Session; ref: string } | undefined> {
    const index = this.keys.accountSessions(accountId);
    const names = await this.redis.run((r) => r.zrevrange(index, 0, 9));
    // The most recently used live session, or the first of the key `prefer` names (a review owner's) among them.
    let chosen: { name: string; session: Session } | undefined;
    for (const name of names) {
      const session = await this.#getNamed(name);
      if (!session) {
        await this.#forgetNamed(name);
        await this.redis.run((r) => r.zrem(index, name));
        continue;
      }
      if (session.accountId !== accountId) continue;
      chosen ??= { name, session };
      if (!prefer) break;
      if (keyFingerprint(session.keyHash) === prefer) {
        chosen = { name, session };
        break;
      }
    }
    if (!chosen) {
      await this.redis.run((r) => r.zrem(this.keys.liveAccounts(), accountId));
      return undefined;
    }
    const { name } = chosen;
    const now = this.now();
    await this.redis.run(async (r) => {
      replies(await r.multi().zadd(index, now, name).zadd(this.keys.liveAccounts(), now, accountId).exec());
    });
    return { session: chosen.session, ref: name };
  }

  async holdsKey(accountId: string, fingerprint: string): Promise<boolean> {
    // The sessions of that key only, read as stored in one round trip: an expired session's record is gone (its
    // TTL is the idle timeout), and its name leaves the set.
    const keySet = this.#keySet(accountId, fingerprint);
    const names = await this.redis.run((r) => r.zrevrange(keySet, 0, -1));
    if (names.length === 0) return false;
    const keys = names.map((name) => this.keys.sessionNamed(name));
    const sealed = await this.redis.run((r) => r.mget(...keys));
    const gone = names.filter((_, i) => typeof sealed[i] !== 'string');
    if (gone.length > 0) await this.redis.run((r) => r.zrem(keySet, ...gone));
    const now = this.now();
    return sealed.some((text, i) => {
      const record = typeof text === 'string' ? this.#open(text, keys[i] as string) : null;
      return (
        record !== null &&
        now <= record.absoluteAt &&
        (record.accountId ?? accountIdFor(record.keyHash)) === accountId &&
        keyFingerprint(record.keyHash) === fingerprint
      );
    });
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
        await this.#forgetNamed(name);
        await r.zrem(index, name);
      }
      if ((await r.zcard(index)) === 0) await r.zrem(this.keys.liveAccounts(), refused.accountId);
    });
  }

  #seal(record: SessionRecord, key: string): string {
    const { iv, tag, body } = sealAesGcm(this.sessionKey, Buffer.from(key), JSON.stringify(record));
    const parts = [iv, tag, body].map((b) => b.toString('base64url'));
    return `${FORMAT}.${parts.join('.')}`;
  }

  #open(sealed: string, key: string): SessionRecord | null {
    const [format, iv = '', tag = '', body = '', ...rest] = sealed.split('.');
    if (format !== FORMAT || rest.length > 0) return null;
    const text = openAesGcm(this.sessionKey, Buffer.from(key), {
      iv: Buffer.from(iv, 'base64url'),
      tag: Buffer.from(tag, 'base64url'),
      body: Buffer.from(body, 'base64url'),
    });
    if (text === null) return null;
    try {
      const record = JSON.parse(text) as SessionRecord;
      if (typeof record.apiKey !== 'string' || typeof record.absoluteAt !== 'number') return null;
      return record;
    } catch {
      return null;
    }
  }
}
