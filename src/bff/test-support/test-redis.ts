import type { ChildProcess } from 'node:child_process';
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
