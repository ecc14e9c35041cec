import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { newSecret } from './endpoint-store.ts';
import { RESPONSE_SNIPPET, sendAttempt } from './sender.ts';
import { startReceiver } from './test-support/receiver.ts';

/*
 * One attempt against a real socket on 127.0.0.1: signed so that the receiver's Standard Webhooks library accepts
 * it, and bounded whatever the receiver does (hangs, trickles, redirects, answers 10 MB). The timeout is short here
 * (production: 10 s) so that a hanging receiver costs the test a fraction of a second.
 */

const TIMEOUT = 400;
const secret = newSecret();
const payload = JSON.stringify({ type: 'webhook.test', timestamp: new Date().toISOString(), data: { n: 1 } });
let receiver: Awaited<ReturnType<typeof startReceiver>>;
const timers: NodeJS.Timeout[] = [];
const TEN_MB = Buffer.alloc(10 * 1024 * 1024, 'x');

beforeAll(async () => {
  receiver = await startReceiver((req, res) => {
    if (req.path === '/hang') return; // never answers
    if (req.path === '/trickle') {
      res.writeHead(200, { 'content-type': 'text/plain' });
      timers.push(setInterval(() => res.write('.'), 20));
      return;
    }
    if (req.path === '/redirect') return res.writeHead(302, { location: '/elsewhere' }).end();
    if (req.path === '/huge') {
      res.writeHead(200, { 'content-type': 'text/plain' });
      return res.end(TEN_MB);
    }
    if (req.path === '/fail') return res.writeHead(500).end('{"error":"down"}\u0000');
    res.writeHead(204).end();
  });
});
afterAll(async () => {
  for (const t of timers) clearInterval(t);
  await receiver.close();
});

const send = (url: string, options: Partial<Parameters<typeof sendAttempt>[1]> = {}) =>
  sendAttempt(
    { id: 'msg_0123456789abcdef01234567', url, secret, payload },
    { allowPrivate: true, timeoutMs: TIMEOUT, ...options },
  );

describe('sendAttempt', () => {
  it('signs per Standard Webhooks: the receiver verifies id, timestamp and signature with the secret', async () => {
    const result = await send(receiver.url('/ok'));
    expect(result).toMatchObject({ delivered: true, statusCode: 204, error: null });
    const got = receiver.received.find((r) => r.path === '/ok');
    expect(got?.headers['webhook-id']).toBe('msg_0123456789abcdef01234567');
    expect(got?.body).toBe(payload);
    expect(new Webhook(secret).verify(got?.body ?? '', got?.headers ?? {})).toEqual(JSON.parse(payload));
    // Another secret, or a changed byte, does not verify.
    expect(() => new Webhook(newSecret()).verify(got?.body ?? '', got?.headers ?? {})).toThrow();
    expect(() => new Webhook(secret).verify(`${got?.body} `, got?.headers ?? {})).toThrow();
  });

  it('signs the very second its webhook-timestamp header says, when the clock crosses a second meanwhile', async () => {
    // The clock stands 0.5 ms before a whole second and moves 1 ms while the body is signed.
    const second = Math.floor(Date.now() / 1000) + 1;
    vi.useFakeTimers({ toFake: ['Date'], now: second * 1000 - 0.5 });
    const sign = Webhook.prototype.sign;
    const spy = vi.spyOn(Webhook.prototype, 'sign').mockImplementation(function (this: Webhook, ...args) {
      const signed = sign.apply(this, args);
      vi.setSystemTime(Date.now() + 1);
      return signed;
    });
    try {
      const result = await send(receiver.url('/straddle'));
      expect(result.delivered).toBe(true);
      const got = receiver.received.find((r) => r.path === '/straddle');
      expect(Number(got?.headers['webhook-timestamp'])).toBe(second - 1);
      expect(new Webhook(secret).verify(got?.body ?? '', got?.headers ?? {})).toEqual(JSON.parse(payload));
    } finally {
      spy.mockRestore();
      vi.useRealTimers();
    }
  });

  it('connects to the address it checked: the name is not looked up again', async () => {
    // receiver.invalid resolves nowhere but through the checked answer: the connection uses that address.
    const result = await send(`http://receiver.invalid:${receiver.port}/pinned`, {
      resolve: async () => [{ address: '127.0.0.1', family: 4 }],
    });
    expect(result.delivered).toBe(true);
    expect(receiver.received.find((r) => r.path === '/pinned')?.headers.host).toBe(
      `receiver.invalid:${receiver.port}`,
    );
  });

  it('refuses a private address without WEBHOOK_ALLOW_PRIVATE_NETWORKS, before any connection', async () => {
    const before = receiver.received.length;
    const result = await send(receiver.url('/private'), { allowPrivate: false });
    expect(result).toMatchObject({ delivered: false, statusCode: null });
    expect(result.error).toMatch(/^Refused: .*127\.0\.0\.1/);
    expect(receiver.received.length).toBe(before);
  });

  it('gives up on a receiver that never answers, or trickles its answer, at the timeout', async () => {
    for (const path of ['/hang', '/trickle']) {
      const result = await send(receiver.url(path));
      expect(result.delivered, path).toBe(false);
      expect(result.error, path).toMatch(/No answer within 0.4 s/);
      expect(result.durationMs, path).toBeLessThan(TIMEOUT + 1_000);
    }
  });

  it('counts DNS in the timeout: a resolver that never answers ends the attempt at the deadline', async () => {
    const started = Date.now();
    const result = await send('https://slow-dns.example/hook', {
      allowPrivate: false,
      resolve: () => new Promise(() => {}),
    });
    expect(result).toMatchObject({ delivered: false, statusCode: null });
    expect(result.error).toMatch(/No answer within 0.4 s/);
    expect(Date.now() - started).toBeLessThan(TIMEOUT + 1_000);
  });

  it('does not follow a redirect: a 3xx is a failed attempt, logged', async () => {
    const result = await send(receiver.url('/redirect'));
    expect(result).toMatchObject({ delivered: false, statusCode: 302 });
    expect(result.error).toMatch(/Redirect \(302\) not followed/);
    expect(receiver.received.some((r) => r.path === '/elsewhere')).toBe(false);
  });

  it('reads at most 64 KB of a 10 MB answer and keeps 1 KB of it', async () => {
    // Not a test of the timeout: a loaded machine may take a while to write its first bytes.
    const result = await send(receiver.url('/huge'), { timeoutMs: 5_000 });
    expect(result).toMatchObject({ delivered: true, statusCode: 200 });
    expect(result.response?.length).toBe(RESPONSE_SNIPPET);
  });

  it('logs a refusal status with the start of the answer, NUL made harmless', async () => {
    const result = await send(receiver.url('/fail'));
    expect(result).toMatchObject({ delivered: false, statusCode: 500, error: 'The receiver answered 500.' });
    expect(result.response).toBe('{"error":"down"}\uFFFD');
  });
});
