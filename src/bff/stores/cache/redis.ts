import { createHash } from 'node:crypto';
import type { Logger } from 'pino';
import type { RedisConnection } from '../redis-connection.ts';
import { RedisKeys } from '../redis-keys.ts';
import type { CacheLimits, ResultCache } from './types.ts';

/**
 * Stores one entry within the bounds, atomically: drops the bookkeeping of entries Redis has expired, replaces
 * an entry stored under the same name, then evicts the account's oldest entries while it would pass its share,
 * and everyone's oldest while the whole cache would pass its bytes or entries. Returns 1 when stored.
 *
 * KEYS: 1 global order (zset: member -> stored at), 2 the account's order (zset), 3 sizes (hash: member ->
 *       bytes), 4 totals (hash: account -> bytes, '*' -> all bytes)
 * ARGV: 1 member (`<account>:<entry>`), 2 account, 3 value, 4 bytes, 5 ttl ms, 6 now, 7 max bytes,
 *       8 max entries, 9 account's max bytes, 10 entry key prefix, 11 account order key prefix
 */
const SET_SCRIPT = `
local all, own, sizes, totals = KEYS[1], KEYS[2], KEYS[3], KEYS[4]
local member, account, value = ARGV[1], ARGV[2], ARGV[3]
local bytes, ttl, now = tonumber(ARGV[4]), tonumber(ARGV[5]), tonumber(ARGV[6])
local maxBytes, maxEntries, accountMax = tonumber(ARGV[7]), tonumber(ARGV[8]), tonumber(ARGV[9])
local entryPrefix, ownPrefix = ARGV[10], ARGV[11]
if bytes > accountMax then return 0 end

local function forget(m)
  local a = string.match(m, '^([^:]+):')
  local size = tonumber(redis.call('HGET', sizes, m)) or 0
  redis.call('DEL', entryPrefix .. m)
  redis.call('ZREM', all, m)
  redis.call('ZREM', ownPrefix .. a, m)
  redis.call('HDEL', sizes, m)
  if redis.call('HINCRBY', totals, a, -size) <= 0 then redis.call('HDEL', totals, a) end
  redis.call('HINCRBY', totals, '*', -size)
end
local function total(field) return tonumber(redis.call('HGET', totals, field)) or 0 end
local function oldest(order)
  local first = redis.call('ZRANGE', order, 0, 0)
  return first[1]
end

for _, m in ipairs(redis.call('ZRANGEBYSCORE', all, '-inf', now - ttl, 'LIMIT', 0, 1000)) do forget(m) end
if redis.call('HEXISTS', sizes, member) == 1 then forget(member) end
while total(account) + bytes > accountMax do
  local m = oldest(own)
  if not m then break end
  forget(m)
end
while total('*') + bytes > maxBytes or redis.call('ZCARD', all) >= maxEntries do
  local m = oldest(all)
  if not m then break end
  forget(m)
end
redis.call('SET', entryPrefix .. member, value, 'PX', ttl)
redis.call('ZADD', all, now, member)
redis.call('ZADD', own, now, member)
redis.call('HSET', sizes, member, bytes)
redis.call('HINCRBY', totals, account, bytes)
redis.call('HINCRBY', totals, '*', bytes)
return 1
`;

/**
 * The results cache in Redis, shared by every replica: a record one replica fetched is a hit on all. Same
 * bounds as the memory cache (CACHE_TTL_S as Redis expiry, CACHE_MAX_MB and CACHE_MAX_ENTRIES in all, and
 * CACHE_ACCOUNT_SHARE_PERCENT per account, its own oldest entries going first), kept by one script so
 * replicas storing at once cannot overshoot. One difference: eviction is by age of storage, not of last use,
 * so that a hit stays one GET and writes nothing.
 *
 * Names carry an HMAC of the account's key hash and a hash of the entry's key, never either in clear.
 */
export class RedisCache<V> implements ResultCache<V> {
  readonly #enabled: boolean;
  readonly #accountMax: number;
  readonly #store: (keys: string[], args: (string | number)[]) => Promise<unknown>;
  readonly #prefix = `${RedisKeys.PREFIX}cache:`;

  constructor(
    private readonly redis: RedisConnection,
    private readonly keys: RedisKeys,
    private readonly limits: CacheLimits,
    private readonly logger?: Logger,
    private readonly now: () => number = Date.now,
  ) {
    this.#enabled = limits.ttlMs > 0 && limits.maxBytes > 0 && limits.maxEntries > 0;
    this.#accountMax = Math.max(1, Math.floor(limits.maxBytes * limits.accountShare));
    this.#store = redis.script(SET_SCRIPT);
  }

  #member(account: string, key: string) {
    const entry = createHash('sha256').update(key).digest('base64url').slice(0, 32);
    return { account: this.keys.name(account), member: `${this.keys.name(account)}:${entry}` };
  }

  async get(account: string, key: string): Promise<V | undefined> {
    if (!this.#enabled) return undefined;
    const { member } = this.#member(account, key);
    const text = await this.redis.run((r) => r.get(`${this.#prefix}e:${member}`));
    if (text === null) return undefined;
    try {
      return JSON.parse(text) as V;
    } catch {
      return undefined;
    }
  }

  /**
   * Best effort: an answer already fetched is worth giving even if Redis failed just now, so a failed store is
   * logged, not thrown.
   */
  async set(account: string, key: string, value: V): Promise<void> {
    if (!this.#enabled) return;
    const text = JSON.stringify(value);
    const bytes = text.length + key.length + 64;
    const { account: owner, member } = this.#member(account, key);
    try {
      await this.redis.run(() =>
        this.#store(
          [
            `${this.#prefix}order`,
            `${this.#prefix}account:${owner}`,
            `${this.#prefix}sizes`,
            `${this.#prefix}bytes`,
          ],
          [
            member,
            owner,
            text,
            bytes,
            this.limits.ttlMs,
            this.now(),
            this.limits.maxBytes,
            this.limits.maxEntries,
            this.#accountMax,
            `${this.#prefix}e:`,
            `${this.#prefix}account:`,
          ],
        ),
      );
    } catch {
      this.logger?.warn('result not cached: Redis unavailable');
    }
  }

  /** Bytes held, in all and by one account, as the bookkeeping counts them (for tests and metrics). */
  async bytes(account?: string): Promise<number> {
    const field = account === undefined ? '*' : this.keys.name(account);
    return Number((await this.redis.run((r) => r.hget(`${this.#prefix}bytes`, field))) ?? 0);
  }
}
