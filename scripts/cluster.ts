import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import {
  Agent,
  createServer,
  type IncomingMessage,
  request,
  type Server,
  type ServerResponse,
} from 'node:http';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { readBffConfig } from '../src/bff/env.ts';
import { startBff } from '../src/bff/server.ts';
import { PostgresServer, postgresBin } from '../src/bff/test-support/postgres-process.ts';
import { freePort, hasRedisServer, spawnRedisServer } from '../src/bff/test-support/redis-process.ts';
import { DEMO_KEYS, readReferenceConfig, SALES_CONTACT, startReference } from '../src/reference/index.ts';
import { isCurrent } from './build-stamp.js';
import { runChaos } from './cluster/chaos.ts';
import { loadEnvFile } from './load-env.js';

/**
 * `npm run cluster`: the scaled-out shape on one machine. A redis-server (Debian's, loopback, no persistence,
 * on a free port) unless REDIS_URL is set; the reference service unless PROPERTY_API_URL is set; REPLICAS BFF
 * processes (default 2) on PORT+1, PORT+2, ... all on that Redis; and a small round-robin entry point on PORT,
 * standing in for a load balancer without sticky sessions. Ctrl-C or SIGTERM stops everything it started.
 *
 * Replicas are this same file with --replica. The cluster passes --demo-keys only when their upstream is the
 * reference it started itself, so the key screen offers the demo keys exactly when they work.
 *
 * `npm run cluster -- --chaos`: a replica killed mid-review. On the embedded reference without a rate limit
 * (REFERENCE_RATE_LIMIT, unless set), it signs in through the entry point with a demo key, uploads a review of
 * CHAOS_ROWS rows (default 20,000; each a different address), and once a third of them are answered kills one
 * replica with SIGKILL and starts it again on its port. When the review is done it reads PostgreSQL and checks
 * that every row was answered exactly once (one result, done, with an outcome) and every answer audited once
 * (one review_row entry per row), prints the figures (a `CHAOS {json}` line too) and exits 0, or 1 naming what
 * failed. REPLICAS defaults to 3 there, REVIEW_LEASE_S (how soon the dead replica's rows go to the others) to
 * 5, REFERENCE_RECORDS to 20,000, LOG_LEVEL to warn, CHAOS_TIMEOUT_S to 600. src/bff/cluster-chaos.test.ts runs it on 1,000 rows.
 */

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const self = fileURLToPath(import.meta.url);

/** Thrown when something finished starting after a stop began: it is stopped at once, and start-up ends. */
class Stopped extends Error {
  constructor(readonly cleanup: () => Promise<void>) {
    super('stopped during start-up');
  }
}

/** What the cluster started, stopped last first; something started after a stop began is stopped at once. */
class Started {
  private readonly cleanups: (() => Promise<void>)[] = [];
  stopping = false;

  track(cleanup: () => Promise<void>) {
    if (this.stopping) throw new Stopped(cleanup);
    this.cleanups.push(cleanup);
  }

  async stop(reason: string, code: number) {
    if (this.stopping) return;
    this.stopping = true;
    if (reason) console.log(reason);
    setTimeout(() => process.exit(1), 15_000).unref();
    while (this.cleanups.length > 0) await (this.cleanups.pop() as () => Promise<void>)().catch(() => {});
    process.exit(code);
  }
}

const chaos = process.argv.includes('--chaos');
// Replicas inherit the cluster's environment, .env included.
if (!process.argv.includes('--replica')) loadEnvFile();
if (chaos) {
  process.env.REPLICAS ||= '3';
  process.env.REVIEW_LEASE_S ||= '5';
  process.env.REFERENCE_RATE_LIMIT ||= '100000000/60';
  // Every row is an address the reference has no record of: the smallest dataset that is quick to build.
  process.env.REFERENCE_RECORDS ||= '20000';
  process.env.LOG_LEVEL ||= 'warn';
}
if (process.argv.includes('--replica')) await runReplica();
else await runCluster();

/** One BFF replica: the production server, told by the cluster whether the demo keys apply. */
async function runReplica() {
  try {
    const config = readBffConfig(process.env);
    if (!config.upstreamUrl) throw new Error('A replica needs PROPERTY_API_URL (the cluster sets it).');
    const demo = process.argv.includes('--demo-keys');
    const bff = await startBff(config, {
      upstreamUrl: config.upstreamUrl,
      auth: config.auth,
      demoKeys: demo ? [...DEMO_KEYS] : null,
      salesContact: config.salesContact ?? (demo ? SALES_CONTACT : null),
    });
    let stopping = false;
    const stop = () => {
      if (stopping) return;
      stopping = true;
      setTimeout(() => process.exit(1), 10_000).unref();
      void bff.close().then(() => process.exit(0));
    };
    process.once('SIGTERM', stop);
    // The cluster decides when replicas stop (Ctrl-C reaches the whole process group)...
    process.on('SIGINT', () => {});
    // ...and if the cluster itself dies, however abruptly, its channel closes and the replica stops too.
    process.once('disconnect', stop);
    process.send?.({ ready: bff.url }, (err: Error | null) => {
      if (err) stop();
    });
  } catch (err) {
    console.error((err as Error).message);
    process.exit(1);
  }
}

type EntryConfig = ReturnType<typeof readBffConfig>;

/** Where the replicas' Redis, PostgreSQL and upstream are, and whether the upstream is the embedded reference. */
interface Services {
  redisUrl: string;
  databaseUrl: string;
  upstreamUrl: string;
  auth: string;
  embedded: boolean;
}

async function runCluster() {
  const started = new Started();
  const stopping = 'stopping the entry point, the replicas, the reference service, Redis and PostgreSQL.';
  process.once('SIGINT', () => void started.stop(`SIGINT: ${stopping}`, 0));
  process.once('SIGTERM', () => void started.stop(`SIGTERM: ${stopping}`, 0));
  try {
    const replicaCount = readReplicas(process.env.REPLICAS);
    // Every replica must share it; generated for this run when not given (sessions then end with the cluster).
    const sessionSecret = process.env.SESSION_SECRET?.trim() || randomBytes(32).toString('base64url');
    // The replicas' configuration, checked once up front (every bad variable listed); PORT and HOST are the
    // entry point's.
    const entry = readBffConfig({ ...process.env, SESSION_SECRET: sessionSecret });
    if (entry.port === 0 || entry.port + replicaCount > 65535) {
      throw new Error(`PORT must leave room for ${replicaCount} replica ports after it, got ${entry.port}.`);
    }
    buildWebIfStale();
    const services = await startServices(entry, started);
    const ports = Array.from({ length: replicaCount }, (_, i) => entry.port + i + 1);
    const children = new Map<number, ChildProcess>();
    const start = async (port: number) => {
      const child = await startReplica(
        port,
        {
          ...process.env,
          HOST: '127.0.0.1',
          PORT: String(port),
          PROPERTY_API_URL: services.upstreamUrl,
          PROPERTY_API_AUTH: services.auth,
          REDIS_URL: services.redisUrl,
          SESSION_SECRET: sessionSecret,
          DATABASE_URL: services.databaseUrl,
        },
        services.embedded,
      );
      children.set(port, child);
      started.track(() => stopChild(child));
      child.on('exit', (code, signal) => {
        if (!started.stopping)
          console.error(`Replica on port ${port} exited (${signal ?? code}); the others carry on.`);
      });
    };
    // At once: each compiles and migrates on its own, and one machine's cores are shared anyway.
    await Promise.all(ports.map(start));
    const proxy = await startRoundRobin(entry.host, entry.port, ports);
    started.track(
      () =>
        new Promise<void>((done) => {
          proxy.close(() => done());
          proxy.closeAllConnections();
        }),
    );
    printBanner(entry, ports, services);
    if (chaos) {
      console.log(`Cluster up in ${(performance.now() / 1000).toFixed(1)} s.`);
      const host = entry.host === '0.0.0.0' ? '127.0.0.1' : entry.host;
      const ok = await runChaos(`http://${host}:${entry.port}`, services, {
        kill: (port) => children.get(port)?.kill('SIGKILL') ?? false,
        restart: start,
        ports,
      });
      await started.stop('', ok ? 0 : 1);
    }
  } catch (err) {
    if (err instanceof Stopped) return void (await err.cleanup().catch(() => {}));
    console.error((err as Error).message);
    await started.stop('', 1);
  }
}

/**
 * Redis, PostgreSQL and the upstream the replicas share: each started here (a throwaway one) unless its
 * variable points at one.
 */
async function startServices(entry: EntryConfig, started: Started): Promise<Services> {
  let redisUrl = entry.redisUrl;
  if (!redisUrl) {
    const redis = await startRedisServer();
    started.track(redis.stop);
    redisUrl = redis.url;
  }
  // Reviews (and the audit trail) in one PostgreSQL every replica shares: a throwaway cluster unless
  // DATABASE_URL is set (the embedded SQLite file serves one process only).
  let databaseUrl = entry.databaseUrl;
  if (!databaseUrl) {
    if (!postgresBin()) {
      throw new Error(
        'PostgreSQL was not found. Install it (Debian/Ubuntu: `apt-get install -y postgresql`) or point ' +
          'DATABASE_URL at a PostgreSQL.',
      );
    }
    const pg = await PostgresServer.start();
    started.track(() => pg.destroy());
    databaseUrl = pg.url;
  }
  if (entry.upstreamUrl !== undefined) {
    return {
      redisUrl,
      databaseUrl,
      upstreamUrl: entry.upstreamUrl,
      auth: process.env.PROPERTY_API_AUTH ?? '',
      embedded: false,
    };
  }
  const ref = await startReference(
    readReferenceConfig({ ...process.env, REFERENCE_PORT: '0', REFERENCE_HOST: '127.0.0.1' }),
  );
  started.track(ref.close);
  console.log(`Reference service: ${ref.records.toLocaleString('en-US')} properties on ${ref.url}`);
  const auth = entry.authExplicit ? (process.env.PROPERTY_API_AUTH ?? '') : ref.auth;
  return { redisUrl, databaseUrl, upstreamUrl: ref.url, auth, embedded: true };
}

function printBanner(entry: EntryConfig, ports: number[], services: Services) {
  const host = entry.host === '0.0.0.0' ? '127.0.0.1' : entry.host;
  console.log(`\nPropLens cluster is running at http://${host}:${entry.port}\n`);
  console.log(`  ${ports.length} replicas: ${ports.map((p) => `127.0.0.1:${p}`).join(', ')} (round robin)`);
  console.log(`  Redis: ${entry.redisUrl ? 'REDIS_URL' : services.redisUrl}`);
  console.log(`  PostgreSQL: ${entry.databaseUrl ? 'DATABASE_URL' : services.databaseUrl}`);
  if (services.embedded) {
    console.log('\nDemo API keys (reference service; they open demo data only):');
    for (const k of DEMO_KEYS) console.log(`  ${k.key.padEnd(22)} ${k.label}`);
  } else {
    console.log(`  Upstream: ${new URL(services.upstreamUrl).origin}`);
  }
  console.log('\nCtrl-C stops everything.\n');
}

function readReplicas(text: string | undefined): number {
  if (text === undefined || text.trim() === '') return 2;
  const n = Number(text);
  if (!Number.isInteger(n) || n < 1 || n > 32)
    throw new Error(`REPLICAS must be a whole number from 1 to 32, got "${text}"`);
  return n;
}

/** As `npm start` does: build the SPA when it is missing or older than its sources (SKIP_WEB_BUILD=1: don't). */
function buildWebIfStale() {
  const distDir = resolve(process.env.DIST_DIR || 'dist');
  if (process.env.SKIP_WEB_BUILD === '1' || isCurrent(root, 'web', distDir)) return;
  console.log('Building the web app (missing or older than its sources)...');
  const result = spawnSync(process.execPath, ['--import', 'tsx', join('scripts', 'build.ts'), 'web'], {
    cwd: root,
    stdio: 'inherit',
    env: { ...process.env, DIST_DIR: distDir },
  });
  if (result.status !== 0) throw new Error('The web build failed; see the output above.');
}

/** Debian's redis-server on loopback, a free port, nothing written to disk. */
async function startRedisServer(): Promise<{ url: string; stop: () => Promise<void> }> {
  if (!hasRedisServer()) {
    throw new Error(
      'redis-server was not found. Install it (Debian/Ubuntu: `apt-get install -y redis-server`) or point ' +
        'REDIS_URL at a Redis.',
    );
  }
  const port = await freePort();
  const child = await spawnRedisServer(port);
  return { url: `redis://127.0.0.1:${port}`, stop: () => stopChild(child) };
}

/** Starts one replica and resolves when it listens; rejects if it exits first (a bad variable, a busy port). */
function startReplica(port: number, env: NodeJS.ProcessEnv, demoKeys: boolean): Promise<ChildProcess> {
  const args = ['--import', 'tsx', self, '--replica', ...(demoKeys ? ['--demo-keys'] : [])];
  const child = spawn(process.execPath, args, {
    cwd: root,
    env,
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  return new Promise((ready, fail) => {
    child.once('exit', (code) =>
      fail(new Error(`The replica on port ${port} could not start (exit ${code}).`)),
    );
    // The channel stays open: if the cluster dies, the replica sees it close and stops.
    child.once('message', () => {
      child.removeAllListeners('exit');
      ready(child);
    });
  });
}

function stopChild(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((done) => {
    const kill = setTimeout(() => child.kill('SIGKILL'), 10_000);
    child.once('exit', () => {
      clearTimeout(kill);
      done();
    });
    child.kill('SIGTERM');
  });
}

/**
 * The entry point: each request to the next replica in turn, streamed both ways (review lookups stream their
 * answer). A replica that refuses the connection is skipped for requests without a body; otherwise 502.
 */
function startRoundRobin(host: string, port: number, replicaPorts: number[]): Promise<Server> {
  const agent = new Agent({ keepAlive: true, maxSockets: 256 });
  let next = 0;
  const forward = (req: IncomingMessage, res: ServerResponse, tried: number) => {
    const target = replicaPorts[next++ % replicaPorts.length] as number;
    const bodiless = req.method === 'GET' || req.method === 'HEAD';
    const upstream = request(
      { host: '127.0.0.1', port: target, method: req.method, path: req.url, headers: req.headers, agent },
      (answer) => {
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(res);
      },
    );
    upstream.on('error', (err: NodeJS.ErrnoException) => {
      if (res.headersSent) return void res.destroy();
      if (bodiless && err.code === 'ECONNREFUSED' && tried + 1 < replicaPorts.length) {
        return forward(req, res, tried + 1);
      }
      res.writeHead(502, { 'content-type': 'application/json', 'cache-control': 'no-store' });
      res.end(
        JSON.stringify({
          error: {
            code: 'upstream_unavailable',
            message: 'No PropLens replica answered. Try again shortly.',
          },
        }),
      );
    });
    res.once('close', () => {
      if (!res.writableFinished) upstream.destroy();
    });
    if (bodiless) upstream.end();
    else req.pipe(upstream);
  };
  const server = createServer((req, res) => forward(req, res, 0));
  return new Promise((ready, fail) => {
    server.once('error', fail);
    server.listen(port, host, () => ready(server));
  });
}
