import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, describe, expect, it, vi } from 'vitest';
import type { RateRule } from '../../reference/rate-limiter.ts';
import { type Database, openDatabase } from '../db/database.ts';
import { readBffConfig } from '../env.ts';
import { BffMetrics } from '../metrics.ts';
import { startBff } from '../server.ts';
import { createHarness } from '../test-support/harness.ts';
import { createMetricsApp } from './metrics.ts';

const KEY = 'pi_demo_professional';
const TOKEN = 'metrics-token-for-tests-0123456789abcdef';

// A built SPA, so an unguarded /metrics would be answered by the SPA's fallback with a 200.
const dist = mkdtempSync(join(tmpdir(), 'proplens-metrics-'));
writeFileSync(join(dist, 'index.html'), '<!doctype html><title>PropLens</title>');
afterAll(() => rmSync(dist, { recursive: true, force: true }));

/** The BFF as the graph wires it (metrics hooks included) over the in-process reference. */
function bff(options: { token?: string; rateLimit?: RateRule; database?: Database } = {}) {
  const h = createHarness({
    metrics: new BffMetrics(),
    distDir: dist,
    logLevel: 'silent',
    upstream: { retries: 0 },
    ...(options.token ? { metricsToken: options.token } : {}),
    ...(options.rateLimit ? { rateLimit: options.rateLimit } : {}),
    ...(options.database ? { database: options.database } : {}),
  });
  const scrape = async () => {
    const res = await h.app.request('/metrics', { headers: { Authorization: `Bearer ${TOKEN}` } });
    expect(res.status).toBe(200);
    return res.text();
  };
  return { ...h, scrape, signIn: () => h.signIn(KEY) };
}

/** One sample's value from the exposition text; 0 when the series does not exist (yet). */
function sample(text: string, name: string, labels: Record<string, string> = {}): number {
  for (const line of text.split('\n')) {
    if (!line.startsWith(`${name}{`) && !line.startsWith(`${name} `)) continue;
    const m = /^([^{ ]+)(?:\{(.*)\})? (\S+)$/.exec(line);
    if (!m || m[1] !== name) continue;
    const have = Object.fromEntries(
      [...(m[2] ?? '').matchAll(/(\w+)="((?:[^"\\]|\\.)*)"/g)].map((x) => [x[1], x[2]]),
    );
    if (Object.entries(labels).every(([k, v]) => have[k] === v)) return Number(m[3]);
  }
  return 0;
}

describe('who may read /metrics', () => {
  it('nobody, on the app port, when no token is set: 404, not the SPA', async () => {
    const h = bff();
    for (const headers of [{}, { Authorization: `Bearer ${TOKEN}` }] as Record<string, string>[]) {
      const res = await h.app.request('/metrics', { headers });
      expect(res.status).toBe(404);
      expect(await res.text()).not.toContain('proplens_');
    }
  });

  it('with METRICS_TOKEN, only a scraper that sends it as a bearer token', async () => {
    const h = bff({ token: TOKEN });
    for (const authorization of [undefined, 'Bearer wrong', TOKEN, `Basic ${TOKEN}`, `Bearer ${TOKEN}x`]) {
      const res = await h.app.request('/metrics', {
        headers: authorization ? { Authorization: authorization } : {},
      });
      expect(res.status, String(authorization)).toBe(401);
      expect(res.headers.get('www-authenticate')).toMatch(/^Bearer/);
      expect(await res.text()).not.toContain('proplens_');
    }
    const res = await h.app.request('/metrics', { headers: { Authorization: `Bearer ${TOKEN}` } });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^text\/plain; version=0\.0\.4/);
    expect(res.headers.get('cache-control')).toBe('no-store');
    expect(await res.text()).toContain('# TYPE proplens_http_requests_total counter');
  });

  it('on the separate metrics port: /metrics only, open unless a token is set', async () => {
    const metrics = new BffMetrics();
    const open = createMetricsApp({ metrics, token: undefined });
    expect((await open.request('/metrics')).status).toBe(200);
    expect((await open.request('/api/session')).status).toBe(404);
    expect((await open.request('/metrics', { method: 'POST' })).status).toBe(405);
    const guarded = createMetricsApp({ metrics, token: TOKEN });
    expect((await guarded.request('/metrics')).status).toBe(401);
    expect(
      (await guarded.request('/metrics', { headers: { Authorization: `Bearer ${TOKEN}` } })).status,
    ).toBe(200);
  });

  it('METRICS_PORT starts that listener on its own, and the app port still answers 404', async () => {
    const running = await startOffline({ METRICS_PORT: '0', DATABASE_DIR: join(dist, 'db') });
    try {
      expect(running.metricsUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
      expect(running.metricsUrl).not.toBe(running.url);
      expect((await fetch(`${running.url}/metrics`)).status).toBe(404);
      const scraped = await fetch(`${running.metricsUrl}/metrics`);
      expect(scraped.status).toBe(200);
      const text = await scraped.text();
      expect(text).toContain('proplens_http_requests_total{method="GET",route="/metrics",status="404"} 1');
      expect(text).toContain('process_cpu_seconds_total');
      expect((await fetch(`${running.metricsUrl}/api/config`)).status).toBe(404);
    } finally {
      await running.close();
    }
  });

  it('stops within its grace period even while a review’s event stream is open', async () => {
    const running = await startOffline({ DATABASE_DIR: join(dist, 'db-stop') });
    // A connection that never goes idle, as an event stream holds one.
    const socket = connect(Number(new URL(running.url).port), '127.0.0.1');
    await new Promise((r) => socket.once('connect', r));
    socket.write('GET /healthz HTTP/1.1\r\nHost: x\r\n');
    const started = Date.now();
    await running.close();
    expect(Date.now() - started).toBeLessThan(5_000);
    socket.destroy();
  });

  it('refuses a short token and a bad port at start, naming them', () => {
    expect(() => readBffConfig({ METRICS_TOKEN: 'short' })).toThrow(/METRICS_TOKEN: must be at least 32/);
    expect(() => readBffConfig({ METRICS_PORT: 'nine' })).toThrow(/METRICS_PORT/);
  });
});

describe('what the metrics count', () => {
  afterEach(() => vi.useRealTimers());

  it('a resolve moves the request, upstream, cache and session series, and nothing else', async () => {
    const h = bff({ token: TOKEN });
    expect((await h.signIn()).status).toBe(200);
    let m = await h.scrape();
    expect(sample(m, 'proplens_sessions')).toBe(1);
    expect(sample(m, 'proplens_upstream_requests_total', { operation: 'me', outcome: '2xx' })).toBe(1);

    expect((await h.resolve('1100 Congress Ave, Austin, TX')).status).toBe(200);
    m = await h.scrape();
    const route = { method: 'GET', route: '/api/properties/resolve' };
    expect(sample(m, 'proplens_http_requests_total', { ...route, status: '200' })).toBe(1);
    expect(sample(m, 'proplens_http_request_duration_seconds_count', route)).toBe(1);
    expect(sample(m, 'proplens_upstream_requests_total', { operation: 'resolve', outcome: '2xx' })).toBe(1);
    expect(sample(m, 'proplens_upstream_request_duration_seconds_count', { operation: 'resolve' })).toBe(1);
    expect(sample(m, 'proplens_cache_lookups_total', { kind: 'resolve', result: 'miss' })).toBe(1);
    expect(sample(m, 'proplens_cache_lookups_total', { kind: 'resolve', result: 'hit' })).toBe(0);
    expect(sample(m, 'proplens_ratelimit_wait_seconds_count', { lane: 'interactive' })).toBe(0);

    // The same address again is a cache hit: no upstream call.
    expect((await h.resolve('1100 Congress Ave, Austin, TX')).status).toBe(200);
    m = await h.scrape();
    expect(sample(m, 'proplens_http_requests_total', { ...route, status: '200' })).toBe(2);
    expect(sample(m, 'proplens_cache_lookups_total', { kind: 'resolve', result: 'hit' })).toBe(1);
    expect(sample(m, 'proplens_upstream_requests_total', { operation: 'resolve', outcome: '2xx' })).toBe(1);
  });

  it('upstream outcomes: 404 and 409 by name; to the browser they are 200 answers', async () => {
    const h = bff({ token: TOKEN });
    await h.signIn();
    expect((await h.resolve('99999 Congress Ave, Austin, TX')).status).toBe(200);
    expect((await h.resolve('100 Main St')).status).toBe(200);
    const m = await h.scrape();
    expect(sample(m, 'proplens_upstream_requests_total', { operation: 'resolve', outcome: '404' })).toBe(1);
    expect(sample(m, 'proplens_upstream_requests_total', { operation: 'resolve', outcome: '409' })).toBe(1);
    const route = { method: 'GET', route: '/api/properties/resolve' };
    expect(sample(m, 'proplens_http_requests_total', { ...route, status: '200' })).toBe(2);
    expect(sample(m, 'proplens_http_requests_total', { ...route, status: '404' })).toBe(0);
    expect(sample(m, 'proplens_http_requests_total', { ...route, status: '409' })).toBe(0);
  });

  it('a request held for the rate limit is a wait in its lane, with its length', async () => {
    vi.useFakeTimers({
      toFake: ['setTimeout', 'clearTimeout', 'Date'],
      now: new Date('2026-11-21T12:00:00Z'),
    });
    const h = bff({ token: TOKEN, rateLimit: { requests: 2, seconds: 10 } });
    await h.signIn();
    await h.resolve('1100 Congress Ave, Austin, TX');
    const held = h.resolve('233 S Wacker Dr, Chicago, IL');
    await vi.advanceTimersByTimeAsync(11_000);
    expect((await held).status).toBe(200);
    const m = await h.scrape();
    expect(sample(m, 'proplens_ratelimit_wait_seconds_count', { lane: 'interactive' })).toBe(1);
    const waited = sample(m, 'proplens_ratelimit_wait_seconds_sum', { lane: 'interactive' });
    expect(waited).toBeGreaterThan(5);
    expect(waited).toBeLessThanOrEqual(11);
    expect(sample(m, 'proplens_ratelimit_wait_seconds_count', { lane: 'review' })).toBe(0);
    expect(sample(m, 'proplens_upstream_requests_total', { operation: 'resolve', outcome: '429' })).toBe(0);
  });

  it('review rows worked on the server: answered by outcome and cache', async () => {
    const database = await openDatabase({ dir: join(dist, 'db-review-metrics') });
    const h = bff({ token: TOKEN, database });
    try {
      await h.signIn();
      await h.resolve('1100 Congress Ave, Austin, TX');
      const created = await h.call('/api/reviews', {
        method: 'POST',
        body: { clientToken: 'metrics-review', name: 'M', kind: 'paste', columns: [], totalRows: 3 },
      });
      const { id } = (await created.json()) as { id: string };
      const rows = ['1100 Congress Ave, Austin, TX', '233 S Wacker Dr, Chicago, IL', '100 Main St'].map(
        (address) => ({ address }),
      );
      await h.call(`/api/reviews/${id}/chunks`, {
        method: 'PUT',
        body: { index: 0, firstRow: 0, rows, last: true },
      });
      h.reviews?.worker.start();
      await vi.waitFor(
        async () =>
          expect(((await (await h.call(`/api/reviews/${id}`)).json()) as { status: string }).status).toBe(
            'done',
          ),
        { timeout: 10_000, interval: 20 },
      );
      const m = await h.scrape();
      expect(sample(m, 'proplens_review_rows_total', { outcome: 'matched', cached: 'true' })).toBe(1);
      expect(sample(m, 'proplens_review_rows_total', { outcome: 'matched', cached: 'false' })).toBe(1);
      expect(sample(m, 'proplens_review_rows_total', { outcome: 'ambiguous', cached: 'false' })).toBe(1);
    } finally {
      await h.reviews?.worker.stop();
      await database.close();
    }
  });

  it('labels with route patterns, never raw paths, addresses, keys or accounts', async () => {
    const h = bff({ token: TOKEN });
    await h.signIn();
    await h.resolve('1100 Congress Ave, Austin, TX');
    await h.call('/api/nope/123456');
    await h.call('/some/client/route-789');
    const m = await h.scrape();
    expect(sample(m, 'proplens_http_requests_total', { method: 'GET', route: '/api/*', status: '404' })).toBe(
      1,
    );
    expect(sample(m, 'proplens_http_requests_total', { method: 'GET', route: '/*', status: '200' })).toBe(1);
    for (const leak of ['123456', 'route-789', 'Congress', KEY, 'pi_demo', 'proplens_session=']) {
      expect(m).not.toContain(leak);
    }
  });
});

/**
 * The production server with `env` added, on an upstream nobody answers (these tests never reach it). Each test
 * gives it its own DATABASE_DIR: never the working tree's data/db, shared with other test files running at once.
 */
function startOffline(env: Record<string, string>) {
  const config = readBffConfig({
    PORT: '0',
    LOG_LEVEL: 'silent',
    DIST_DIR: dist,
    PROPERTY_API_URL: 'http://127.0.0.1:9',
    ...env,
  });
  return startBff(config, {
    upstreamUrl: 'http://127.0.0.1:9',
    auth: { kind: 'bearer' },
    demoKeys: null,
    salesContact: null,
  });
}
