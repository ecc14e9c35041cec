import type { DemoKey } from '../../contract/index.ts';
import { AccountDirectory } from '../../reference/accounts.ts';
import { createReferenceApp } from '../../reference/app.ts';
import { authSettingFor, DEFAULT_DIALECT, type Dialect } from '../../reference/dialect.ts';
import { parseFaults } from '../../reference/faults.ts';
import type { RateRule } from '../../reference/rate-limiter.ts';
import { openTestStore } from '../../reference/test-support.ts';
import type { CancelSignal } from '../cancel.ts';
import type { Database } from '../db/database.ts';
import { type BffConfig, parseAuthPlacement, readBffConfig } from '../env.ts';
import { buildBffGraph } from '../graph.ts';
import { createLogger } from '../logger.ts';
import type { BffMetrics } from '../metrics.ts';
import { createStores, type Stores } from '../stores/create-stores.ts';
import type { AuthPlacement, UpstreamConfig } from '../upstream/client.ts';
import { createPoolTransport } from '../upstream/transport.ts';
import { inProcessDispatcher, type UpstreamHandler } from './in-process-upstream.ts';

export const PRO_KEY = 'pi_demo_professional';
/** The upstream's URL as the BFF sees it; requests never leave the process. */
const UPSTREAM_URL = 'http://reference.test';

// Built once per machine (temp folder), opened once per test file.
const { store } = await openTestStore();

export function authFor(dialect: Dialect): AuthPlacement {
  return parseAuthPlacement(authSettingFor(dialect));
}

/**
 * A stand-in provider for shapes and timings the reference never produces: it accepts any key at
 * /auth/me and answers every other call with whatever `answer` returns (or throws), as JSON.
 */
export function fakeUpstream(
  answer: (url: URL, signal: AbortSignal) => unknown,
  headers: Record<string, string> = {},
): UpstreamHandler {
  return async (request) => {
    const url = new URL(request.url);
    const body = url.pathname.endsWith('/auth/me')
      ? { account: { name: 'Fake Co', plan: 'enterprise' } }
      : await answer(url, request.signal);
    return new Response(JSON.stringify(body), {
      headers: { 'content-type': 'application/json', ...headers },
    });
  };
}

export interface HarnessOptions {
  dialect?: Dialect;
  faults?: string;
  rateLimit?: RateRule;
  upstream?: Partial<UpstreamConfig>;
  /** Replaces the reference service: a stub upstream for shapes and failures the reference never sends. */
  fetch?: UpstreamHandler;
  cacheTtlMs?: number;
  /** Backoff and rate-limit waits; default: real (fake-timer driven) setTimeout. */
  sleep?: (ms: number, signal?: CancelSignal) => Promise<void>;
  accounts?: AccountDirectory;
  /** A built SPA to serve. */
  distDir?: string;
  /** Behind a TLS-terminating proxy: trust X-Forwarded-Proto. */
  trustProxy?: boolean;
  /** Reviews kept on the server, on this database; the test starts and stops `reviews.worker`. */
  database?: Database;
  /** The review worker's lease (ms): a replica's rows go to another this long after it dies. */
  leaseMs?: number;
  /** How often a review's event stream polls the database for news nobody announced (default 1 s). */
  eventPollMs?: number;
  /** REVIEW_MAX_PENDING_ROWS (default 500,000). */
  reviewMaxPendingRows?: number;
  /** EVIDENCE_ROWS_AT_ONCE (default 200,000). */
  evidenceRowsAtOnce?: number;
  /** REVIEW_CONCURRENCY: rows the worker asks at once (1: one after another, so no two share one request). */
  reviewConcurrency?: number;
  /** Prometheus metrics, as server.ts counts them; with `metricsToken` /metrics answers. */
  metrics?: BffMetrics;
  metricsToken?: string;
  /** Sessions, cache and budget: default in memory; replicas pass Redis-backed stores. */
  stores?: Stores;
  logLevel?: BffConfig['logLevel'];
  /** The embedded reference's demo keys, as `npm start` offers them. Default: none. */
  demoKeys?: DemoKey[];
  /** KEY_ENCRYPTION_SECRET (key custody); default: none (generated beside an embedded database). */
  keyEncryptionSecret?: string;
}

/** The configuration a test BFF runs with: the production defaults, quick to time out, API only. */
function testConfig(options: HarnessOptions): BffConfig {
  const { auth: _auth, baseUrl: _baseUrl, salesContact: _sales, ...upstream } = options.upstream ?? {};
  return {
    ...readBffConfig({}),
    timeoutMs: 5000,
    retries: 2,
    maxRateLimitWaitMs: 20_000,
    cacheTtlMs: options.cacheTtlMs ?? 300_000,
    sessionMaxCount: 100,
    trustProxy: options.trustProxy ?? false,
    cursorSecret: 'bff-test-secret-bff-test-secret-0000',
    distDir: options.distDir ?? '',
    metricsToken: options.metricsToken,
    ...(options.reviewMaxPendingRows ? { reviewMaxPendingRows: options.reviewMaxPendingRows } : {}),
    ...(options.reviewConcurrency ? { reviewConcurrency: options.reviewConcurrency } : {}),
    ...(options.evidenceRowsAtOnce ? { evidenceRowsAtOnce: options.evidenceRowsAtOnce } : {}),
    ...(options.keyEncryptionSecret ? { keyEncryptionSecret: options.keyEncryptionSecret } : {}),
    ...upstream,
  };
}

/**
 * The BFF built by the production wiring (graph.ts) and transport, wired in-process to the real reference
 * service (or a given stub), with a cookie jar and a log capture: tests talk to it the way the browser does.
 */
export function createHarness(options: HarnessOptions = {}) {
  const dialect = options.dialect ?? DEFAULT_DIALECT;
  const accounts = options.accounts ?? new AccountDirectory();
  const reference = createReferenceApp({
    store,
    dialect,
    faults: parseFaults(options.faults),
    rateLimit: options.rateLimit,
    accounts,
    cursorSecret: 'reference-test-secret',
    sleep: async () => {},
  });
  const upstreamRequests: URL[] = [];
  const upstreamHeaders: Headers[] = [];
  /** Status of each upstream answer, in order: tests count the 429s the upstream had to send. */
  const upstreamStatuses: number[] = [];
  const answer: UpstreamHandler = options.fetch ?? reference.fetch;
  const recorded: UpstreamHandler = async (request) => {
    upstreamRequests.push(new URL(request.url));
    upstreamHeaders.push(new Headers(request.headers));
    const res = await answer(request);
    upstreamStatuses.push(res.status);
    return res;
  };
  const logs: string[] = [];
  const logger = createLogger(options.logLevel ?? 'info', { write: (line: string) => void logs.push(line) });
  const config = testConfig(options);
  const stores = options.stores ?? createStores(config, logger);
  const url = options.upstream?.baseUrl ?? UPSTREAM_URL;
  const graph = buildBffGraph({
    config,
    upstream: { url, auth: options.upstream?.auth ?? authFor(dialect) },
    demoKeys: options.demoKeys ?? null,
    salesContact: options.upstream?.salesContact ?? 'sales@property-intelligence.example',
    logger,
    stores,
    ...(options.database ? { database: options.database } : {}),
    transport: createPoolTransport(url, { dispatcher: inProcessDispatcher(recorded) }),
    ...(options.metrics ? { metrics: options.metrics } : {}),
    tuning: {
      random: () => 0.5,
      reviewPollMs: 20,
      ...(options.sleep ? { sleep: options.sleep } : {}),
      ...(options.leaseMs ? { reviewLeaseMs: options.leaseMs } : {}),
      ...(options.eventPollMs ? { eventPollMs: options.eventPollMs } : {}),
    },
  });
  const { app, upstream, scheduler, reviews, auditTrail } = graph;
  const { budget, sessions } = stores;

  let cookie = '';
  const call = async (
    path: string,
    init: {
      method?: string;
      body?: unknown;
      headers?: Record<string, string>;
      signal?: AbortSignal;
      raw?: string;
    } = {},
  ) => {
    const headers = new Headers({ 'X-Requested-With': 'proplens', ...init.headers });
    if (init.body !== undefined && !headers.has('content-type'))
      headers.set('Content-Type', 'application/json');
    if (cookie && !headers.has('cookie')) headers.set('Cookie', cookie);
    const res = await app.request(path, {
      method: init.method ?? 'GET',
      headers,
      body: init.raw ?? (init.body === undefined ? undefined : JSON.stringify(init.body)),
      signal: init.signal,
    });
    const set = res.headers.get('set-cookie');
    if (set) cookie = /Max-Age=0/i.test(set) ? '' : (set.split(';')[0] as string);
    return res;
  };
  const signIn = async (apiKey = PRO_KEY) => call('/api/session', { method: 'POST', body: { apiKey } });
  const resolve = async (address: string) =>
    call(`/api/properties/resolve?address=${encodeURIComponent(address)}`);

  return {
    app,
    reference,
    accounts,
    call,
    signIn,
    resolve,
    logs,
    upstreamRequests,
    upstreamHeaders,
    upstreamStatuses,
    budget,
    scheduler,
    upstream,
    sessions,
    stores,
    graph,
    reviews,
    auditTrail,
    get cookie() {
      return cookie;
    },
    set cookie(v: string) {
      cookie = v;
    },
  };
}
