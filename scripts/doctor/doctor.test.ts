import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { serve } from '@hono/node-server';
import { afterAll, describe, expect, it } from 'vitest';
import { readBffConfig } from '../../src/bff/env.ts';
import { startBff } from '../../src/bff/server.ts';
import { createReferenceApp } from '../../src/reference/app.ts';
import { type Dialect, describeDialect, representativeDialects } from '../../src/reference/dialect.ts';
import { openTestStore } from '../../src/reference/test-support.ts';
import { runDoctor } from './probe.ts';
import { envLines, renderReport, writeEnvFile } from './report.ts';

const { store } = await openTestStore();
const KEY = 'pi_demo_professional';
const closers: (() => Promise<void>)[] = [];
afterAll(async () => {
  for (const close of closers.reverse()) await close();
});

function listen(handler: (req: IncomingMessage, res: ServerResponse) => void): Promise<string> {
  return new Promise((resolve) => {
    const server: Server = createServer(handler);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      closers.push(
        () =>
          new Promise<void>((done) => {
            server.closeAllConnections();
            server.close(() => done());
          }),
      );
      resolve(`http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`);
    });
  });
}

async function reference(dialect: Dialect): Promise<string> {
  const app = createReferenceApp({ store, dialect });
  return new Promise((resolve) => {
    const server = serve({ fetch: app.fetch, hostname: '127.0.0.1', port: 0 }, (info) =>
      resolve(`http://127.0.0.1:${info.port}`),
    );
    closers.push(() => new Promise<void>((done) => server.close(() => done())));
  });
}

/** A BFF started with exactly the settings the doctor printed, used as a browser would. */
async function bffWith(settings: Record<string, string>) {
  const dir = mkdtempSync(join(tmpdir(), 'proplens-doctor-'));
  const config = readBffConfig({
    ...settings,
    PORT: '0',
    LOG_LEVEL: 'silent',
    DATABASE_DIR: dir,
    DIST_DIR: dir,
  });
  const bff = await startBff(config, {
    upstreamUrl: config.upstreamUrl as string,
    auth: config.auth,
    demoKeys: null,
    salesContact: null,
  });
  closers.push(async () => {
    await bff.close();
    rmSync(dir, { recursive: true, force: true });
  });
  let cookie = '';
  const call = async (path: string, body?: unknown) => {
    const res = await fetch(bff.url + path, {
      method: body ? 'POST' : 'GET',
      headers: { 'X-Requested-With': 'proplens', 'Content-Type': 'application/json', Cookie: cookie },
      body: body ? JSON.stringify(body) : undefined,
    });
    cookie = res.headers.get('set-cookie')?.split(';')[0] ?? cookie;
    return res;
  };
  return call;
}

const noKeyIn = (key: string, ...texts: string[]) => {
  for (const text of texts) {
    expect(text).not.toContain(key);
    expect(text).not.toContain(encodeURIComponent(key));
  }
};

describe('npm run doctor against the reference service in every dialect', () => {
  it.each(representativeDialects().map((d) => [describeDialect(d), d] as const))(
    '%s: "can use", and a BFF with the printed settings signs in, resolves and pages a search',
    async (_name, dialect) => {
      const url = await reference(dialect);
      const report = await runDoctor({ url, key: KEY });
      expect(report.verdict, renderReport(report)).toBe('PropLens can use this service.');
      expect(report.findings.filter((f) => f.level === 'block')).toEqual([]);
      expect(report.requests).toBeLessThanOrEqual(10);
      noKeyIn(KEY, renderReport(report), JSON.stringify(report));
      const settings = Object.fromEntries(
        envLines(report).map((l) => l.split(/=(.*)/s).slice(0, 2) as [string, string]),
      );
      const call = await bffWith(settings);
      expect((await call('/api/session', { apiKey: KEY })).status).toBe(200);
      const page = (await (await call('/api/properties/search?q=main')).json()) as {
        items: { address: string }[];
        nextCursor: string | null;
      };
      expect(page.items.length).toBeGreaterThan(0);
      const resolved = await call(
        `/api/properties/resolve?address=${encodeURIComponent(page.items[0]?.address ?? '')}`,
      );
      expect(resolved.status).toBe(200);
      // Every dialect pages "main": a BFF set up by the doctor must follow the service's cursor.
      expect(page.nextCursor).toEqual(expect.any(String));
      const next = await call(
        `/api/properties/search?q=main&cursor=${encodeURIComponent(page.nextCursor ?? '')}`,
      );
      expect(next.status).toBe(200);
      const more = (await next.json()) as { items: { address: string }[] };
      expect(more.items.length).toBeGreaterThan(0);
      expect(report.findings.find((f) => f.topic === 'Search')?.text).toMatch(/next_cursor pages on/);
    },
    30_000,
  );
});

describe('npm run doctor against hostile services', () => {
  const record = {
    property_id: 'p1',
    address: '1 Main St, Springfield, IL 62701',
    source: 'Sangamon County Assessor',
    confidence: 'high',
    last_verified: '2026-01-02',
  };
  const json = (res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}) => {
    res.writeHead(status, { 'content-type': 'application/json', ...headers });
    res.end(JSON.stringify(body));
  };
  /** A plausible service that reads the key from `accept(req)`; no rate-limit headers unless given. */
  const service = (accept: (req: IncomingMessage) => boolean, headers: Record<string, string> = {}) =>
    listen((req, res) => {
      const url = new URL(req.url ?? '/', 'http://x');
      if (!accept(req))
        return json(res, 401, {
          error: { code: 'invalid_key', message: `Unknown key ${req.headers.authorization ?? url.search}` },
        });
      if (url.pathname === '/auth/me')
        return json(res, 200, { id: 'a1', name: 'Acme', plan: 'enterprise' }, headers);
      if (url.pathname === '/properties/search') return json(res, 200, { data: [record] }, headers);
      if (url.pathname === '/properties/resolve') return json(res, 200, record, headers);
      return json(res, 404, { error: { code: 'not_found', message: 'no' } });
    });
  const strangeKey = 'pk live/ä+=&key';

  it('without rate-limit headers: usable, with a warning that says what users will see', async () => {
    const url = await service((req) => req.headers.authorization === `Bearer ${strangeKey}`);
    const report = await runDoctor({ url, key: strangeKey });
    expect(report.usable).toBe(true);
    expect(report.findings.find((f) => f.topic === 'Rate limit')).toMatchObject({
      level: 'warn',
      text: expect.stringMatching(/429/),
    });
    noKeyIn(strangeKey, renderReport(report), JSON.stringify(report));
  });

  it('a service that takes any key: not usable, and says why', async () => {
    const url = await service(() => true, { 'X-RateLimit-Limit': '60', 'X-RateLimit-Reset': '30' });
    const report = await runDoctor({ url, key: strangeKey });
    expect(report.usable).toBe(false);
    expect(report.findings.find((f) => f.topic === 'Key check')?.level).toBe('block');
  });

  it('a 200 with an HTML page: not usable', async () => {
    const url = await listen((_req, res) => {
      res.writeHead(200, { 'content-type': 'text/html' });
      res.end('<html><body>Welcome</body></html>');
    });
    const report = await runDoctor({ url, key: strangeKey });
    expect(report.usable).toBe(false);
  });

  it('a key header of its own: not found by guessing (the way out is named), found with --auth', async () => {
    const url = await service((req) => req.headers['x-acme-token'] === strangeKey);
    const guessed = await runDoctor({ url, key: strangeKey });
    expect(guessed.usable).toBe(false);
    expect(guessed.findings.find((f) => f.topic === 'Key placement')?.text).toMatch(/--auth header:<Name>/);
    noKeyIn(strangeKey, renderReport(guessed), JSON.stringify(guessed));
    const told = await runDoctor({ url, key: strangeKey, auth: { kind: 'header', name: 'X-Acme-Token' } });
    expect(told.usable).toBe(true);
    expect(told.settings.PROPERTY_API_AUTH).toBe('header:X-Acme-Token');
  });

  it('a service that never answers: a verdict within its time budget', async () => {
    const url = await listen(() => {});
    const started = Date.now();
    const report = await runDoctor({ url, key: strangeKey, requestTimeoutMs: 300, budgetMs: 2_000 });
    expect(Date.now() - started).toBeLessThan(2_500);
    expect(report.usable).toBe(false);
    expect(report.findings[0]).toMatchObject({ topic: 'Connection', level: 'block' });
  });

  it('a plan without API access: says so, with the sales contact the service gives', async () => {
    const url = await listen((_req, res) =>
      json(res, 403, {
        error: {
          code: 'plan_not_eligible',
          message: 'Your plan has no API access. Contact sales@acme.example.',
        },
      }),
    );
    const report = await runDoctor({ url, key: strangeKey, auth: { kind: 'bearer' } });
    expect(report.findings.find((f) => f.topic === 'Plan')?.text).toMatch(/sales@acme\.example/);
  });
});

describe('--write-env', () => {
  it('replaces its settings in .env, keeps every other line, and backs the old file up', () => {
    const dir = mkdtempSync(join(tmpdir(), 'proplens-env-'));
    const file = join(dir, '.env');
    writeFileSync(file, '# mine\nPORT=9000\nPROPERTY_API_AUTH=bearer\n');
    const backup = writeEnvFile(file, {
      PROPERTY_API_AUTH: 'header:X-API-Key',
      PROPERTY_API_URL: 'https://api.example.com',
    });
    expect(readFileSync(file, 'utf8')).toBe(
      '# mine\nPORT=9000\nPROPERTY_API_AUTH=header:X-API-Key\n# Written by npm run doctor\nPROPERTY_API_URL=https://api.example.com\n',
    );
    expect(backup && readFileSync(backup, 'utf8')).toBe('# mine\nPORT=9000\nPROPERTY_API_AUTH=bearer\n');
  });
});
