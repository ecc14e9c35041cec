import { createHash } from 'node:crypto';
import { Redis } from 'ioredis';
import type { Logger } from 'pino';
import { storeUnavailable } from '../errors.ts';

/**
 * The one connection to Redis that sessions, cache and rate budget share, tuned to fail fast: with Redis down
 * or unreachable a command fails at once (no offline queue) or within COMMAND_TIMEOUT_MS (a Redis that
 * accepts connections but does not answer), so a request answers 503 `store_unavailable` instead of hanging.
 * Reconnection never gives up, so service resumes by itself when Redis is back.
 */
export interface RedisOptions {
  url: string;
  logger?: Logger;
  /** Longest one command may take; past it the request answers 503. */
  commandTimeoutMs?: number;
}

const COMMAND_TIMEOUT_MS = 1000;
const CONNECT_TIMEOUT_MS = 1000;
/** Reconnect quickly (Redis restarts in well under a second), at most once a second while it is away. */
const reconnectDelay = (attempt: number) => Math.min(50 * attempt, 1000);

/** The replies of a MULTI or pipeline, or its first error (exec reports errors per command). */
export function replies(results: [Error | null, unknown][] | null): unknown[] {
  if (!results) throw new Error('transaction aborted');
  for (const [err] of results) if (err) throw err;
  return results.map(([, value]) => value);
}

export class RedisConnection {
  readonly client: Redis;
  readonly #logger: Logger | undefined;
  #down = false;

  constructor(options: RedisOptions) {
    this.#logger = options.logger;
    this.client = new Redis(options.url, {
      enableOfflineQueue: false,
      // Commands caught by a disconnection fail at once; none is replayed on reconnect (a replayed budget
      // reservation would hold a slot nobody releases).
      maxRetriesPerRequest: 0,
      autoResendUnfulfilledCommands: false,
      commandTimeout: options.commandTimeoutMs ?? COMMAND_TIMEOUT_MS,
      connectTimeout: CONNECT_TIMEOUT_MS,
      retryStrategy: reconnectDelay,
      connectionName: 'proplens-bff',
    });
    // Without a listener an 'error' event would crash the process; log each outage once, not per retry.
    this.client.on('error', (err: Error) => {
      if (this.#down) return;
      this.#down = true;
      this.#logger?.warn(
        { redis: { error: err.message } },
        'Redis unavailable: answering 503 until it is back',
      );
    });
    this.client.on('ready', () => {
      if (!this.#down) return;
      this.#down = false;
      this.#logger?.info('Redis available again');
    });
    this.client.on('close', () => {
      if (this.client.status === 'end' || this.#down) return;
      this.#down = true;
      this.#logger?.warn('Redis connection lost: answering 503 until it is back');
    });
  }

  /** Readiness: connected and answering a PING within the command timeout. */
  async ping(): Promise<boolean> {
    if (this.client.status !== 'ready') return false;
    try {
      return (await this.client.ping()) === 'PONG';
    } catch {
      return false;
    }
  }

  /** Resolves once connected and ready (start-up, tests); rejects after `timeoutMs`. */
  waitUntilReady(timeoutMs = 5000): Promise<void> {
    if (this.client.status === 'ready') return Promise.resolve();
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        this.client.off('ready', onReady);
        reject(new Error(`Redis not ready within ${timeoutMs} ms`));
      }, timeoutMs);
      const onReady = () => {
        clearTimeout(timer);
        resolve();
      };
      this.client.once('ready', onReady);
    });
  }

  /** Runs store work; any Redis failure becomes the API's 503 `store_unavailable`. */
  async run<T>(work: (redis: Redis) => Promise<T>): Promise<T> {
    try {
      return await work(this.client);
    } catch (err) {
      this.#logger?.debug({ redis: { error: (err as Error).message } }, 'Redis command failed');
      throw storeUnavailable();
    }
  }

  /** A Lua script, sent by hash once Redis has it (EVALSHA), in full again after Redis restarted empty. */
  script(lua: string): (keys: string[], args: (string | number)[]) => Promise<unknown> {
    const sha = createHash('sha1').update(lua).digest('hex');
    return async (keys, args) => {
      try {
        return await this.client.evalsha(sha, keys.length, ...keys, ...args);
      } catch (err) {
        if (!String((err as Error).message).startsWith('NOSCRIPT')) throw err;
        return this.client.eval(lua, keys.length, ...keys, ...args);
      }
    };
  }

  async close(): Promise<void> {
    try {
      await this.client.quit();
    } catch {
      this.client.disconnect();
    }
  }
}
