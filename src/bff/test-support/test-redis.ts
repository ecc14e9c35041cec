import type { ChildProcess } from 'node:child_process';
import { afterAll, beforeAll, beforeEach } from 'vitest';
import { RedisConnection } from '../stores/redis-connection.ts';
import { freePort, hasRedisServer, spawnRedisServer } from './redis-process.ts';

/*
 * A real redis-server for tests: Debian's, on a free loopback port, no persistence, started and stopped by the
 * test file. Where it is not installed, Redis tests fail under CI=true (CI installs it: .ci/run) and are
 * skipped elsewhere, saying so either way.
 */

const MISSING =
  'redis-server is not installed, so the Redis tests cannot run. Install it with ' +
  '`apt-get install -y redis-server` (Debian/Ubuntu; .ci/run does this in CI) or put redis-server on PATH.';

/** True when redis-server can be run; under CI=true a missing one is an error, elsewhere a skip. */
export function redisServerAvailable(): boolean {
  if (hasRedisServer()) return true;
  if (process.env.CI === 'true') throw new Error(MISSING);
  console.warn(`Skipping the Redis tests: ${MISSING}`);
  return false;
}

export class RedisServer {
  #child: ChildProcess | null = null;

  private constructor(readonly port: number) {}

  static async start(): Promise<RedisServer> {
    const server = new RedisServer(await freePort());
    await server.start();
    return server;
  }

  get url() {
    return `redis://127.0.0.1:${this.port}`;
  }

  /** Starts (or restarts, on the same port) and resolves once it accepts connections. */
  async start(): Promise<void> {
    this.#child = await spawnRedisServer(this.port);
  }

  /** Freezes it (SIGSTOP): connections stay open and nothing answers, as with a hung server or a lost network. */
  pause() {
    this.#child?.kill('SIGSTOP');
  }

  resume() {
    this.#child?.kill('SIGCONT');
  }

  /** Stops it the hard way (as a crash or a lost machine would), and resolves once it is gone. */
  async stop(): Promise<void> {
    const child = this.#child;
    this.#child = null;
    if (!child || child.exitCode !== null) return;
    await new Promise<void>((resolve) => {
      child.once('exit', () => resolve());
      child.kill('SIGKILL');
    });
  }
}

/**
 * One redis-server and one connection to it for the test file (call inside its `describe`): started before its
 * tests, emptied before each, stopped after them. Read `.redis` (and `.server`) inside tests and hooks only.
 */
export function useTestRedis(): { readonly redis: RedisConnection; readonly server: RedisServer } {
  let server: RedisServer | undefined;
  let redis: RedisConnection | undefined;
  beforeAll(async () => {
    server = await RedisServer.start();
    redis = new RedisConnection({ url: server.url });
    await redis.waitUntilReady();
  });
  afterAll(async () => {
    await redis?.close();
    await server?.stop();
  });
  beforeEach(async () => {
    await redis?.client.flushall();
  });
  return {
    get redis() {
      if (!redis) throw new Error('useTestRedis: read .redis inside a test or a hook');
      return redis;
    },
    get server() {
      if (!server) throw new Error('useTestRedis: read .server inside a test or a hook');
      return server;
    },
  };
}
