import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { chmodSync, chownSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort } from './redis-process.ts';

/*
 * A real PostgreSQL for tests and `npm run cluster`: Debian's server, a throwaway cluster in a temporary folder
 * on a free loopback port, trust authentication, removed when stopped. PostgreSQL refuses to run as root, so as
 * root the cluster belongs to the `postgres` user and runs as it (runuser). Where PostgreSQL is not installed,
 * its tests fail under CI=true (CI installs it: .ci/run) and are skipped elsewhere, saying so either way.
 */

const MISSING =
  'PostgreSQL is not installed, so the PostgreSQL tests cannot run. Install it with ' +
  '`apt-get install -y postgresql` (Debian/Ubuntu; .ci/run does this in CI), or set POSTGRES_BIN to its bin folder.';

/** The folder holding initdb and postgres: POSTGRES_BIN, else the newest Debian install. */
export function postgresBin(): string | undefined {
  if (process.env.POSTGRES_BIN) return process.env.POSTGRES_BIN;
  const root = '/usr/lib/postgresql';
  if (!existsSync(root)) return undefined;
  const versions = readdirSync(root)
    .filter((v) => existsSync(join(root, v, 'bin', 'postgres')))
    .sort((a, b) => Number(b) - Number(a));
  return versions[0] ? join(root, versions[0], 'bin') : undefined;
}

/** True when PostgreSQL can be run; under CI=true a missing one is an error, elsewhere a skip. */
export function postgresAvailable(): boolean {
  if (postgresBin()) return true;
  if (process.env.CI === 'true') throw new Error(MISSING);
  console.warn(`Skipping the PostgreSQL tests: ${MISSING}`);
  return false;
}

const asRoot = typeof process.getuid === 'function' && process.getuid() === 0;
const run = (bin: string, args: string[]) =>
  asRoot ? (['runuser', ['-u', 'postgres', '--', bin, ...args]] as const) : ([bin, args] as const);

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

function signal(pid: number, name: NodeJS.Signals): void {
  try {
    process.kill(pid, name);
  } catch {
    // Already gone.
  }
}

/** A new temporary folder for a cluster, owned by whoever runs postgres. */
function ownedFolder(prefix: string): string {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  if (asRoot) {
    const uid = Number(execFileSync('id', ['-u', 'postgres'], { encoding: 'utf8' }).trim());
    const gid = Number(execFileSync('id', ['-g', 'postgres'], { encoding: 'utf8' }).trim());
    chownSync(dir, uid, gid);
  }
  chmodSync(dir, 0o700);
  return dir;
}

function initdb(bin: string, data: string): void {
  const [cmd, args] = run(join(bin, 'initdb'), [
    '-D',
    data,
    '-U',
    'postgres',
    '--auth=trust',
    '--no-sync',
    '-E',
    'UTF8',
    '--locale=C',
  ]);
  execFileSync(cmd, [...args], { stdio: 'ignore' });
}

/**
 * Where the unit tests' template cluster is (the folder of a data directory initdb made, never started). initdb
 * is most of a throwaway cluster's start (3.3 s of wall time on a loaded machine, where copying its 39 MB takes
 * 0.7 s), and some thirty test files each start one: vitest's global setup (postgres-template.ts) makes it once
 * and names it here for every worker, and for what they spawn (`npm run cluster` in the chaos test).
 */
export const PG_TEMPLATE_ENV = 'PROPLENS_PG_TEMPLATE';

/** Makes the template cluster, when PostgreSQL is installed, names it (PG_TEMPLATE_ENV), and returns what removes it. */
export function makePostgresTemplate(): (() => void) | undefined {
  const bin = postgresBin();
  if (!bin) return undefined;
  const dir = ownedFolder('proplens-pg-template-');
  const data = join(dir, 'data');
  initdb(bin, data);
  process.env[PG_TEMPLATE_ENV] = data;
  return () => {
    delete process.env[PG_TEMPLATE_ENV];
    rmSync(dir, { recursive: true, force: true });
  };
}

export class PostgresServer {
  #child: ChildProcess | null = null;

  private constructor(
    readonly port: number,
    readonly dir: string,
    private readonly bin: string,
  ) {}

  /**
   * A new cluster in a new temporary folder, started; resolves once it accepts connections. The cluster is a
   * copy of the test run's template (PG_TEMPLATE_ENV) where there is one, else made by initdb.
   */
  static async start(): Promise<PostgresServer> {
    const bin = postgresBin();
    if (!bin) throw new Error(MISSING);
    const dir = ownedFolder('proplens-pg-');
    const template = process.env[PG_TEMPLATE_ENV];
    if (template && existsSync(join(template, 'PG_VERSION'))) {
      // As its owner: the copy keeps the files' owner and modes, which postgres checks.
      const [cmd, args] = run('cp', ['-a', template, join(dir, 'data')]);
      execFileSync(cmd, [...args], { stdio: 'ignore' });
    } else {
      initdb(bin, join(dir, 'data'));
    }
    const server = new PostgresServer(await freePort(), dir, bin);
    await server.start();
    return server;
  }

  get url() {
    return `postgres://postgres@127.0.0.1:${this.port}/postgres`;
  }

  /** Starts (or restarts, on the same port and data) and resolves once it accepts connections. */
  async start(): Promise<void> {
    const [cmd, args] = run(join(this.bin, 'postgres'), [
      '-D',
      join(this.dir, 'data'),
      '-p',
      String(this.port),
      '-k',
      this.dir,
      '-c',
      'listen_addresses=127.0.0.1',
      '-c',
      'fsync=off',
      '-c',
      'synchronous_commit=off',
      '-c',
      'full_page_writes=off',
    ]);
    const child = spawn(cmd, [...args], { stdio: ['ignore', 'ignore', 'pipe'] });
    this.#child = child;
    await new Promise<void>((resolve, reject) => {
      let output = '';
      const timer = setTimeout(() => {
        child.kill('SIGKILL');
        fail(new Error(`postgres did not start:\n${output}`));
      }, 30_000);
      const fail = (err: Error) => {
        clearTimeout(timer);
        reject(err);
      };
      const exited = (code: number | null) => fail(new Error(`postgres exited (${code}):\n${output}`));
      const read = (chunk: Buffer) => {
        output += chunk.toString();
        if (!output.includes('ready to accept connections')) return;
        clearTimeout(timer);
        child.off('exit', exited);
        child.stderr?.off('data', read);
        child.stderr?.resume();
        resolve();
      };
      child.once('error', fail);
      child.once('exit', exited);
      child.stderr?.on('data', read);
    });
  }

  /** Stops it, cutting every client off, and resolves once it is gone; the data stays for a restart. */
  async stop(): Promise<void> {
    const child = this.#child;
    this.#child = null;
    if (!child || child.exitCode !== null) return;
    // Signal postgres itself (runuser does not pass signals on). SIGINT is its fast shutdown: clients are cut
    // off at once, as in an outage, but what was committed is kept for a restart (the cluster runs without
    // fsync, so an immediate shutdown could lose it).
    const pid = this.#postmasterPid() ?? child.pid;
    const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
    if (pid) signal(pid, 'SIGINT');
    const deadline = Date.now() + 10_000;
    while (pid && alive(pid) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
    if (pid && alive(pid)) signal(pid, 'SIGKILL');
    await exited;
  }

  #postmasterPid(): number | undefined {
    try {
      const pid = Number(readFileSync(join(this.dir, 'data', 'postmaster.pid'), 'utf8').split('\n')[0]);
      return Number.isInteger(pid) && pid > 0 ? pid : undefined;
    } catch {
      return undefined;
    }
  }

  /** Stops it and removes its folder. */
  async destroy(): Promise<void> {
    await this.stop();
    rmSync(this.dir, { recursive: true, force: true });
  }
}
