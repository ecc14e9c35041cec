import type { AddressInfo, Server } from 'node:net';
import { connect } from 'node:net';
import { serve } from '@hono/node-server';
import { afterEach, describe, expect, it } from 'vitest';
import { applyServerLimits } from './server.ts';
import { createHarness, PRO_KEY } from './test-support/harness.ts';

/** The harness's app on a real loopback socket, for what only real HTTP shows. */
async function listen(h: ReturnType<typeof createHarness>) {
  const server = serve({ fetch: h.app.fetch, port: 0, hostname: '127.0.0.1' }) as unknown as Server;
  await new Promise((r) => server.once('listening', r));
  applyServerLimits(server as never);
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
    'Host: 127.0.0.1',
    'Content-Type: application/json',
    'X-Requested-With: proplens',
    `Content-Length: ${body.length}`,
    ...headers,
    '',
    body,
  ].join('\r\n');
};

describe('over real HTTP', () => {
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

  it('never takes an absolute-form https:// target over plain HTTP for HTTPS: no Secure cookie, no HSTS', async () => {
    const h = createHarness();
    const port = await listen(h);
    const answer = await raw(port, signIn(`https://127.0.0.1:${port}/api/session`));
    expect(answer).toMatch(/^HTTP\/1\.1 200/);
    expect(answer).toMatch(/set-cookie: proplens_session=/i);
    expect(answer).not.toMatch(/Secure/);
    expect(answer).not.toMatch(/strict-transport-security/i);
  });

  it('checks Origin against an absolute-form target’s authority, not the Host header it overrides', async () => {
    const h = createHarness();
    const port = await listen(h);
    const forged = await raw(
      port,
      signIn(`http://127.0.0.1:${port}/api/session`, ['Origin: http://127.0.0.1']),
    );
    expect(forged).toMatch(/^HTTP\/1\.1 403/);
    const own = await raw(
      port,
      signIn(`http://127.0.0.1:${port}/api/session`, [`Origin: http://127.0.0.1:${port}`]),
    );
    expect(own).toMatch(/^HTTP\/1\.1 200/);
  });

  it.each([
    ['https,http', true],
    ['https', true],
    ['http,https', false],
    [' HTTPS , http', true],
  ])('behind a trusted proxy, reads the first X-Forwarded-Proto value: %s', async (proto, secure) => {
    const h = createHarness({ trustProxy: true });
    const port = await listen(h);
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
