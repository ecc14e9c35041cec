import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { listen as serve } from './server.ts';
import { createHarness, fakeUpstream, PRO_KEY } from './test-support/harness.ts';

/** The harness's app on a real loopback socket, served as production serves it, for what only real HTTP shows. */
async function listen(h: ReturnType<typeof createHarness>, trustProxy = false) {
  const server = await serve(h.app.fetch, '127.0.0.1', 0, trustProxy);
  servers.push(server);
  return (server.address() as AddressInfo).port;
}
const servers: Server[] = [];
afterEach(() => {
  for (const s of servers.splice(0)) s.close();
});

/** Writes raw bytes and collects the answer until the server closes or `ms` pass (no real sleeps in assertions). */
function raw(port: number, text: string, { hangUpAfterWrite = false } = {}): Promise<string> {
  return new Promise((resolve) => {
    const sock = connect(port, '127.0.0.1', () => {
      sock.write(text);
      if (hangUpAfterWrite) sock.destroy();
    });
    let data = '';
    sock.on('data', (d) => {
      data += d;
      if (/\r\n\r\n/.test(data) && /Content-Length: (\d+)/i.test(data)) {
        const [head, body = ''] = data.split('\r\n\r\n');
        const length = Number(/Content-Length: (\d+)/i.exec(head as string)?.[1]);
        if (Buffer.byteLength(body) >= length) sock.end();
      }
    });
    sock.on('close', () => resolve(data));
  });
}

const signIn = (target: string, headers: string[] = []) => {
  const body = JSON.stringify({ apiKey: PRO_KEY });
  return [
    `POST ${target} HTTP/1.1`,
    ...(headers.some((h) => /^host:/i.test(h)) ? [] : ['Host: 127.0.0.1']),
    'Content-Type: application/json',
    'X-Requested-With: proplens',
    `Content-Length: ${body.length}`,
    ...headers,
    '',
    body,
  ].join('\r\n');
};

describe('over real HTTP', () => {
  it('sets a strict CSP and the security headers on every answer: API, errors, health, the SPA', async () => {
    const dist = mkdtempSync(join(tmpdir(), 'proplens-headers-'));
    try {
      writeFileSync(join(dist, 'index.html'), '<!doctype html><title>PropLens</title>');
      const h = createHarness({ distDir: dist });
      const port = await listen(h);
      const base = `http://127.0.0.1:${port}`;
      const api = { headers: { 'X-Requested-With': 'proplens' } };
      for (const res of [
        await fetch(`${base}/healthz`),
        await fetch(`${base}/api/config`, api),
        await fetch(`${base}/api/nope`, api),
        await fetch(`${base}/api/session`, { ...api, method: 'POST', body: '{' }),
        await fetch(`${base}/search`),
      ]) {
        const csp = res.headers.get('content-security-policy') ?? '';
        expect(csp).toContain("script-src 'self'");
        expect(csp).not.toContain('unsafe-inline');
        expect(csp).toContain("frame-ancestors 'none'");
        expect(res.headers.get('x-content-type-options')).toBe('nosniff');
        expect(res.headers.get('x-frame-options')).toBe('DENY');
        expect(res.headers.get('referrer-policy')).toBe('no-referrer');
        expect(res.headers.get('cross-origin-opener-policy')).toBe('same-origin');
        expect(res.headers.get('permissions-policy')).toContain('camera=()');
        expect(res.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/);
        if (new URL(res.url).pathname.startsWith('/api/'))
          expect(res.headers.get('cache-control')).toBe('no-store');
        // Over plain HTTP, not behind a trusted proxy: no HSTS.
        expect(res.headers.get('strict-transport-security')).toBeNull();
        await res.arrayBuffer();
      }
    } finally {
      rmSync(dist, { recursive: true, force: true });
    }
  });

  it('treats a chunked sign-in the client abandons as the client’s doing: no 500, nothing logged as an error', async () => {
    const h = createHarness();
    const port = await listen(h);
    await raw(
      port,
      'POST /api/session HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nX-Requested-With: proplens\r\nTransfer-Encoding: chunked\r\n\r\n5\r\n{"api\r\n',
      { hangUpAfterWrite: true },
    );
    await new Promise<void>((resolve) => {
      const check = () =>
        h.logs.some((l) => l.includes('"path":"/api/session"')) ? resolve() : setImmediate(check);
      check();
    });
    expect(h.logs.some((l) => /"level":(50|60)/.test(l))).toBe(false);
    expect(h.logs.some((l) => l.includes('"status":500'))).toBe(false);
  });

  /** A signed-in browser on a real socket, and an upstream that holds every call until the test releases it. */
  async function heldUpstream() {
    const upstream: { url: URL; signal?: AbortSignal; release: () => void }[] = [];
    const h = createHarness({
      fetch: fakeUpstream(
        (url, signal) =>
          new Promise((resolve) => {
            upstream.push({
              url,
              signal,
              release: () =>
                resolve({
                  id: `p${upstream.length}`,
                  address: url.searchParams.get('address') ?? '',
                  source: 'X County Assessor',
                  confidence: 'high',
                  last_verified: '2026-01-01',
                }),
            });
          }),
      ),
    });
    const port = await listen(h);
    const session = await fetch(`http://127.0.0.1:${port}/api/session`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', 'X-Requested-With': 'proplens' },
      body: JSON.stringify({ apiKey: PRO_KEY }),
    });
    const cookie = (session.headers.get('set-cookie') ?? '').split(';')[0] as string;
    const resolve = (target: string) =>
      [
        `GET /api/properties/resolve${target} HTTP/1.1`,
        'Host: 127.0.0.1',
        'X-Requested-With: proplens',
        `Cookie: ${cookie}`,
        '',
        '',
      ].join('\r\n');
    return { port, upstream, resolve };
  }
  const until = async (done: () => boolean) => {
    for (let i = 0; i < 10_000 && !done(); i++) await new Promise((r) => setImmediate(r));
  };

  it('stops the upstream call when the browser hangs up mid-request, and not when it stays', async () => {
    const { port, upstream, resolve } = await heldUpstream();
    // Hangs up while the upstream is being asked: that call is cancelled.
    const leaving = connect(port, '127.0.0.1', () => leaving.write(resolve('?address=1%20Main%20St')));
    await until(() => upstream.length === 1);
    leaving.destroy();
    await until(() => upstream[0]?.signal?.aborted === true);
    expect(upstream[0]?.signal?.aborted).toBe(true);

    // Stays for the answer: nothing is cancelled, before or after it is written.
    const staying = raw(port, resolve('?address=2%20Main%20St'));
    await until(() => upstream.length === 2);
    upstream[1]?.release();
    expect(await staying).toMatch(/^HTTP\/1\.1 200/);
    expect(upstream[1]?.signal?.aborted).toBe(false);
  });

  it('stops both upstream calls of two pipelined requests when the browser hangs up', async () => {
    const { port, upstream, resolve } = await heldUpstream();
    // The second answer waits behind the first: its response has no socket to see closing.
    const sock = connect(port, '127.0.0.1', () =>
      sock.write(resolve('?address=3%20Main%20St') + resolve('?address=4%20Main%20St')),
    );
    await until(() => upstream.length === 2);
    sock.destroy();
    await until(() => upstream.every((u) => u.signal?.aborted));
    expect(upstream.map((u) => u.signal?.aborted)).toEqual([true, true]);
  });

  it('reads the query up to a fragment in the request target, and none after one', async () => {
    const { port, upstream, resolve } = await heldUpstream();
    const answer = raw(port, resolve('?address=8%20Main%20St#frag'));
    await until(() => upstream.length === 1);
    expect(upstream[0]?.url.searchParams.get('address')).toBe('8 Main St');
    upstream[0]?.release();
    expect(await answer).toMatch(/^HTTP\/1\.1 200/);
    // `#?address=` is a fragment, not a query: no address was sent.
    expect(await raw(port, resolve('#?address=9%20Main%20St'))).toMatch(/^HTTP\/1\.1 400/);
    expect(upstream).toHaveLength(1);
  });

  it("answers an HTTP/1.0 request without a Host header (a load balancer's plain health check)", async () => {
    const port = await listen(createHarness());
    expect(await raw(port, 'GET /healthz HTTP/1.0\r\n\r\n')).toMatch(/^HTTP\/1\.1 200/);
  });

  it('never takes an absolute-form https:// target over plain HTTP for HTTPS: no Secure cookie, no HSTS', async () => {
    const h = createHarness();
    const port = await listen(h);
    const answer = await raw(port, signIn(`https://127.0.0.1:${port}/api/session`));
    expect(answer).toMatch(/^HTTP\/1\.1 200/);
    expect(answer).toMatch(/set-cookie: proplens_session=/i);
    expect(answer).not.toMatch(/Secure/);
    expect(answer).not.toMatch(/strict-transport-security/i);
  });

  it('checks Origin against the Host it answers on, never an absolute-form target’s authority', async () => {
    const h = createHarness();
    const port = await listen(h);
    const own = `127.0.0.1:${port}`;
    // A target naming the attacker's host, with the attacker's Origin: a request for another host than the Host
    // header names is refused before any route (the request guard), so no CSRF check is fooled by it.
    const forged = await raw(
      port,
      signIn('http://evil.example/api/session', [`Host: ${own}`, 'Origin: http://evil.example']),
    );
    expect(forged).toMatch(/^HTTP\/1\.1 400/);
    expect(forged).toContain('"code":"bad_request"');
    // Our own authority in the target, the attacker's Origin: the Origin is checked against the Host header.
    const crossSite = await raw(
      port,
      signIn(`http://${own}/api/session`, [`Host: ${own}`, 'Origin: http://evil.example']),
    );
    expect(crossSite).toMatch(/^HTTP\/1\.1 403/);
    expect(crossSite).toContain('"code":"csrf"');
    const ok = await raw(port, signIn('/api/session', [`Host: ${own}`, `Origin: http://${own}`]));
    expect(ok).toMatch(/^HTTP\/1\.1 200/);
    const cookie = /set-cookie: ([^;]+)/i.exec(ok)?.[1] as string;
    const signOut = (target: string, origin: string) =>
      raw(
        port,
        [
          `DELETE ${target} HTTP/1.1`,
          `Host: ${own}`,
          'X-Requested-With: proplens',
          `Origin: ${origin}`,
          `Cookie: ${cookie}`,
          'Content-Length: 0',
          'Connection: close',
          '',
          '',
        ].join('\r\n'),
      );
    expect(await signOut('http://evil.example/api/session', 'http://evil.example')).toMatch(
      /^HTTP\/1\.1 400/,
    );
    expect(await signOut(`http://${own}/api/session`, 'http://evil.example')).toMatch(/^HTTP\/1\.1 403/);
    const session = (await h.call('/api/session', { headers: { cookie } })).status;
    expect(session).toBe(200); // still signed in
    // Our own authority in an absolute-form target, as a proxy may pass on, is ours.
    expect(await signOut(`http://${own}/api/session`, `http://${own}`)).toMatch(/^HTTP\/1\.1 204/);
    expect((await h.call('/api/session', { headers: { cookie } })).status).toBe(401);
  });

  it.each([
    ['https,http', true],
    ['https', true],
    ['http,https', false],
    [' HTTPS , http', true],
  ])('behind a trusted proxy, reads the first X-Forwarded-Proto value: %s', async (proto, secure) => {
    const h = createHarness({ trustProxy: true });
    const port = await listen(h, true);
    const answer = await raw(port, signIn('/api/session', [`X-Forwarded-Proto: ${proto}`]));
    expect(answer).toMatch(/^HTTP\/1\.1 200/);
    expect(/set-cookie: __Host-proplens_session=[^\r]*Secure/i.test(answer)).toBe(secure);
    expect(/strict-transport-security/i.test(answer)).toBe(secure);
  });

  it('ignores X-Forwarded-Proto unless told to trust a proxy', async () => {
    const h = createHarness();
    const port = await listen(h);
    const answer = await raw(port, signIn('/api/session', ['X-Forwarded-Proto: https']));
    expect(answer).not.toMatch(/Secure/);
  });
});
