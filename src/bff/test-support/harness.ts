import type { Hono } from 'hono';
import { AccountDirectory } from '../../reference/accounts.ts';
import { createInProcessFetch, createReferenceApp } from '../../reference/app.ts';
import { DEFAULT_DIALECT, type Dialect } from '../../reference/dialect.ts';
import { parseFaults } from '../../reference/faults.ts';
import type { RateRule } from '../../reference/rate-limiter.ts';
import { openTestStore } from '../../reference/test-support.ts';
import { type CachedResult, createBffApp } from '../app.ts';
import { createAuditTrail } from '../audit/audit-trail.ts';
import type { CancelSignal } from '../cancel.ts';
import type { Database } from '../db/database.ts';
import { createLogger } from '../logger.ts';
import { Lookups } from '../lookups.ts';
import { createDurableReviews, type DurableReviews } from '../reviews/durable-reviews.ts';
import { MemoryBudgetStore } from '../stores/budget/memory.ts';
import { MemoryCache } from '../stores/cache/memory.ts';
import { MemorySessionStore } from '../stores/sessions/memory.ts';
import { type AuthPlacement, UpstreamClient, type UpstreamConfig } from '../upstream/client.ts';
import { UpstreamScheduler } from '../upstream/scheduler.ts';

export const PRO_KEY = 'pi_demo_professional';

// Built once per machine (temp folder), opened once per test file.
const { store } = await openTestStore();

export function authFor(dialect: Dialect): AuthPlacement {
  if (dialect.auth === 'header') return { kind: 'header', name: 'X-API-Key' };
  if (dialect.auth === 'query') return { kind: 'query', name: 'api_key' };
  return { kind: 'bearer' };
}

/**
 * A stand-in provider for shapes and timings the reference never produces: it accepts any key at
 * /auth/me and answers every other call with whatever `answer` returns (or throws), as JSON.
 */
export function fakeUpstream(
  answer: (url: URL, signal?: AbortSignal) => unknown,
  headers: Record<string, string> = {},
): typeof fetch {
  return (async (input: string | URL | Request, init?: RequestInit) => {
    const url = new URL(input instanceof Request ? input.url : input);
    const body = url.pathname.endsWith('/auth/me')
      ? { account: { name: 'Fake Co', plan: 'enterprise' } }
      : await answer(url, init?.signal ?? undefined);
    return new Response(JSON.stringify(body), {
      headers: { 'content-type': 'application/json', ...headers },
    });
  }) as typeof fetch;
}

export interface HarnessOptions {
  dialect?: Dialect;
  faults?: string;
  rateLimit?: RateRule;
  upstream?: Partial<UpstreamConfig>;
  /** Replaces the reference service: a fake upstream for shapes the reference never sends. */
  fetch?: typeof fetch;
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
  /** With `database`: the audit trail's buffer (entries), to test a full one. */
  auditBuffer?: number;
}

/**
 * The BFF wired in-process to the real reference service (or a given fake), with a cookie jar and a log
 * capture: tests talk to it the way the browser does.
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
  const baseFetch = options.fetch ?? createInProcessFetch(reference);
  const fetchUpstream = (async (input: string | URL | Request, init?: RequestInit) => {
    upstreamRequests.push(new URL(input instanceof Request ? input.url : input));
    upstreamHeaders.push(new Headers(init?.headers));
    const res = await baseFetch(input, init);
    upstreamStatuses.push(res.status);
    return res;
  }) as typeof fetch;
  const logs: string[] = [];
  const logger = createLogger('info', { write: (line: string) => void logs.push(line) });
  const budget = new MemoryBudgetStore();
  const scheduler = new UpstreamScheduler(budget);
  const upstream = new UpstreamClient(
    {
      baseUrl: 'http://reference.test',
      auth: authFor(dialect),
      idField: undefined,
      resolvePath: '/properties/resolve',
      searchPath: '/properties/search',
      timeoutMs: 5000,
      retries: 2,
      maxRateLimitWaitMs: 20_000,
      salesContact: 'sales@property-intelligence.example',
      ...options.upstream,
    },
    {
      fetch: fetchUpstream,
      budget,
      scheduler,
      logger,
      random: () => 0.5,
      ...(options.sleep ? { sleep: options.sleep } : {}),
    },
  );
  const sessions = new MemorySessionStore({
    idleMs: 30 * 60_000,
    absoluteMs: 12 * 3_600_000,
    maxSessions: 100,
  });
  const cache = new MemoryCache<CachedResult>({
    ttlMs: options.cacheTtlMs ?? 300_000,
    maxBytes: 32 * 1024 * 1024,
    maxEntries: 1000,
    accountShare: 0.5,
  });
  const auditTrail = options.database
    ? createAuditTrail({
        database: options.database,
        logger,
        retentionDays: 365,
        flushMs: 20,
        ...(options.auditBuffer ? { maxBuffer: options.auditBuffer } : {}),
      })
    : undefined;
  const lookups = new Lookups({
    upstream,
    cache,
    sessions,
    ...(auditTrail ? { audit: auditTrail.audit } : {}),
  });
  const reviews: DurableReviews | undefined = options.database
    ? createDurableReviews({
        database: options.database,
        lookups,
        sessions,
        logger,
        pollMs: 20,
        ...(options.leaseMs ? { leaseMs: options.leaseMs } : {}),
      })
    : undefined;
  const app: Hono = createBffApp({
    upstream,
    lookups,
    ...(reviews ? { reviews } : {}),
    ...(auditTrail ? { auditTrail } : {}),
    sessions,
    cache,
    logger,
    demoKeys: null,
    salesContact: null,
    sessionAbsoluteMs: 12 * 3_600_000,
    trustProxy: options.trustProxy ?? false,
    cursorSecret: 'bff-test-secret-bff-test-secret-0000',
    distDir: options.distDir,
  }) as unknown as Hono;

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
