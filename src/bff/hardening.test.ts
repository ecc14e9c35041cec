import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { ApiErrorBody, ResolveResponse, SearchResponse } from '../contract/index.ts';
import { hashKey } from './stores/sessions/types.ts';
import { createHarness, fakeUpstream, PRO_KEY } from './test-support/harness.ts';
import type { UpstreamHandler } from './test-support/in-process-upstream.ts';

const record = (extra: Record<string, unknown> = {}) => ({
  id: 'p1',
  address: '1 Main St, Austin, TX 78701',
  source: 'Travis County Assessor',
  confidence: 'high',
  last_verified: '2026-10-01',
  ...extra,
});
const rateHeaders = { 'x-ratelimit-limit': '100', 'x-ratelimit-remaining': '99', 'x-ratelimit-reset': '30' };

/** An upstream that sends its headers at once and then its body one byte per second. */
function tricklingUpstream(onCancel: () => void): UpstreamHandler {
  return (async (request: Request) => {
    const url = new URL(request.url);
    if (url.pathname.endsWith('/auth/me')) {
      return new Response(JSON.stringify({ name: 'Slow Co', plan: 'enterprise' }), {
        headers: { 'content-type': 'application/json', ...rateHeaders },
      });
    }
    const bytes = new TextEncoder().encode(JSON.stringify(record()));
    let i = 0;
    let cancelled = false;
    const body = new ReadableStream<Uint8Array>({
      pull: (controller) =>
        new Promise<void>((resolve) =>
          setTimeout(() => {
            if (cancelled) return resolve();
            if (i < bytes.length) controller.enqueue(bytes.slice(i, ++i));
            else controller.close();
            resolve();
          }, 1000),
        ),
      cancel: () => {
        cancelled = true;
        onCancel();
      },
    });
    return new Response(body, { headers: { 'content-type': 'application/json', ...rateHeaders } });
  }) satisfies UpstreamHandler;
}

describe('an upstream that trickles its body', () => {
  beforeEach(() => vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'Date'] }));
  afterEach(() => vi.useRealTimers());

  it('is cut off at the timeout, body included: 504, and the upstream read is cancelled', async () => {
    let cancelled = false;
    const h = createHarness({
      fetch: tricklingUpstream(() => {
        cancelled = true;
      }),
      upstream: { timeoutMs: 2000, retries: 0 },
    });
    await h.signIn();
    const pending = h.resolve('1 Main St, Austin, TX');
    await vi.advanceTimersByTimeAsync(2_100);
    const res = await pending;
    const errBody = await res.clone().text();
    expect(res.status, errBody).toBe(504);
    expect(ApiErrorBody.parse(await res.json()).error.code).toBe('upstream_timeout');
    expect(cancelled).toBe(true);
  });

  it('stops reading when the browser leaves mid-body', async () => {
    let cancelled = false;
    const h = createHarness({
      fetch: tricklingUpstream(() => {
        cancelled = true;
      }),
      upstream: { timeoutMs: 60_000 },
    });
    await h.signIn();
    const browser = new AbortController();
    const pending = h
      .call('/api/properties/resolve?address=1%20Main%20St', { signal: browser.signal })
      .catch(() => null);
    await vi.advanceTimersByTimeAsync(3_000); // headers are in, the body is trickling
    browser.abort();
    await vi.advanceTimersByTimeAsync(1_100);
    await pending;
    expect(cancelled).toBe(true);
  });
});

describe('field names from Object.prototype', () => {
  const hostile = {
    constructor: 'x',
    toString: 'y',
    valueOf: 3,
    hasOwnProperty: true,
    __proto__: { polluted: true },
    prototype: 'z',
  };

  it('are ignored or kept as data in a record, never a 500', async () => {
    const h = createHarness({
      fetch: fakeUpstream(
        () => JSON.parse(JSON.stringify(record()).replace('{', `{${JSON.stringify(hostile).slice(1, -1)},`)),
        rateHeaders,
      ),
    });
    await h.signIn();
    const res = await h.resolve('1 Main St, Austin, TX');
    expect(res.status).toBe(200);
    const { property } = ResolveResponse.parse(await res.json());
    expect(property.id).toBe('p1');
    expect(Object.getPrototypeOf(property.attributes.other ?? {})).toBe(Object.prototype);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });

  it('do not fail a search page', async () => {
    const h = createHarness({
      fetch: fakeUpstream(
        () => ({
          data: [
            record(),
            JSON.parse(
              `{"constructor":{"a":1},"toString":"t",${JSON.stringify(record({ id: 'p2' })).slice(1)}`,
            ),
          ],
        }),
        rateHeaders,
      ),
    });
    await h.signIn();
    const res = await h.call('/api/properties/search?q=main');
    expect(res.status).toBe(200);
    expect(SearchResponse.parse(await res.json()).items.map((p) => p.id)).toEqual(['p1', 'p2']);
  });

  it('in an error body or as the id field name are read safely', async () => {
    const h = createHarness({
      upstream: { idField: 'constructor' },
      fetch: fakeUpstream(
        () => ({
          toString: 'x',
          source: 'A County Assessor',
          confidence: 'high',
          last_verified: '2026-01-01',
        }),
        rateHeaders,
      ),
    });
    await h.signIn();
    const res = await h.resolve('1 Main St');
    expect(res.status).toBe(502);
    expect(ApiErrorBody.parse(await res.json()).error.code).toBe('upstream_invalid');
  });
});

/** An upstream that refuses with a message echoing what it was sent: headers and URL. */
function echoingUpstream(status: number): UpstreamHandler {
  return (async (request: Request) => {
    const url = new URL(request.url);
    const headers = request.headers;
    if (url.pathname.endsWith('/auth/me')) {
      return new Response(JSON.stringify({ name: 'Echo Co', plan: 'enterprise' }), {
        headers: { 'content-type': 'application/json', ...rateHeaders },
      });
    }
    const message = `Bad request ${url.toString()} authorization=${headers.get('authorization')} key=${headers.get('x-api-key')}`;
    return new Response(
      JSON.stringify({ error: { code: 'bad', message }, candidates: [{ id: 'c1', address: message }] }),
      {
        status,
        headers: { 'content-type': 'application/json', ...rateHeaders },
      },
    );
  }) satisfies UpstreamHandler;
}

describe('an upstream that echoes the key in its error', () => {
  it.each([
    ['bearer', { kind: 'bearer' as const }, 400],
    ['header', { kind: 'header' as const, name: 'X-API-Key' }, 422],
    ['query', { kind: 'query' as const, name: 'api_key' }, 400],
    ['query, in candidates', { kind: 'query' as const, name: 'api_key' }, 404],
  ])('never hands it to the browser (%s auth)', async (_name, auth, status) => {
    const h = createHarness({ fetch: echoingUpstream(status), upstream: { auth } });
    await h.signIn();
    const res = await h.resolve('1 Main St');
    const text = await res.text();
    // A 404 is "not found", answered as a 200 with its candidates; the others are bad requests.
    expect(res.status).toBe(status === 404 ? 200 : 400);
    expect(text).not.toContain(PRO_KEY);
    expect(text).not.toContain(encodeURIComponent(PRO_KEY));
    expect(h.logs.join('\n')).not.toContain(PRO_KEY);
  });

  it('redacts a key that URL-encoding changes, as sent and as encoded, from the answer and the logs', async () => {
    // In a query the key travels encoded: an echo of the URL carries "pi%2Blive%2F..." rather than the key.
    const key = 'pi+live/key=a&b?c#d';
    expect(encodeURIComponent(key)).not.toBe(key);
    const h = createHarness({
      fetch: echoingUpstream(400),
      upstream: { auth: { kind: 'query', name: 'api_key' } },
      logLevel: 'debug',
    });
    expect((await h.signIn(key)).status).toBe(200);
    const res = await h.resolve('1 Main St');
    const text = await res.text();
    const logs = h.logs.join('\n');
    for (const form of [key, encodeURIComponent(key), new URLSearchParams({ k: key }).toString().slice(2)]) {
      expect(text).not.toContain(form);
      expect(logs).not.toContain(form);
    }
    expect(logs).toContain('[redacted]');
  });

  it('keeps the upstream’s own words in the log for the operator', async () => {
    const h = createHarness({ fetch: echoingUpstream(422) });
    await h.signIn();
    await h.resolve('1 Main St');
    const line = h.logs.find((l) => l.includes('upstream refused'));
    expect(line).toContain('Bad request');
    expect(line).toContain('[redacted]');
  });
});

describe('the rate-limit wait bound', () => {
  beforeEach(() =>
    vi.useFakeTimers({
      toFake: ['setTimeout', 'clearTimeout', 'Date'],
      now: new Date('2026-11-22T12:00:00Z'),
    }),
  );
  afterEach(() => vi.useRealTimers());

  it('bounds the whole request, not each wait: two 15 s resets under a 20 s setting answer 429 after the first', async () => {
    let calls = 0;
    const fetchFn = (async (request: Request) => {
      const url = new URL(request.url);
      if (url.pathname.endsWith('/auth/me')) {
        return new Response(JSON.stringify({ name: 'Busy Co', plan: 'enterprise' }), {
          headers: {
            'content-type': 'application/json',
            'x-ratelimit-limit': '100',
            'x-ratelimit-remaining': '50',
            'x-ratelimit-reset': '60',
          },
        });
      }
      calls++;
      return new Response('{}', {
        status: 429,
        headers: { 'x-ratelimit-limit': '100', 'x-ratelimit-remaining': '0', 'x-ratelimit-reset': '15' },
      });
    }) satisfies UpstreamHandler;
    const h = createHarness({ fetch: fetchFn, upstream: { maxRateLimitWaitMs: 20_000 } });
    await h.signIn();
    const started = Date.now();
    const pending = h.resolve('1 Main St');
    let done = false;
    void pending.then(() => {
      done = true;
    });
    await vi.advanceTimersByTimeAsync(14_000);
    expect(done).toBe(false); // waiting out the first reset
    await vi.advanceTimersByTimeAsync(2_000);
    // One wait of 15 s, then the second reset would end past 20 s in all: refused at once, not held 30 s.
    expect(done).toBe(true);
    const res = await pending;
    expect(res.status).toBe(429);
    expect(calls).toBe(2);
    expect(Date.now() - started).toBeLessThanOrEqual(16_000);
  });

  it('waits out a 429 storm per its reset: every request succeeds, none amplified into 429s', async () => {
    const h = createHarness({ faults: 'storm=0.3,seed=3', rateLimit: { requests: 1000, seconds: 60 } });
    let signedIn = false;
    for (let i = 0; i < 10 && !signedIn; i++) {
      const p = h.signIn();
      await vi.advanceTimersByTimeAsync(20_000);
      signedIn = (await p).status === 200;
    }
    expect(signedIn).toBe(true);
    const started = Date.now();
    const pending = Array.from({ length: 20 }, (_, i) =>
      h.call(`/api/properties/search?q=${100 + i}%20main`),
    );
    await vi.advanceTimersByTimeAsync(60_000);
    const statuses = await Promise.all(pending.map(async (p) => (await p).status));
    expect(statuses.filter((s) => s !== 200)).toEqual([]);
    // The storm's 429s were waited out (3 s resets), not retried at once.
    expect(Date.now() - started).toBeGreaterThanOrEqual(3_000);
  });
});

describe('HTTP hygiene', () => {
  it('answers 405 with an Allow header', async () => {
    const h = createHarness();
    for (const [path, method, allow] of [
      ['/api/session', 'PUT', 'POST, GET, HEAD, DELETE'],
      ['/api/properties/resolve', 'POST', 'GET, HEAD'],
    ] as const) {
      const res = await h.call(path, { method });
      expect(res.status).toBe(405);
      expect(res.headers.get('allow')).toBe(allow);
    }
  });

  it('never lets /api answers be cached', async () => {
    const h = createHarness();
    for (const res of [
      await h.call('/api/config'),
      await h.resolve('1 Main St'),
      await h.call('/api/nope'),
    ]) {
      expect(res.headers.get('cache-control')).toBe('no-store');
    }
  });

  it('answers /readyz from a brief cache, not an upstream request per hit', async () => {
    const h = createHarness();
    for (let i = 0; i < 10; i++) expect((await h.app.request('/readyz')).status).toBe(200);
    expect(h.upstreamRequests.filter((u) => u.pathname.endsWith('/auth/me'))).toHaveLength(1);
  });

  it('logs why an upstream attempt failed, so a refused connection is told from a timeout', async () => {
    const refused = (async () => {
      throw Object.assign(new TypeError('fetch failed'), { cause: { code: 'ECONNREFUSED' } });
    }) satisfies UpstreamHandler;
    const h = createHarness({ fetch: refused, sleep: async () => {} });
    const res = await h.signIn();
    expect(res.status).toBe(502);
    const failures = h.logs.filter((l) => l.includes('upstream attempt failed'));
    expect(failures).toHaveLength(3); // the first attempt and two retries
    expect(failures[0]).toContain('"cause":"refused"');
    expect(failures[0]).toContain('"path":"/auth/me"');
  });

  it('answers an aborted request body without a 500 or an error-level log', async () => {
    const h = createHarness();
    const controller = new AbortController();
    const body = new ReadableStream<Uint8Array>({
      start(c) {
        c.enqueue(new TextEncoder().encode('{"apiKey":"pi_'));
        setTimeout(() => {
          controller.abort();
          c.error(new Error('aborted'));
        }, 5);
      },
    });
    const res = await Promise.resolve(
      h.app.request('/api/session', {
        method: 'POST',
        headers: { 'Content-Type': 'application/json', 'X-Requested-With': 'proplens' },
        body,
        signal: controller.signal,
        duplex: 'half',
      } as RequestInit),
    ).catch(() => null);
    expect(res?.status ?? 499).not.toBe(500);
    expect(h.logs.some((l) => /"level":(50|60)/.test(l))).toBe(false);
  });
});

describe('search cursors', () => {
  it('refuses a cursor altered in any byte, even with the right query and account', async () => {
    const h = createHarness();
    await h.signIn();
    const first = SearchResponse.parse(await (await h.call('/api/properties/search?q=main')).json());
    const cursor = first.nextCursor ?? '';
    // The highest of the six bits a character carries: the last character's low bits may be padding, which a
    // decoder drops (changing 'B' to 'A' there altered nothing, and the test failed now and then).
    const B64 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';
    for (const at of [0, Math.floor(cursor.length / 2), cursor.length - 1]) {
      const flipped = B64[B64.indexOf(cursor[at] as string) ^ 32] as string;
      const altered = cursor.slice(0, at) + flipped + cursor.slice(at + 1);
      const res = await h.call(`/api/properties/search?q=main&cursor=${encodeURIComponent(altered)}`);
      expect(res.status).toBe(400);
    }
    expect((await h.call(`/api/properties/search?q=main&cursor=${encodeURIComponent(cursor)}`)).status).toBe(
      200,
    );
  });

  it("tells a client nothing: neither the service's own cursor nor anything of the key", async () => {
    const h = createHarness();
    await h.signIn();
    const first = SearchResponse.parse(await (await h.call('/api/properties/search?q=main')).json());
    const cursor = first.nextCursor ?? '';
    await h.call(`/api/properties/search?q=main&cursor=${encodeURIComponent(cursor)}`);
    const upstreamCursor = h.upstreamRequests.at(-1)?.searchParams.get('cursor') ?? '';
    expect(upstreamCursor.length).toBeGreaterThan(4);
    const readable = Buffer.from(cursor, 'base64url').toString('latin1');
    expect(readable).not.toContain(upstreamCursor);
    expect(cursor).not.toContain(upstreamCursor);
    expect(readable).not.toContain(hashKey(PRO_KEY).slice(0, 16));
    // Sealed afresh each time: the same page's cursor never repeats, so it cannot be matched across answers.
    const again = SearchResponse.parse(await (await h.call('/api/properties/search?q=main')).json());
    expect(again.nextCursor).not.toBe(cursor);
  });

  it('refuses a cursor replayed under another account', async () => {
    const h = createHarness();
    await h.signIn(PRO_KEY);
    const first = SearchResponse.parse(await (await h.call('/api/properties/search?q=main')).json());
    expect(first.nextCursor).toEqual(expect.any(String));
    await h.signIn('pi_demo_enterprise');
    const res = await h.call(
      `/api/properties/search?q=main&cursor=${encodeURIComponent(first.nextCursor ?? '')}`,
    );
    expect(res.status).toBe(400);
    // The same cursor still works for the account it was issued to.
    await h.signIn(PRO_KEY);
    expect(
      (await h.call(`/api/properties/search?q=main&cursor=${encodeURIComponent(first.nextCursor ?? '')}`))
        .status,
    ).toBe(200);
  });
});

describe('a session cookie that no longer names a session', () => {
  it('is answered 401 and cleared (Max-Age=0), so the browser stops sending it', async () => {
    const h = createHarness();
    await h.signIn();
    const dead = h.cookie;
    expect((await h.call('/api/session', { method: 'DELETE' })).status).toBe(204);
    const res = await h.call('/api/properties/resolve?address=1%20Main%20St', { headers: { cookie: dead } });
    expect(res.status).toBe(401);
    expect(ApiErrorBody.parse(await res.json()).error.code).toBe('unauthenticated');
    expect(res.headers.get('set-cookie')).toMatch(/^proplens_session=;.*Max-Age=0/i);
  });

  it('clears nothing when no cookie was sent', async () => {
    const h = createHarness();
    const res = await h.resolve('1 Main St');
    expect(res.status).toBe(401);
    expect(res.headers.get('set-cookie')).toBeNull();
  });
});
