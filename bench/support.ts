/** What every section of `npm run bench` shares: printing a row, starting servers, reading their CPU. */
import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';

/** The demo key every section signs in with (enterprise: the highest reference rate limit). */
export const KEY = 'pi_demo_enterprise';

/** The run's settings and its scratch folder (the built dataset), as every section reads them. */
export interface BenchContext {
  /** Scratch folder: the reference dataset is built here once, shared by every section. */
  dir: string;
  records: number;
  seed: number;
  /** Seconds per load phase. */
  seconds: number;
  connections: number;
  nginxWorkers: number;
  /** Interleaved rounds per target in the proxy comparison. */
  rounds: number;
}

/** The reference service's settings for this run's dataset. */
export const referenceEnv = (ctx: BenchContext) => ({
  REFERENCE_DATA_DIR: ctx.dir,
  REFERENCE_RECORDS: String(ctx.records),
  REFERENCE_SEED: String(ctx.seed),
});

const children: ChildProcess[] = [];
/** Other things to stop with the servers (nginx). */
export const stops: (() => void)[] = [];
export const stopAll = () => {
  for (const c of children.splice(0)) c.kill('SIGTERM');
  for (const stop of stops.splice(0)) stop();
};

export const fmt = (n: number, digits = 2) => n.toFixed(digits);
export const verdict = (ok: boolean) => (ok ? 'meets target' : 'MISSES target');
export const row = (label: string, value: string, target = '', note = '') =>
  console.log(`  ${label.padEnd(44)} ${value.padStart(14)}  ${target.padEnd(16)} ${note}`);

// biome-ignore lint/suspicious/noExplicitAny: the child's JSON report, read field by field below
export function child(args: string[], env: Record<string, string> = {}): Record<string, any> {
  const out = execFileSync(process.execPath, ['--import', 'tsx', ...args], {
    env: { ...process.env, ...env },
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'inherit'],
    maxBuffer: 10_000_000,
  });
  return JSON.parse(out.trim().split('\n').pop() as string);
}

/** Everything each server printed, by URL, so a section can count log lines (e.g. upstream 429s). */
export const output = new Map<string, () => string>();
/** Each server's process id, by URL, to read the CPU it spent. */
export const pidOf = new Map<string, number>();

/** CPU milliseconds a process has used so far (Linux /proc; null elsewhere). */
export function cpuMs(pid: number | undefined): number | null {
  if (pid === undefined) return null;
  try {
    const fields = (readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1] ?? '').split(' ');
    return (Number(fields[11]) + Number(fields[12])) * 10; // utime + stime, in 10 ms ticks
  } catch {
    return null;
  }
}

/** A figure of the process's /proc status in MB (VmRSS now, VmHWM its peak); null where there is none. */
export function statusMb(pid: number | undefined, field: 'VmRSS' | 'VmHWM'): number | null {
  if (pid === undefined) return null;
  try {
    const m = new RegExp(`${field}:\\s+(\\d+) kB`).exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return m ? Number(m[1]) / 1024 : null;
  } catch {
    return null;
  }
}

/**
 * The reference run on its own with no rate limit (its demo keys are then ordinary keys to the BFF), and the
 * compiled BFF in front of it with `env` (its database folder, cache sizes); the BFF's URL.
 */
export async function startUnlimitedReferenceAndBff(
  ctx: BenchContext,
  env: Record<string, string>,
): Promise<string> {
  const refUrl = await startServer(
    'src/reference/main.ts',
    { ...referenceEnv(ctx), REFERENCE_PORT: '0', REFERENCE_RATE_LIMIT: '100000000/60', LOG_LEVEL: 'warn' },
    /on (http:\/\/[\d.:]+)/,
  );
  return startServer(
    'scripts/start.js',
    { PROPERTY_API_URL: refUrl, PORT: '0', SALES_CONTACT: 'sales@example.test', LOG_LEVEL: 'warn', ...env },
    /running at (http:\/\/[\d.:]+)/,
  );
}

/** Starts a server process and resolves with the first URL it prints matching `pattern`. */
export function startServer(
  script: string,
  env: Record<string, string>,
  pattern: RegExp,
  args: string[] = [],
): Promise<string> {
  return new Promise((resolve, reject) => {
    const p = spawn(
      process.execPath,
      [
        ...(process.env.BENCH_NODE_ARGS?.split(' ').filter(Boolean) ?? []),
        ...(script.endsWith('.ts') ? ['--import', 'tsx'] : []),
        script,
        ...args,
      ],
      {
        env: { ...process.env, LOG_LEVEL: process.env.BENCH_LOG_LEVEL ?? 'info', ...env },
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    );
    children.push(p);
    // Buffers kept as they come (the load generator shares the cores: no string building per chunk), and the
    // start-up line looked for only until it is found.
    const chunks: Buffer[] = [];
    const seen = () => Buffer.concat(chunks).toString();
    let started = false;
    const onData = (d: Buffer) => {
      chunks.push(d);
      if (started) return;
      const m = pattern.exec(seen());
      if (m) {
        started = true;
        output.set(m[1] as string, seen);
        if (p.pid !== undefined) pidOf.set(m[1] as string, p.pid);
        resolve(m[1] as string);
      }
    };
    p.stdout?.on('data', onData);
    p.stderr?.on('data', (d: Buffer) => chunks.push(d));
    p.once('exit', (code) => reject(new Error(`${script} exited (${code}): ${seen().slice(-2000)}`)));
    setTimeout(() => reject(new Error(`${script} did not start: ${seen().slice(-2000)}`)), 180_000).unref();
  });
}

export async function signIn(bffUrl: string): Promise<string> {
  const res = await fetch(`${bffUrl}/api/session`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', 'X-Requested-With': 'proplens' },
    body: JSON.stringify({ apiKey: KEY }),
  });
  if (res.status !== 200) throw new Error(`sign-in failed: ${res.status}`);
  return (res.headers.get('set-cookie') ?? '').split(';')[0] as string;
}

/** Stops one server started by startServer (by its URL) and waits for its process to end (its files closed). */
export async function stopServer(url: string): Promise<void> {
  const pid = pidOf.get(url);
  const i = children.findIndex((c) => c.pid === pid);
  if (i < 0) return;
  const [p] = children.splice(i, 1) as [ChildProcess];
  if (p.exitCode !== null || p.signalCode !== null) return;
  const exited = new Promise((resolve) => p.once('exit', resolve));
  p.kill('SIGTERM');
  await exited;
}

/** A signed-in session's cookie and what the sign-in answered (the account's id). */
export async function signInAs(
  bffUrl: string,
  apiKey: string,
): Promise<{ cookie: string; accountId: string }> {
  const res = await fetch(`${bffUrl}/api/session`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', 'X-Requested-With': 'proplens' },
    body: JSON.stringify({ apiKey }),
  });
  if (res.status !== 200) throw new Error(`sign-in failed: ${res.status}`);
  const { accountId } = (await res.json()) as { accountId: string };
  return { cookie: (res.headers.get('set-cookie') ?? '').split(';')[0] as string, accountId };
}
