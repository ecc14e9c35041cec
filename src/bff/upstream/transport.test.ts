import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { ClientGone } from '../cancel.ts';
import { ApiError } from '../errors.ts';
import { createPoolTransport, MAX_BODY_BYTES, type PoolTransport, TransportFailure } from './transport.ts';

/*
 * The production transport against a real loopback HTTP server: the rules the fetch-injected tests pin
 * (hardening.test.ts) hold for the undici pool too. The deadline is a timer the test fires by hand.
 */

type Handler = (req: IncomingMessage, res: ServerResponse) => void;

const open: { server: Server; pool: PoolTransport }[] = [];

async function upstream(handler: Handler) {
  const server = createServer(handler);
  let connections = 0;
  server.on('connection', () => connections++);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  let fire: () => void = () => {
    throw new Error('no deadline running');
  };
  const pool = createPoolTransport(base, {
    setTimer: (f) => {
      fire = f;
      return () => {
        fire = () => {};
      };
    },
  });
  open.push({ server, pool });
  return {
    base,
    send: (path: string, signal?: AbortSignal) =>
      pool.send({
        url: new URL(path, base).href,
        headers: { accept: 'application/json' },
        timeoutMs: 5000,
        signal,
      }),
    deadline: () => fire(),
    connections: () => connections,
  };
}

/** Resolves when the server side of the request's socket closes: the client gave up the exchange. */
const closed = (req: IncomingMessage) => new Promise<void>((resolve) => req.socket.once('close', resolve));

/**
 * A hostile upstream's body: `total` bytes a chunk per turn of the event loop (a trickle), the last with the
 * end of the answer; it stops when the client drops the socket. `ended`: the whole body went out.
 */
function trickle(req: IncomingMessage, res: ServerResponse, total: number, chunkBytes = 64 * 1024) {
  const body = { sent: 0, ended: false };
  const next = () => {
    if (req.socket.destroyed) return;
    const chunk = Buffer.alloc(Math.min(chunkBytes, total - body.sent), 'x');
    body.sent += chunk.length;
    if (body.sent < total) {
      res.write(chunk);
      setImmediate(next);
      return;
    }
    body.ended = true;
    res.end(chunk);
  };
  setImmediate(next);
  return body;
}

/** Lets pending I/O callbacks run, without waiting on a clock. */
const turns = async (n = 5) => {
  for (let i = 0; i < n; i++) await new Promise((r) => setImmediate(r));
};

async function failure(p: Promise<unknown>): Promise<Error> {
  try {
    await p;
  } catch (err) {
    return err as Error;
  }
  throw new Error('expected a failure');
}

afterEach(async () => {
  for (const { server, pool } of open.splice(0)) {
    server.closeAllConnections();
    await Promise.all([pool.close(), new Promise((r) => server.close(r))]);
  }
});

describe('the undici pool transport', () => {
  it('reads status, headers by lower-case name, and body, over kept-alive sockets', async () => {
    const u = await upstream((req, res) => {
      res.setHeader('X-RateLimit-Remaining', '41');
      res.setHeader('Content-Type', 'application/json');
      res.end(JSON.stringify({ path: req.url, auth: req.headers.accept }));
    });
    for (let i = 0; i < 10; i++) {
      const a = await u.send(`/properties/resolve?address=${i}`);
      expect(a.status).toBe(200);
      expect(a.headers.get('x-ratelimit-remaining')).toBe('41');
      expect(a.headers.get('__proto__')).toBeNull();
      expect(JSON.parse(a.text)).toEqual({
        path: `/properties/resolve?address=${i}`,
        auth: 'application/json',
      });
    }
    // Kept alive: ten requests in a row, not ten connections (undici may open a second while the first
    // finishes its bookkeeping).
    expect(u.connections()).toBeLessThanOrEqual(2);
  });

  it('holds the deadline over the body: headers then a stall is a 504, and the socket is dropped', async () => {
    let gone: Promise<void> | undefined;
    const u = await upstream((req, res) => {
      gone = closed(req);
      res.writeHead(200, { 'Content-Type': 'application/json' });
      res.write('{"id":');
    });
    let settled = false;
    const pending = u.send('/slow').finally(() => {
      settled = true;
    });
    await turns();
    expect(settled).toBe(false);
    u.deadline();
    const err = await failure(pending);
    expect(err).toBeInstanceOf(ApiError);
    expect((err as ApiError).code).toBe('upstream_timeout');
    await gone;
  });

  it('times out an upstream that never answers', async () => {
    const u = await upstream(() => {});
    const pending = u.send('/never');
    await turns();
    u.deadline();
    expect(((await failure(pending)) as ApiError).status).toBe(504);
  });

  it('cancels the request and the body read when the browser leaves', async () => {
    let gone: Promise<void> | undefined;
    const u = await upstream((req, res) => {
      gone = closed(req);
      res.writeHead(200);
      res.write('{"partial":');
    });
    const browser = new AbortController();
    const pending = u.send('/resolve', browser.signal);
    await turns();
    browser.abort();
    expect(await failure(pending)).toBeInstanceOf(ClientGone);
    await gone;
    await expect(u.send('/resolve', browser.signal)).rejects.toBeInstanceOf(ClientGone);
  });

  it('refuses a body declared over the cap at its headers, before reading it, and drops the socket', async () => {
    let body: ReturnType<typeof trickle> | undefined;
    let gone: Promise<void> | undefined;
    const u = await upstream((req, res) => {
      gone = closed(req);
      res.writeHead(200, {
        'Content-Type': 'application/json',
        'Content-Length': String(MAX_BODY_BYTES + 1),
      });
      body = trickle(req, res, MAX_BODY_BYTES + 1);
    });
    const err = await failure(u.send('/declared'));
    expect((err as ApiError).code).toBe('upstream_invalid');
    // Refused on its word: far less than the cap had come when it was.
    expect(body?.sent).toBeLessThan(MAX_BODY_BYTES / 2);
    await gone;
  });

  it('refuses a body trickled past the cap with no Content-Length as soon as it passes, and drops the socket', async () => {
    let body: ReturnType<typeof trickle> | undefined;
    let gone: Promise<void> | undefined;
    const u = await upstream((req, res) => {
      gone = closed(req);
      // No Content-Length (chunked): only counting what arrives can tell.
      res.writeHead(200, { 'Content-Type': 'application/json' });
      body = trickle(req, res, 2 * MAX_BODY_BYTES);
    });
    const err = await failure(u.send('/streamed'));
    expect((err as ApiError).code).toBe('upstream_invalid');
    // Refused once past the cap, while the upstream was still sending: the rest was never waited for nor held.
    expect(body?.sent).toBeGreaterThan(MAX_BODY_BYTES);
    expect(body?.ended).toBe(false);
    await gone;
    expect(body?.sent).toBeLessThan(2 * MAX_BODY_BYTES);
  });

  it('answers 429 and 5xx at once without reading their bodies', async () => {
    const u = await upstream((req, res) => {
      res.writeHead(req.url === '/limited' ? 429 : 503, { 'X-RateLimit-Reset': '30' });
      res.write('a body that never ends');
    });
    const limited = await u.send('/limited');
    expect(limited).toMatchObject({ status: 429, text: '' });
    expect(limited.headers.get('x-ratelimit-reset')).toBe('30');
    expect(await u.send('/down')).toMatchObject({ status: 503, text: '' });
  });

  it('names why there was no answer: refused, reset, cut short, redirected', async () => {
    const u = await upstream((req, res) => {
      if (req.url === '/reset') return req.socket.destroy();
      if (req.url === '/cut') {
        res.writeHead(200, { 'Content-Length': '100' });
        res.write('{"id":', () => req.socket.destroy());
        return;
      }
      res.writeHead(302, { Location: 'http://elsewhere.example/' });
      res.end();
    });
    const reasons = [];
    for (const path of ['/reset', '/cut', '/moved']) {
      const err = await failure(u.send(path));
      expect(err).toBeInstanceOf(TransportFailure);
      reasons.push((err as TransportFailure).reason);
    }
    expect(reasons).toEqual(['reset', 'body_cut', 'redirect']);

    const { server, pool } = open[0] as (typeof open)[number];
    server.closeAllConnections();
    await new Promise((r) => server.close(r));
    const refused = await failure(pool.send({ url: `${u.base}/x`, headers: {}, timeoutMs: 5000 }));
    expect((refused as TransportFailure).reason).toBe('refused');
  });

  it('never sends to another origin (the key goes only to the configured upstream)', async () => {
    const u = await upstream((_req, res) => res.end('{}'));
    const { pool } = open[0] as (typeof open)[number];
    await expect(
      pool.send({ url: 'http://evil.example/auth/me', headers: {}, timeoutMs: 5000 }),
    ).rejects.toThrow(/outside/);
    expect(u.connections()).toBe(0);
  });
});
