import { describe, expect, it } from 'vitest';
import { AccountDirectory, DEMO_KEYS } from '../../reference/accounts.ts';
import { createHarness, PRO_KEY } from '../test-support/harness.ts';

describe('POST /api/session', () => {
  it('signs in with an eligible key: account in the body, the key only on the server', async () => {
    const h = createHarness();
    const res = await h.signIn();
    expect(res.status).toBe(200);
    const json = await res.json();
    expect(json).toEqual({
      account: { name: 'Harbor & Vale Realty', plan: 'professional' },
      accountId: expect.stringMatching(/^[A-Za-z0-9_-]{22}$/),
      demo: false,
      keyFingerprint: expect.stringMatching(/^[0-9a-f]{8}$/),
      keyName: null,
      rateLimit: { limit: 60, remaining: 59, resetAt: expect.any(String), windowS: expect.any(Number) },
    });
    // The reference's 60 s, stated plainly: observed from whole-second resets it can be 61, which a countdown
    // would show ("resets in 61 s").
    expect(json.rateLimit.windowS).toBe(60);
    const cookie = res.headers.get('set-cookie') ?? '';
    expect(cookie).toMatch(/^proplens_session=[A-Za-z0-9_-]{43};/);
    expect(cookie).toMatch(/HttpOnly/);
    expect(cookie).toMatch(/SameSite=Strict/);
    expect(cookie).toMatch(/Path=\//);
    expect(cookie).not.toContain(PRO_KEY);
  });

  // HSTS is the HTTP server's (http-server.test.ts, behind a trusted proxy).
  it('names the account by the service’s account id: every key of one firm shares it, another firm differs', async () => {
    const h = createHarness();
    const idOf = async (key: string) => {
      h.cookie = '';
      return ((await (await h.signIn(key)).json()) as { accountId: string }).accountId;
    };
    const first = await idOf('pi_demo_professional');
    expect(await idOf('pi_demo_professional_2')).toBe(first);
    expect(await idOf('pi_demo_enterprise')).not.toBe(first);
    // One-way: neither the key, nor the service's own account id.
    expect(first).not.toMatch(/pi_demo|acct_demo/);
  });

  it('gives each demo sign-in a rate budget of its own, in the demo key’s account', async () => {
    const h = createHarness({ demoKeys: [...DEMO_KEYS] });
    const signIn = async () => {
      h.cookie = '';
      return (await (await h.signIn('pi_demo_professional')).json()) as {
        accountId: string;
        demo: boolean;
        rateLimit: { remaining: number };
      };
    };
    const first = await signIn();
    expect(first).toMatchObject({ demo: true, rateLimit: { remaining: 59 } });
    await h.resolve('1100 Congress Ave, Austin, TX');
    await h.resolve('12 Nowhere Rd, Austin, TX');
    // Another visitor: a window of its own, the same account (shared reviews still show in a demo).
    const second = await signIn();
    expect(second).toMatchObject({ demo: true, accountId: first.accountId, rateLimit: { remaining: 59 } });
    // A key that is not a demo key is sent as typed: its sign-ins share its one window.
    const accounts = new AccountDirectory();
    accounts.add('pi_live_firm_key_1', { id: 'acct_firm', name: 'Firm', plan: 'professional' });
    const other = createHarness({ demoKeys: [...DEMO_KEYS], accounts });
    const remaining = async () =>
      ((await (await other.signIn('pi_live_firm_key_1')).json()) as { rateLimit: { remaining: number } })
        .rateLimit.remaining;
    expect(await remaining()).toBe(59);
    expect(await remaining()).toBe(58);
  });

  it('uses a __Host- Secure cookie over HTTPS', async () => {
    const h = createHarness();
    const res = await h.app.request('https://proplens.test/api/session', {
      method: 'POST',
      headers: { 'X-Requested-With': 'proplens', 'Content-Type': 'application/json' },
      body: JSON.stringify({ apiKey: PRO_KEY }),
    });
    expect(res.headers.get('set-cookie')).toMatch(/^__Host-proplens_session=.*Secure/);
  });

  it('reads the session of the cookie its scheme names, whatever else the same header carries, every time', async () => {
    const h = createHarness();
    const signIn = async (origin: string, apiKey: string) => {
      const res = await h.app.request(`${origin}/api/session`, {
        method: 'POST',
        headers: { 'X-Requested-With': 'proplens', 'Content-Type': 'application/json' },
        body: JSON.stringify({ apiKey }),
      });
      return (res.headers.get('set-cookie') ?? '').split(';')[0] as string;
    };
    const plain = await signIn('http://proplens.test', PRO_KEY);
    const secure = await signIn('https://proplens.test', 'pi_demo_enterprise');
    expect(plain).toMatch(/^proplens_session=/);
    expect(secure).toMatch(/^__Host-proplens_session=/);
    // One header with both (a browser that met both schemes); the cookie's value is remembered by its header.
    const planOf = async (origin: string) => {
      const res = await h.app.request(`${origin}/api/session`, {
        headers: { Cookie: `${plain}; ${secure}`, 'X-Requested-With': 'proplens' },
      });
      return ((await res.json()) as { account: { plan: string } }).account.plan;
    };
    for (let round = 0; round < 2; round++) {
      expect(await planOf('http://proplens.test')).toBe('professional');
      expect(await planOf('https://proplens.test')).toBe('enterprise');
    }
  });

  it.each([
    ['an unknown key', 'pi_not_a_key', 401, 'invalid_key', /not accepted/],
    [
      'a starter-plan key',
      'pi_demo_starter',
      403,
      'plan_not_eligible',
      /professional or enterprise.*sales@property-intelligence\.example/,
    ],
  ])('refuses %s with a message saying what to do', async (_name, apiKey, status, code, message) => {
    const h = createHarness();
    const res = await h.signIn(apiKey);
    expect(res.status).toBe(status);
    const body = (await res.json()) as { error: { code: string; message: string } };
    expect(body.error.code).toBe(code);
    expect(body.error.message).toMatch(message);
    expect(res.headers.get('set-cookie')).toBeNull();
  });

  it.each([
    ['no body', undefined, 400],
    ['not JSON', 'apiKey=x', 400],
    ['a blank key', JSON.stringify({ apiKey: '   ' }), 400],
    ['a key with spaces', JSON.stringify({ apiKey: 'pi demo' }), 400],
    ['an oversized body', JSON.stringify({ apiKey: 'x'.repeat(10_000) }), 413],
  ])('answers %s with a 4xx, never a 5xx', async (_name, raw, status) => {
    const h = createHarness();
    const res = await h.call('/api/session', {
      method: 'POST',
      raw,
      headers: { 'Content-Type': 'application/json' },
    });
    expect(res.status).toBe(status);
    expect(((await res.json()) as { error: { code: string } }).error.code).toBe(
      status === 413 ? 'payload_too_large' : 'bad_request',
    );
  });

  it('answers 502 when the upstream cannot be reached and 504 when it is too slow', async () => {
    const down = createHarness({
      fetch: async () => Promise.reject(new TypeError('fetch failed')),
      sleep: async () => {},
    });
    const res = await down.signIn();
    expect(res.status).toBe(502);
    expect(((await res.json()) as { error: { code: string } }).error.code).toBe('upstream_unavailable');

    const slow = createHarness({
      upstream: { timeoutMs: 100 },
      fetch: (request) =>
        new Promise((_resolve, reject) =>
          request.signal.addEventListener('abort', () => reject(new DOMException('aborted', 'AbortError'))),
        ),
    });
    const res2 = await slow.signIn();
    expect(res2.status).toBe(504);
    expect(((await res2.json()) as { error: { code: string } }).error.code).toBe('upstream_timeout');
  });
});

describe('GET and DELETE /api/session', () => {
  it('answers a first visit (no cookie) 204, nothing the browser logs as an error, and an ended session 401', async () => {
    const h = createHarness();
    const first = await h.call('/api/session');
    expect(first.status).toBe(204);
    expect(await first.text()).toBe('');
    const dead = await h.call('/api/session', { headers: { Cookie: 'proplens_session=gone' } });
    expect(dead.status).toBe(401);
  });

  it('keeps the session across requests and ends it on sign-out; the old id no longer works', async () => {
    const h = createHarness();
    await h.signIn();
    const oldCookie = h.cookie;
    const current = await h.call('/api/session');
    expect(current.status).toBe(200);
    // The budget comes along, so the header meter is right after a reload too.
    expect(await current.json()).toMatchObject({ rateLimit: { limit: 60, remaining: 59 } });
    const out = await h.call('/api/session', { method: 'DELETE' });
    expect(out.status).toBe(204);
    expect(out.headers.get('set-cookie')).toMatch(/Max-Age=0/);
    const again = await h.call('/api/session', { headers: { cookie: oldCookie } });
    expect(again.status).toBe(401);
    expect(((await again.json()) as { error: { code: string } }).error.code).toBe('unauthenticated');
  });

  it('gives a new session id on every sign-in and ends the previous one', async () => {
    const h = createHarness();
    await h.signIn();
    const first = h.cookie;
    await h.signIn();
    expect(h.cookie).not.toBe(first);
    expect((await h.call('/api/session', { headers: { cookie: first } })).status).toBe(401);
  });

  it('ends the session when the upstream stops accepting its key', async () => {
    const accounts = new AccountDirectory();
    accounts.add('pi_soon_revoked', { id: 'x', name: 'Revoked Co', plan: 'professional' });
    const h = createHarness({ accounts });
    await h.signIn('pi_soon_revoked');
    accounts.revoke('pi_soon_revoked');
    const res = await h.resolve('1100 Congress Ave, Austin, TX');
    expect(res.status).toBe(401);
    expect(((await res.json()) as { error: { code: string } }).error.code).toBe('unauthenticated');
    expect((await h.call('/api/session')).status).toBe(401);
  });
});

describe('CSRF and hostile origins', () => {
  it('refuses any /api request without X-Requested-With: proplens', async () => {
    const h = createHarness();
    const res = await h.app.request('/api/config');
    expect(res.status).toBe(403);
    expect(await res.json()).toEqual({ error: { code: 'csrf', message: expect.any(String) } });
  });

  it.each([['XMLHttpRequest'], ['Proplens'], ['proplens2']])(
    'refuses X-Requested-With: %s (the value matters, not only the name)',
    async (value) => {
      const h = createHarness();
      const res = await h.call('/api/config', { headers: { 'X-Requested-With': value } });
      expect(res.status).toBe(403);
      expect(((await res.json()) as { error: { code: string } }).error.code).toBe('csrf');
      expect((await h.call('/api/config')).status).toBe(200);
    },
  );

  it.each([['https://evil.example'], ['null'], ['http://localhost.evil.example']])(
    'refuses Origin %s',
    async (origin) => {
      const h = createHarness();
      const res = await h.call('/api/session', {
        method: 'POST',
        body: { apiKey: PRO_KEY },
        headers: { Origin: origin },
      });
      expect(res.status).toBe(403);
      expect(((await res.json()) as { error: { code: string } }).error.code).toBe('csrf');
    },
  );

  it('accepts its own origin, and refuses cross-site fetch metadata', async () => {
    const h = createHarness();
    expect(
      (await h.call('/api/config', { headers: { Origin: 'http://localhost', Host: 'localhost' } })).status,
    ).toBe(200);
    expect((await h.call('/api/config', { headers: { 'Sec-Fetch-Site': 'cross-site' } })).status).toBe(403);
  });
});

describe('keys stay secret', () => {
  it('never writes the key to a log line, a response body or a header', async () => {
    const h = createHarness();
    const bodies: string[] = [];
    const headers: string[] = [];
    const record = async (res: Response) => {
      bodies.push(await res.text());
      headers.push(JSON.stringify([...res.headers]));
    };
    await record(await h.signIn());
    await record(await h.resolve('1100 Congress Ave, Austin, TX'));
    await record(await h.call('/api/properties/search?q=main'));
    await record(await h.signIn('pi_demo_starter'));
    await record(await h.signIn('pi_wrong_key_123'));
    expect(h.logs.length).toBeGreaterThan(3);
    for (const text of [...h.logs, ...bodies, ...headers]) {
      for (const key of [PRO_KEY, 'pi_demo_starter', 'pi_wrong_key_123']) expect(text).not.toContain(key);
    }
  });

  it('redacts key-shaped fields should any code ever log them', async () => {
    const { createLogger } = await import('../logger.ts');
    const lines: string[] = [];
    const logger = createLogger('info', { write: (l: string) => void lines.push(l) });
    logger.info({ apiKey: PRO_KEY, headers: { authorization: `Bearer ${PRO_KEY}` } }, 'oops');
    // The line is written, with its fields in place and censored (not dropped, nor the line left out).
    expect(lines).toHaveLength(1);
    expect(JSON.parse(lines[0] as string)).toMatchObject({
      msg: 'oops',
      apiKey: '[redacted]',
      headers: { authorization: '[redacted]' },
    });
    expect(lines.join('')).not.toContain(PRO_KEY);
  });
});

describe('hardening', () => {
  // The security headers are set by the HTTP server, not the app: http-server.test.ts checks them over real HTTP.
  it('gives every response a request id', async () => {
    const h = createHarness();
    for (const res of [
      await h.app.request('/healthz'),
      await h.call('/api/config'),
      await h.app.request('/api/nope'),
    ]) {
      expect(res.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/);
    }
  });

  it('keeps a well-formed request id from a proxy in front, logs it with the request, and replaces a bad one', async () => {
    const h = createHarness();
    const kept = await h.app.request('/healthz', { headers: { 'X-Request-Id': 'lb-7f3a_9=' } });
    expect(kept.headers.get('x-request-id')).toBe('lb-7f3a_9=');
    const line = JSON.parse(h.logs.find((l) => l.includes('"requestId":"lb-7f3a_9="')) ?? '{}');
    expect(line).toMatchObject({ msg: 'request', method: 'GET', path: '/healthz', status: 200 });
    for (const bad of ['has spaces', 'x'.repeat(65), '<script>']) {
      const res = await h.app.request('/healthz', { headers: { 'X-Request-Id': bad } });
      expect(res.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/);
    }
  });

  it.each([
    ['PUT', '/api/session', 405, 'method_not_allowed'],
    ['PATCH', '/api/properties/resolve?address=x', 405, 'method_not_allowed'],
    ['GET', '/api/unknown', 404, 'not_found'],
  ])('answers %s %s with %i in the error shape', async (method, path, status, code) => {
    const h = createHarness();
    await h.signIn();
    const res = await h.call(path, { method });
    expect(res.status).toBe(status);
    expect(((await res.json()) as { error: { code: string } }).error.code).toBe(code);
  });

  it('reports health without a session, and readiness from the upstream', async () => {
    expect((await createHarness().app.request('/healthz')).status).toBe(200);
    expect((await createHarness().app.request('/readyz')).status).toBe(200);
    const down = createHarness({ fetch: async () => Promise.reject(new TypeError('fetch failed')) });
    expect((await down.app.request('/readyz')).status).toBe(503);
  });
});
