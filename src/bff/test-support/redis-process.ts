import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { createServer } from 'node:net';

/*
 * Debian's redis-server as a child process on loopback, no persistence: for the tests that need a real Redis and
 * for `npm run cluster`. Never used by a production replica, which is given REDIS_URL.
 */

export function hasRedisServer(): boolean {
  try {
    return execFileSync('sh', ['-c', 'command -v redis-server'], { encoding: 'utf8' }).trim() !== '';
  } catch {
    return false;
  }
}

/** A port free on 127.0.0.1 right now. */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => resolve(typeof address === 'object' && address ? address.port : 0));
    });
  });
}

/**
 * Starts redis-server on `port` and resolves once it accepts connections (rejects if it exits or has not started
 * within 10 s). Its log is read until then, and drained unread afterwards.
 */
export async function spawnRedisServer(port: number): Promise<ChildProcess> {
  const child = spawn(
    'redis-server',
    ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'],
    { stdio: ['ignore', 'pipe', 'ignore'] },
  );
  await new Promise<void>((resolve, reject) => {
    let output = '';
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      fail(new Error(`redis-server did not start:\n${output}`));
    }, 10_000);
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
  return child;
}
