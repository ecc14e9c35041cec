import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { ResolveResponse, SearchResponse, SessionResponse } from '../contract/index.ts';
import { AccountDirectory } from '../reference/accounts.ts';
import { createReferenceApp } from '../reference/app.ts';
import type { RateRule } from '../reference/rate-limiter.ts';
import { openTestStore } from '../reference/test-support.ts';
import { createLogger } from './logger.ts';
import { createStores, type Stores } from './stores/create-stores.ts';
import { createHarness } from './test-support/harness.ts';
import type { UpstreamHandler } from './test-support/in-process-upstream.ts';
import { RedisServer, redisServerAvailable } from './test-support/test-redis.ts';

/*
 * Two BFF replicas, in-process, sharing one real redis-server and one reference service, with one browser
 * (one cookie) talking to either: what a load balancer without sticky sessions does.
 */

const API_KEY = 'pi_demo_professional';
const SESSION_SECRET = 'replica-test-session-secret-0123456789';
const { store, db } = await openTestStore();

interface Upstream {
  fetch: UpstreamHandler;
  requests: URL[];
  statuses: number[];
}

function referenceUpstream(rateLimit?: RateRule): Upstream {
  const reference = createReferenceApp({
    store,
    rateLimit,
    accounts: new AccountDirectory(),
    cursorSecret: 'reference-test-secret',
  });
  const requests: URL[] = [];
  const statuses: number[] = [];
  const counted: UpstreamHandler = async (request) => {
    requests.push(new URL(request.url));
    const res = await reference.fetch(request);
    statuses.push(res.status);
    return res;
  };
  return { fetch: counted, requests, statuses };
}

function replica(redisUrl: string, upstream: Upstream) {
  const logger = createLogger('silent');
  const stores: Stores = createStores(
    {
      redisUrl,
      sessionSecret: SESSION_SECRET,
      cursorSecret: undefined,
      sessionIdleMs: 30 * 60_000,
      sessionAbsoluteMs: 12 * 3_600_000,
      sessionMaxCount: 1000,
      cacheTtlMs: 300_000,
      cacheMaxBytes: 32 * 1024 * 1024,
      cacheMaxEntries: 10_000,
      cacheAccountShare: 0.5,
      timeoutMs: 5000,
    },
    logger,
  );
  const { app } = createHarness({
    fetch: upstream.fetch,
    stores,
    logLevel: 'silent',
    upstream: { maxRateLimitWaitMs: 30_000 },
  });
  return { app, stores };
}

/** One browser: one cookie, whichever replica the load balancer picks. */
function browser() {
  let cookie = '';
  const call = async (
    target: ReturnType<typeof replica>,
    path: string,
    init: { method?: string; body?: unknown } = {},
  ) => {
    const headers = new Headers({ 'X-Requested-With': 'proplens' });
    if (init.body !== undefined) headers.set('Content-Type', 'application/json');
    if (cookie) headers.set('Cookie', cookie);
    const res = await target.app.request(path, {
      method: init.method ?? 'GET',
      headers,
      body: init.body === undefined ? undefined : JSON.stringify(init.body),
    });
    const set = res.headers.get('set-cookie');
    if (set) cookie = /Max-Age=0/i.test(set) ? '' : (set.split(';')[0] as string);
    return res;
  };
  return {
    get cookie() {
      return cookie;
    },
    set cookie(value: string) {
      cookie = value;
    },
    call,
    signIn: (target: ReturnType<typeof replica>) =>
      call(target, '/api/session', { method: 'POST', body: { apiKey: API_KEY } }),
    resolve: (target: ReturnType<typeof replica>, address: string) =>
      call(target, `/api/properties/resolve?address=${encodeURIComponent(address)}`),
  };
}

/** Everything Redis holds, names and values, as text. */
async function dumpRedis(stores: Stores): Promise<string> {
  const r = stores.redis?.client;
  if (!r) throw new Error('not on Redis');
  const out: string[] = [];
  let cursor = '0';
  do {
    const [next, names] = await r.scan(cursor, 'COUNT', 1000);
    cursor = next;
    for (const name of names) {
      out.push(name);
      const type = await r.type(name);
      if (type === 'string') out.push((await r.get(name)) ?? '');
      else if (type === 'hash') out.push(JSON.stringify(await r.hgetall(name)));
      else if (type === 'zset') out.push((await r.zrange(name, '0', '-1', 'WITHSCORES')).join(' '));
      else out.push(`<${type}>`);
    }
  } while (cursor !== '0');
  return out.join('\n');
}

describe.skipIf(!redisServerAvailable())('several replicas on one Redis', () => {
  let server: RedisServer;
  const started: ReturnType<typeof replica>[] = [];
  const pair = (upstream: Upstream) => {
    const a = replica(server.url, upstream);
    const b = replica(server.url, upstream);
    started.push(a, b);
    return [a, b] as const;
  };
  const ready = (...replicas: ReturnType<typeof replica>[]) =>
    Promise.all(replicas.map((r) => r.stores.redis?.waitUntilReady()));

  beforeAll(async () => {
    server = await RedisServer.start();
  });
  afterAll(async () => {
    await Promise.all(started.map((r) => r.stores.close()));
    await server?.stop();
  });
  beforeEach(async () => {
    const [a] = pair(referenceUpstream());
    await ready(a);
    await a.stores.redis?.client.flushall();
  });

  it('a session made on one replica works on the other, and signing out on one ends it on both', async () => {
    const [a, b] = pair(referenceUpstream());
    await ready(a, b);
    const user = browser();
    expect((await user.signIn(a)).status).toBe(200);
    const res = await user.call(b, '/api/session');
    expect(res.status).toBe(200);
    expect(SessionResponse.parse(await res.json()).account).toEqual({
      name: 'Harbor & Vale Realty',
      plan: 'professional',
    });
    const other = browser();
    expect((await other.signIn(b)).status).toBe(200);
    const cookie = user.cookie;
    expect((await user.call(a, '/api/session', { method: 'DELETE' })).status).toBe(204);
    // Replay the signed-out cookie against the other replica: that session is over everywhere.
    user.cookie = cookie;
    expect((await user.call(b, '/api/session')).status).toBe(401);
    // Another browser's session is untouched.
    expect((await other.call(a, '/api/session')).status).toBe(200);
  });

  it('a record resolved on one replica is a cache hit on the other: no upstream call, budget unchanged', async () => {
    const upstream = referenceUpstream();
    const [a, b] = pair(upstream);
    await ready(a, b);
    const user = browser();
    await user.signIn(a);
    const first = ResolveResponse.parse(
      await (await user.resolve(a, '1100 Congress Ave, Austin, TX')).json(),
    );
    const calls = upstream.requests.length;
    const res = await user.resolve(b, '1100 CONGRESS AVE ,  AUSTIN, TX');
    expect(res.status).toBe(200);
    const second = ResolveResponse.parse(await res.json());
    expect(second.property).toEqual(first.property);
    expect(upstream.requests.length).toBe(calls);
    expect(second.rateLimit?.remaining).toBe(first.rateLimit?.remaining);
  });

  it('pages a search on another replica: the cursor secret is shared', async () => {
    const [a, b] = pair(referenceUpstream());
    await ready(a, b);
    const user = browser();
    await user.signIn(a);
    const first = SearchResponse.parse(await (await user.call(a, '/api/properties/search?q=main')).json());
    expect(first.nextCursor).toEqual(expect.any(String));
    const res = await user.call(
      b,
      `/api/properties/search?q=main&cursor=${encodeURIComponent(first.nextCursor ?? '')}`,
    );
    expect(res.status).toBe(200);
    const second = SearchResponse.parse(await res.json());
    expect(second.items[0]?.id).not.toBe(first.items[0]?.id);
  });

  it('keeps nothing in Redis readable as the API key', async () => {
    const [a, b] = pair(referenceUpstream());
    await ready(a, b);
    const user = browser();
    await user.signIn(a);
    await user.resolve(b, '1100 Congress Ave, Austin, TX');
    const dump = await dumpRedis(a.stores);
    expect(dump).toContain('proplens:v1:session:');
    const encodings = [
      API_KEY,
      Buffer.from(API_KEY).toString('base64'),
      Buffer.from(API_KEY).toString('base64url'),
      Buffer.from(API_KEY).toString('hex'),
    ];
    for (const encoded of encodings) expect(dump).not.toContain(encoded);
    for (const name of dump.split('\n').filter((line) => line.startsWith('proplens'))) {
      expect(name).toMatch(/^proplens:v1:[a-z-]+(:|$)/);
    }
  });

  it('two replicas share one rate budget: 90 resolves under 30 per 3 s all succeed with no upstream 429', async () => {
    const upstream = referenceUpstream({ requests: 30, seconds: 3 });
    const [a, b] = pair(upstream);
    await ready(a, b);
    const user = browser();
    expect((await user.signIn(a)).status).toBe(200);
    const addresses = (
      db.prepare('SELECT address FROM property WHERE unit IS NULL ORDER BY rid LIMIT 90').all() as {
        address: string;
      }[]
    ).map((row) => row.address);
    expect(new Set(addresses).size).toBe(90);
    const started = Date.now();
    const answers = await Promise.all(addresses.map((address, i) => user.resolve(i % 2 ? a : b, address)));
    expect(answers.map((res) => res.status)).toEqual(addresses.map(() => 200));
    expect(upstream.statuses.filter((s) => s === 429)).toEqual([]);
    expect(upstream.requests.length).toBe(91);
    // Three windows' worth: it had to wait for two resets, and did not wait needlessly long for them.
    expect(Date.now() - started).toBeGreaterThan(5500);
    expect(Date.now() - started).toBeLessThan(20_000);
  }, 30_000);

  it('with Redis stopped: 503 store_unavailable within 2 s and /readyz 503; when it is back, service resumes', async () => {
    const [a, b] = pair(referenceUpstream());
    await ready(a, b);
    const user = browser();
    await user.signIn(a);
    expect((await a.app.request('/readyz')).status).toBe(200);
    await server.stop();
    try {
      for (const target of [a, b]) {
        const t0 = Date.now();
        const res = await user.resolve(target, '1100 Congress Ave, Austin, TX');
        expect(res.status).toBe(503);
        expect(((await res.json()) as { error: { code: string } }).error.code).toBe('store_unavailable');
        expect(res.headers.get('retry-after')).toBe('1');
        const readyz = await target.app.request('/readyz');
        expect(readyz.status).toBe(503);
        expect(await readyz.json()).toEqual({ status: 'store unreachable' });
        expect(Date.now() - t0).toBeLessThan(2000);
      }
      // Signing in needs the store too, and fails as fast; healthz (the process) is fine throughout.
      expect((await user.signIn(b)).status).toBe(503);
      expect((await b.app.request('/healthz')).status).toBe(200);
    } finally {
      await server.start();
    }
    await ready(a, b);
    expect((await a.app.request('/readyz')).status).toBe(200);
    expect((await b.app.request('/readyz')).status).toBe(200);
    // A Redis without persistence restarts empty: the session is gone, so the user signs in again.
    expect((await user.call(a, '/api/session')).status).toBe(401);
    expect((await user.signIn(b)).status).toBe(200);
    expect((await user.resolve(a, '1100 Congress Ave, Austin, TX')).status).toBe(200);
  });

  it('with Redis hung (connected, silent): 503 within 2 s rather than a hang, and service resumes', async () => {
    const [a] = pair(referenceUpstream());
    await ready(a);
    const user = browser();
    await user.signIn(a);
    server.pause();
    try {
      let t0 = Date.now();
      const res = await user.resolve(a, '1100 Congress Ave, Austin, TX');
      expect(res.status).toBe(503);
      expect(((await res.json()) as { error: { code: string } }).error.code).toBe('store_unavailable');
      expect(Date.now() - t0).toBeLessThan(2000);
      t0 = Date.now();
      expect((await a.app.request('/readyz')).status).toBe(503);
      expect(Date.now() - t0).toBeLessThan(2000);
    } finally {
      server.resume();
    }
    expect((await a.app.request('/readyz')).status).toBe(200);
    expect((await user.resolve(a, '1100 Congress Ave, Austin, TX')).status).toBe(200);
  });
});
