import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

/**
 * The composition root as an operator runs it: `npm start` (scripts/start.js running the compiled server,
 * dist-server/main.js, built first if stale) with the embedded reference service, real sockets. Covers what
 * in-process tests cannot: start-up output, oversized headers, graceful shutdown.
 */
let proc: ChildProcess;
let url = '';
let output = '';
let exit: Promise<number | null>;
const dist = mkdtempSync(join(tmpdir(), 'proplens-dist-'));

beforeAll(async () => {
  // A stand-in page, so the test does not build the SPA; the server is compiled first if stale.
  writeFileSync(join(dist, 'index.html'), '<!doctype html><title>PropLens</title>');
  proc = spawn(process.execPath, ['scripts/start.js'], {
    env: {
      ...process.env,
      PORT: '0',
      DIST_DIR: dist,
      // A database of its own: the default (data/db) is the working tree's, with whatever another run left there.
      DATABASE_DIR: join(dist, 'db'),
      SKIP_WEB_BUILD: '1',
      REFERENCE_RECORDS: '3000',
      REFERENCE_SEED: '7',
      REFERENCE_DATA_DIR: join(tmpdir(), 'proplens-test-data'),
      // Every upstream answer takes 400 ms, so a request is surely in flight when SIGTERM arrives.
      REFERENCE_FAULTS: 'latency=400',
      LOG_LEVEL: 'debug',
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  exit = new Promise((resolve) => proc.once('exit', (code) => resolve(code)));
  url = await new Promise<string>((resolve, reject) => {
    const onData = (d: Buffer) => {
      output += d.toString();
      const m = /running at (http:\/\/[\d.:]+)/.exec(output);
      // The banner ends with the example addresses.
      if (m && output.includes('Try an address')) resolve(m[1] as string);
    };
    proc.stdout?.on('data', onData);
    proc.stderr?.on('data', onData);
    proc.once('exit', () => reject(new Error(`exited early:\n${output}`)));
  });
}, 60_000);

afterAll(() => {
  proc.kill('SIGKILL');
  rmSync(dist, { recursive: true, force: true });
});

const post = (path: string, body: unknown) =>
  fetch(`${url}${path}`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', 'X-Requested-With': 'proplens' },
    body: JSON.stringify(body),
  });

/**
 * A GET whose `received` settles once the server has parsed it: it asks for `100 Continue`, which Node's
 * server sends as it hands the request to the app. From then on the connection is busy, not idle.
 */
function getOnceReceived(path: string, headers: Record<string, string>) {
  let received: () => void = () => {};
  const receivedP = new Promise<void>((resolve) => {
    received = resolve;
  });
  const response = new Promise<{ status: number; body: string }>((resolve, reject) => {
    const req = request(`${url}${path}`, { headers: { ...headers, Expect: '100-continue' } }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (d: string) => {
        body += d;
      });
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
    });
    req.on('continue', () => received());
    req.on('error', reject);
    req.end();
  });
  return { received: receivedP, response };
}

describe('npm start', () => {
  it('prints the URL and the demo keys, and never a key it was given', () => {
    expect(output).toContain('PropLens is running at http://127.0.0.1:');
    expect(output).toContain('pi_demo_professional');
    expect(output).toContain('pi_demo_starter');
  });

  it('refuses oversized headers without crashing', async () => {
    const status = await new Promise<number>((resolve, reject) => {
      const req = request(`${url}/healthz`, { headers: { 'X-Big': 'x'.repeat(20_000) } }, (res) => {
        res.resume();
        resolve(res.statusCode ?? 0);
      });
      req.on('error', reject);
      req.end();
    });
    expect(status).toBe(431);
    expect((await fetch(`${url}/healthz`)).status).toBe(200);
  });

  it('on SIGTERM finishes the request in flight, then exits cleanly', async () => {
    const signIn = await post('/api/session', { apiKey: 'pi_demo_professional' });
    expect(signIn.status).toBe(200);
    const cookie = (signIn.headers.get('set-cookie') ?? '').split(';')[0] as string;
    const inFlight = getOnceReceived(
      `/api/properties/resolve?address=${encodeURIComponent('1100 Congress Ave, Austin, TX')}`,
      { Cookie: cookie, 'X-Requested-With': 'proplens' },
    );
    // Signal only once the server has the request.
    await inFlight.received;
    const signalled = performance.now();
    proc.kill('SIGTERM');
    const res = await inFlight.response;
    expect(res.status).toBe(200);
    expect((JSON.parse(res.body) as { property: { address: string } }).property.address).toBe(
      '1100 Congress Ave, Austin, TX 78701',
    );
    expect(await exit).toBe(0);
    // Kept-alive connections are closed as soon as they are idle, not left to time out.
    expect(performance.now() - signalled).toBeLessThan(2500);
    await expect(fetch(`${url}/healthz`)).rejects.toThrow();
  }, 20_000);
});
