import { randomBytes } from 'node:crypto';
import type { Logger } from 'pino';
import type { BffConfig } from '../env.ts';
import type { CachedResult } from '../lookups.ts';
import type { BudgetStore } from '../upstream/budget.ts';
import { MemoryBudgetStore } from './budget/memory.ts';
import { RedisBudgetStore } from './budget/redis.ts';
import { MemoryCache } from './cache/memory.ts';
import { RedisCache } from './cache/redis.ts';
import type { ResultCache } from './cache/types.ts';
import { RedisConnection } from './redis-connection.ts';
import { deriveSecrets, RedisKeys } from './redis-keys.ts';
import { MemorySessionStore } from './sessions/memory.ts';
import { RedisSessionStore } from './sessions/redis.ts';
import type { SessionStore } from './sessions/types.ts';

export interface Stores {
  kind: 'memory' | 'redis';
  sessions: SessionStore;
  cache: ResultCache<CachedResult>;
  budget: BudgetStore;
  /** Signs search cursors: the same on every replica when they share Redis. */
  cursorSecret: string;
  /** The Redis connection, when there is one (readiness, tests). */
  redis?: RedisConnection;
  close(): Promise<void>;
}

type StoreConfig = Pick<
  BffConfig,
  | 'redisUrl'
  | 'sessionSecret'
  | 'cursorSecret'
  | 'sessionIdleMs'
  | 'sessionAbsoluteMs'
  | 'sessionMaxCount'
  | 'cacheTtlMs'
  | 'cacheMaxBytes'
  | 'cacheMaxEntries'
  | 'cacheAccountShare'
  | 'timeoutMs'
>;

/**
 * Where sessions, cached results and rate budgets live: this process's memory (one server, the default), or
 * Redis when REDIS_URL is set, so that several replicas behind a load balancer behave as one. The Redis
 * connection starts in the background: a Redis that is down at start means 503s and an unready /readyz until
 * it is up, not a crash.
 */
export function createStores(config: StoreConfig, logger?: Logger): Stores {
  const sessionLimits = {
    idleMs: config.sessionIdleMs,
    absoluteMs: config.sessionAbsoluteMs,
    maxSessions: config.sessionMaxCount,
  };
  const cacheLimits = {
    ttlMs: config.cacheTtlMs,
    maxBytes: config.cacheMaxBytes,
    maxEntries: config.cacheMaxEntries,
    accountShare: config.cacheAccountShare,
  };
  if (!config.redisUrl) {
    return {
      kind: 'memory',
      sessions: new MemorySessionStore(sessionLimits),
      cache: new MemoryCache<CachedResult>(cacheLimits),
      budget: new MemoryBudgetStore(),
      cursorSecret: config.cursorSecret ?? randomBytes(32).toString('hex'),
      close: async () => {},
    };
  }
  if (!config.sessionSecret) throw new Error('SESSION_SECRET is required when REDIS_URL is set');
  const secrets = deriveSecrets(config.sessionSecret);
  const keys = new RedisKeys(secrets.namesKey);
  const redis = new RedisConnection({ url: config.redisUrl, logger });
  return {
    kind: 'redis',
    sessions: new RedisSessionStore(redis, keys, secrets.sessionKey, sessionLimits),
    cache: new RedisCache<CachedResult>(redis, keys, cacheLimits, logger),
    // A slot is held for one attempt, which UPSTREAM_TIMEOUT_MS bounds, headers and body.
    budget: new RedisBudgetStore(redis, keys, { inflightTtlMs: config.timeoutMs + 5000, logger }),
    cursorSecret: config.cursorSecret ?? secrets.cursorSecret,
    redis,
    close: () => redis.close(),
  };
}
