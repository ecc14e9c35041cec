import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { createServer } from 'node:net';

/*
 * A real redis-server for tests: Debian's, on a free loopback port, no persistence, started and stopped by the
 * test file. Where it is not installed, Redis tests fail under CI=true (CI installs it: .ci/run) and are
 * skipped elsewhere, saying so either way.
 */

const MISSING =
  'redis-server is not installed, so the Redis tests cannot run. Install it with ' +
  '`apt-get install -y redis-server` (Debian/Ubuntu; .ci/run does this in CI) or put redis-server on PATH.';

function findRedisServer(): string | null {
  try {
    return execFileSync('sh', ['-c', 'command -v redis-server'], { encoding: 'utf8' }).trim() || null;
  } catch {
    return null;
  }
}

/** True when redis-server can be run; under CI=true a missing one is an error, elsewhere a skip. */
export function redisServerAvailable(): boolean {
  if (findRedisServer()) return true;
  if (process.env.CI === 'true') throw new Error(MISSING);
  console.warn(`Skipping the Redis tests: ${MISSING}`);
  return false;
}

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      server.close(() => resolve(port));
    });
  });
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
    const child = spawn(
      'redis-server',
      ['--port', String(this.port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'],
      { stdio: ['ignore', 'pipe', 'pipe'] },
    );
    this.#child = child;
    await new Promise<void>((resolve, reject) => {
      let output = '';
      const timer = setTimeout(() => fail(new Error(`redis-server did not start:\n${output}`)), 10_000);
      const fail = (err: Error) => {
        clearTimeout(timer);
        reject(err);
      };
      const exited = (code: number | null) => fail(new Error(`redis-server exited (${code}):\n${output}`));
      const read = (chunk: Buffer) => {
        output += chunk.toString();
        if (!output.includes('Ready to accept connections')) return;
        clearTimeout(timer);
        child.off('exit', exited);
        child.stdout?.off('data', read);
        child.stdout?.resume();
        resolve();
      };
      child.once('error', fail);
      child.once('exit', exited);
      child.stdout?.on('data', read);
    });
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
