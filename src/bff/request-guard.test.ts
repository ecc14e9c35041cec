import { mkdtempSync, rmSync } from 'node:fs';
import type { Server } from 'node:http';
import { connect, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { ApiErrorBody } from '../contract/index.ts';
import { readBffConfig } from './env.ts';
import type { RequestGuardOptions } from './middleware/request-guard.ts';
import { listen, SERVER_LIMITS, type ServerLimits, startBff } from './server.ts';

/*
 * What the listener refuses before any route runs (middleware/request-guard.ts), over real sockets: a Host
 * it does not serve (DNS rebinding), a query parameter sent twice, and past the soft cap of connections a
 * request without a live session.
 */
let server: Server | undefined;
const sockets: Socket[] = [];
afterEach(async () => {
  for (const s of sockets.splice(0)) s.destroy();
  server?.closeAllConnections();
  await new Promise<void>((done) => (server ? server.close(() => done()) : done()));
  server = undefined;
});

/** The routes run: each request that reaches the app is counted, and answered 200 with its path. */
let reached = 0;
async function start(guard: RequestGuardOptions = {}, limits: ServerLimits = SERVER_LIMITS) {
  reached = 0;
  const app = (req: Request) => {
    reached++;
    return new Response(new URL(req.url).pathname);
  };
  server = await listen(app, '127.0.0.1', 0, false, limits, guard);
  const address = server.address();
  return typeof address === 'object' && address ? address.port : 0;
}

function open(port: number): Promise<Socket> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1', () => resolve(socket));
    socket.on('error', reject);
    sockets.push(socket);
  });
}

/**
 * Sends one request on a new connection and resolves with the answer once the server has closed it: asked with
 * Connection: close, or kept alive (`keepAlive`), when the server must close it itself.
 */
async function ask(port: number, target: string, headers: string[] = [], keepAlive = false) {
  const socket = await open(port);
  return new Promise<{ status: number; head: string; body: string }>((resolve) => {
    let data = '';
    socket.on('data', (d) => {
      data += d.toString();
    });
    socket.on('close', () => {
      const [head = '', body = ''] = data.split('\r\n\r\n');
      resolve({ status: Number(head.slice(9, 12)), head, body });
    });
    const host = headers.some((h) => /^host:/i.test(h)) ? [] : ['Host: 127.0.0.1'];
    const connection = keepAlive ? [] : ['Connection: close'];
    socket.write(`GET ${target} HTTP/1.1\r\n${[...host, ...connection, ...headers].join('\r\n')}\r\n\r\n`);
  });
}

async function refusal(answer: { status: number; body: string }) {
  return ApiErrorBody.parse(JSON.parse(answer.body)).error;
}

describe('Host allow-list', () => {
  it('serves localhost and IP literals on any port, and the names in ALLOWED_HOSTS', async () => {
    const port = await start({ allowedHosts: ['proplens.example.com', '*.example.org'] });
    for (const host of [
      `127.0.0.1:${port}`,
      `localhost:${port}`,
      'LOCALHOST',
      `[::1]:${port}`,
      '10.1.2.3:8080',
      'proplens.example.com',
      'PropLens.Example.com.:443',
      'a.example.org',
      'b.a.example.org:8443',
    ]) {
      const answer = await ask(port, '/healthz', [`Host: ${host}`]);
      expect(answer.status, host).toBe(200);
    }
    expect(reached).toBe(9);
  });

  it('refuses any other name with 421 before a route runs (a page on a rebound name reads nothing)', async () => {
    const port = await start({ allowedHosts: ['proplens.example.com', '*.example.org'] });
    for (const host of [
      `evil.example:${port}`,
      'proplens.example.com.evil.net',
      'example.org',
      'localhost.evil.net',
      'evil.net:80@127.0.0.1',
      '127.0.0.1.nip.io',
      '',
    ]) {
      const answer = await ask(port, '/api/session', [`Host: ${host}`]);
      expect(answer.status, host).toBe(421);
      expect(await refusal(answer)).toMatchObject({ code: 'bad_request', message: /host name/ });
      expect(answer.head).toMatch(/cache-control: no-store/i);
      expect(answer.head).toMatch(/x-frame-options: deny/i);
    }
    expect(reached).toBe(0);
  });

  it('serves no name but localhost and IP literals unless told (the default), and every name when told *', async () => {
    const port = await start();
    expect((await ask(port, '/', ['Host: proplens.example.com'])).status).toBe(421);
    expect((await ask(port, '/', [`Host: localhost:${port}`])).status).toBe(200);
    await new Promise<void>((done) => server?.close(() => done()));
    const any = await start({ allowedHosts: '*' });
    expect((await ask(any, '/', ['Host: metrics.internal:9464'])).status).toBe(200);
  });
});

describe('query parameters sent twice', () => {
  it('are refused on the API with 400 bad_request naming the parameter, however spelt', async () => {
    const port = await start();
    for (const [target, name] of [
      ['/api/properties/search?q=a&q=b', 'q'],
      ['/api/activity?outcome=matched&q=x&outcome=failed', 'outcome'],
      ['/api/properties/resolve?address=1%20Main&%61ddress=2%20Oak', 'address'],
      ['/api/reviews/x/rows?limit=1&limit=2#f', 'limit'],
      ['/api/activity?q=&q=', 'q'],
    ] as const) {
      const answer = await ask(port, target);
      expect(answer.status, target).toBe(400);
      expect(await refusal(answer)).toEqual({
        code: 'bad_request',
        message: `Send the ${name} parameter once.`,
      });
    }
    const odd = await ask(port, '/api/activity?%3Cb%3E=1&%3Cb%3E=2');
    expect(await refusal(odd)).toEqual({ code: 'bad_request', message: 'Send each query parameter once.' });
    expect(reached).toBe(0);
  });

  it('pass when each is sent once, and outside the API', async () => {
    const port = await start();
    for (const target of [
      '/api/properties/search?q=a&cursor=b',
      '/api/activity?q=a',
      '/?a=1&a=2',
      '/api/x?a=1#&a=2',
    ]) {
      expect((await ask(port, target)).status, target).toBe(200);
    }
  });
});

describe('an absolute-form request target', () => {
  it('is read as its path and query: a parameter sent twice is refused as in origin form', async () => {
    const port = await start();
    const answer = await ask(port, `http://127.0.0.1:${port}/api/activity?q=zzqq&q=Main`);
    expect(answer.status).toBe(400);
    expect(await refusal(answer)).toEqual({ code: 'bad_request', message: 'Send the q parameter once.' });
    const once = await ask(port, `http://127.0.0.1:${port}/api/activity?q=Main`);
    expect(once.status).toBe(200);
    // The routes see the origin form.
    expect(once.body).toBe('/api/activity');
    expect(reached).toBe(1);
  });

  it('is refused when it names another host than the Host header, or is not http', async () => {
    const port = await start();
    for (const target of [
      `http://evil.example/api/activity?q=a`,
      `http://localhost:${port}/api/activity`,
      `ftp://127.0.0.1/api/activity`,
      `http://[::1/api/activity`,
    ]) {
      const answer = await ask(port, target);
      expect(answer.status, target).toBe(400);
      expect((await refusal(answer)).message).toBe('Send the request target as a path, for this host.');
    }
    expect(reached).toBe(0);
  });
});

describe('the connections reserved for sessions', () => {
  // 20 connections, the last 5 kept for requests of a live session.
  const limits = { ...SERVER_LIMITS, maxConnections: 20, sessionReservePercent: 25, firstRequestMs: 300 };
  const guard = { hasSession: async (id: string) => id === 'live' };

  /** 15 anonymous clients holding connections open (headers never finished, as slow clients do). */
  async function fillToSoftCap(port: number) {
    const held = await Promise.all(Array.from({ length: 15 }, () => open(port)));
    for (const s of held) s.write('GET / HTTP/1.1\r\nHost: 127.0.0.1\r\n');
    // Every one is counted once a request of ours is answered after them.
    await ask(port, '/healthz', ['Cookie: proplens_session=live']);
    return held;
  }

  it('past the soft cap, answer a request without a live session 503 with Retry-After and close it', async () => {
    const port = await start(guard, limits);
    await fillToSoftCap(port);
    const before = reached;
    for (const headers of [[], ['Cookie: proplens_session=dead'], ['Cookie: other=live']]) {
      // Asked to keep the connection: answered, and closed all the same.
      const answer = await ask(port, '/api/session', headers, true);
      expect(answer.status, headers.join()).toBe(503);
      expect(answer.head).toMatch(/retry-after: 5/i);
      expect(answer.head).toMatch(/connection: close/i);
      expect(await refusal(answer)).toMatchObject({ code: 'store_unavailable', message: /busy/ });
    }
    expect(reached).toBe(before);
    // A signed-in agent is served in the reserved slots (the __Host- cookie over HTTPS too).
    for (const cookie of ['proplens_session=live', 'a=b; __Host-proplens_session=live']) {
      const answer = await ask(port, '/api/reviews', [`Cookie: ${cookie}`]);
      expect(answer.status, cookie).toBe(200);
    }
  });

  it('past the soft cap, close a connection that sends nothing within firstRequestMs', async () => {
    const port = await start(guard, limits);
    await fillToSoftCap(port);
    const silent = await open(port);
    const t = performance.now();
    await new Promise((closed) => silent.on('close', closed));
    // Not the 10 s headers timeout: the reserve is not a slow client's to sit in.
    expect(performance.now() - t).toBeLessThan(limits.headersTimeoutMs / 2);
  });

  it('below the soft cap, serve requests without a session as before', async () => {
    const port = await start(guard, limits);
    const held = await fillToSoftCap(port);
    held[0]?.destroy();
    await new Promise((closed) => held[0]?.on('close', closed));
    // Our own request's connection makes 15: at the soft cap, not past it.
    await expect.poll(async () => (await ask(port, '/healthz')).status).toBe(200);
  });
});

describe('ALLOWED_HOSTS', () => {
  it('takes host names and *.subdomains, comma-separated, and lists every one it cannot', () => {
    expect(readBffConfig({}).allowedHosts).toEqual([]);
    expect(readBffConfig({ ALLOWED_HOSTS: ' PropLens.example.com., *.example.org ,' }).allowedHosts).toEqual([
      'proplens.example.com',
      '*.example.org',
    ]);
    expect(() =>
      readBffConfig({ ALLOWED_HOSTS: 'https://proplens.example.com, a.example:443, ok.example, *' }),
    ).toThrow(/ALLOWED_HOSTS: .*"https:\/\/proplens.example.com", "a.example:443", "\*"/);
  });
});

describe('the production server (startBff)', () => {
  it('serves the ALLOWED_HOSTS names and refuses others, on the app port; the metrics port serves any', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'proplens-guard-'));
    const bff = await startBff(
      readBffConfig({
        PORT: '0',
        METRICS_PORT: '0',
        LOG_LEVEL: 'silent',
        DIST_DIR: '',
        DATABASE_DIR: dir,
        PROPERTY_API_URL: 'http://127.0.0.1:9',
        ALLOWED_HOSTS: 'proplens.example.com',
      }),
      { upstreamUrl: 'http://127.0.0.1:9', auth: { kind: 'bearer' }, demoKeys: null, salesContact: null },
    );
    try {
      const port = Number(new URL(bff.url).port);
      expect((await ask(port, '/healthz', ['Host: proplens.example.com'])).status).toBe(200);
      expect((await ask(port, '/healthz', ['Host: rebound.example.net'])).status).toBe(421);
      expect((await ask(port, '/api/activity?q=a&q=b')).status).toBe(400);
      const metrics = Number(new URL(bff.metricsUrl ?? '').port);
      expect((await ask(metrics, '/metrics', ['Host: scraper-network-name:9464'])).status).toBe(200);
    } finally {
      await bff.close();
      rmSync(dir, { recursive: true, force: true });
    }
  }, 30_000);
});
