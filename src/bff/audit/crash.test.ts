import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import { afterAll, describe, expect, it } from 'vitest';

/*
 * kill -9 in the middle of lookups: the whole server as a process (src/main.ts with the embedded reference and
 * database), lookups from several connections at once, SIGKILL while they run. Every lookup a client was
 * answered must be in the audit trail the dead process left on disk.
 */
const dir = mkdtempSync(join(tmpdir(), 'proplens-crash-'));
let proc: ChildProcess | undefined;

afterAll(() => {
  proc?.kill('SIGKILL');
  rmSync(dir, { recursive: true, force: true });
});

async function startServer(): Promise<string> {
  proc = spawn(process.execPath, ['--import', 'tsx', 'src/main.ts'], {
    env: {
      ...process.env,
      PORT: '0',
      DATABASE_DIR: join(dir, 'db'),
      REFERENCE_RECORDS: '3000',
      REFERENCE_SEED: '7',
      REFERENCE_DATA_DIR: join(tmpdir(), 'proplens-test-data'),
      REFERENCE_RATE_LIMIT: '100000000/60',
      LOG_LEVEL: 'warn',
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  return new Promise<string>((resolve, reject) => {
    const onData = (d: Buffer) => {
      output += d.toString();
      const m = /running at (http:\/\/[\d.:]+)/.exec(output);
      if (m) resolve(m[1] as string);
    };
    proc?.stdout?.on('data', onData);
    proc?.stderr?.on('data', onData);
    proc?.once('exit', () => reject(new Error(`exited early:\n${output}`)));
  });
}

describe('a replica killed with SIGKILL', () => {
  it('has committed the entry of every lookup it answered', async () => {
    const url = await startServer();
    const headers = { 'Content-Type': 'application/json', 'X-Requested-With': 'proplens' };
    const signIn = await fetch(`${url}/api/session`, {
      method: 'POST',
      headers,
      body: JSON.stringify({ apiKey: 'pi_demo_enterprise' }),
    });
    expect(signIn.status).toBe(200);
    const cookie = (signIn.headers.get('set-cookie') ?? '').split(';')[0] as string;
    const answered: string[] = [];
    let next = 0;
    let killed = false;
    const exited = new Promise<void>((done) => proc?.once('exit', () => done()));
    // Eight connections asking distinct addresses until the process dies under them.
    const loop = async () => {
      while (!killed) {
        const address = `${++next} Crash Test Way, Nowhere, ZZ`;
        try {
          const res = await fetch(`${url}/api/properties/resolve?address=${encodeURIComponent(address)}`, {
            headers: { ...headers, Cookie: cookie },
          });
          await res.arrayBuffer();
          if (res.status === 200) answered.push(address);
          // Killed while answers are arriving, not between them.
          if (answered.length === 200 && !killed) {
            killed = true;
            proc?.kill('SIGKILL');
          }
        } catch {
          // The connection died with the process.
        }
      }
    };
    await Promise.all(Array.from({ length: 8 }, loop));
    await exited;
    expect(answered.length).toBeGreaterThanOrEqual(200);
    const db = new BetterSqlite3(join(dir, 'db', 'proplens.db'), { readonly: true });
    const kept = new Set(
      (db.prepare("select query from audit_entries where kind = 'resolve'").all() as { query: string }[]).map(
        (r) => r.query,
      ),
    );
    db.close();
    expect(answered.filter((a) => !kept.has(a))).toEqual([]);
  }, 60_000);
});
