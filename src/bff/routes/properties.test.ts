import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { ApiErrorBody, ResolveMiss, ResolveResponse, SearchResponse } from '../../contract/index.ts';
import {
  type Dialect,
  describeDialect,
  representativeDialects,
  singleChangeDialects,
} from '../../reference/dialect.ts';
import { createHarness, fakeUpstream } from '../test-support/harness.ts';

type Json = Record<string, any>;
const body = async (res: Response) => (await res.json()) as Json;
/** No one record is an answer, not a failure: 200, with why (a 404 or 409 would be a console error). */
const missOf = async (res: Response) => {
  expect(res.status).toBe(200);
  return ResolveMiss.parse(await res.json()).miss;
};

describe.each(representativeDialects().map((d) => [describeDialect(d), d] as [string, Dialect]))(
  'against the reference in dialect %s',
  (_name, dialect) => {
    it('signs in, resolves, and reports the same record whatever the wire format', async () => {
      const h = createHarness({ dialect });
      expect((await h.signIn()).status).toBe(200);
      const res = await h.resolve('1100 congress avenue, austin tx');
      expect(res.status).toBe(200);
      const parsed = ResolveResponse.parse(await res.json());
      expect(parsed.property).toMatchObject({
        address: '1100 Congress Ave, Austin, TX 78701',
        source: 'Travis Central Appraisal District',
        sourceKind: 'assessor',
        confidence: 'high',
        lastVerified: '2026-10-20',
      });
      expect(parsed.property.id).toMatch(/^pi_/);
      expect(parsed.property.attributes).toMatchObject({
        city: 'Austin',
        state: 'TX',
        zip: '78701',
        county: 'Travis County',
      });
      expect(parsed.rateLimit).toMatchObject({ limit: 60, remaining: 58 });
      expect(Date.parse(parsed.rateLimit?.resetAt ?? '')).toBeGreaterThan(Date.now());
    });

    it('maps ambiguous, unknown and unit-less answers to stable codes, answered as 200s', async () => {
      const h = createHarness({ dialect });
      await h.signIn();
      const a = await missOf(await h.resolve('100 Main St'));
      expect(a.code).toBe('ambiguous');
      if (dialect.errors !== 'text') expect(a.candidates?.length).toBeGreaterThan(1);
      expect((await missOf(await h.resolve('99999 Nowhere Rd, Austin, TX'))).code).toBe('not_found');
      // Why, where the service said (a plain-text dialect has no fields to say it in).
      const street = await missOf(await h.resolve('12 Zzyzzx Qqvvort Rd, Austin, TX'));
      expect(street.reason).toBe(dialect.errors === 'text' ? undefined : 'no_such_street');
      const unit = await missOf(await h.resolve('615 Bourbon St Apt 9, New Orleans, LA 70116'));
      // Plain text cannot say it was the unit that was missing: a plain not-found then.
      expect(unit.code).toBe(dialect.errors === 'text' ? 'not_found' : 'unit_not_found');
    });

    it('pages search results through its own signed cursor', async () => {
      const h = createHarness({ dialect });
      await h.signIn();
      const first = SearchResponse.parse(await (await h.call('/api/properties/search?q=main')).json());
      expect(first.items).toHaveLength(20);
      expect(first.nextCursor).toEqual(expect.any(String));
      const second = SearchResponse.parse(
        await (
          await h.call(`/api/properties/search?q=main&cursor=${encodeURIComponent(first.nextCursor ?? '')}`)
        ).json(),
      );
      const ids = new Set(first.items.map((p) => p.id));
      expect(second.items.some((p) => ids.has(p.id))).toBe(false);
    });

    it('with faults injected, every answer is right or an honest 502/504, never wrong data and never a 500', async () => {
      const h = createHarness({
        dialect,
        faults: 'error=0.25,malformed=0.1,drop=0.05,seed=9',
        sleep: async () => {},
        rateLimit: { requests: 1000, seconds: 60 },
      });
      let signedIn = false;
      for (let i = 0; i < 5 && !signedIn; i++) signedIn = (await h.signIn()).status === 200;
      expect(signedIn).toBe(true);
      const statuses: number[] = [];
      for (let i = 0; i < 30; i++) {
        const res = await h.resolve(`1100 Congress Ave, Austin, TX ${i % 2 ? '78701' : ''}`);
        statuses.push(res.status);
        const json = await body(res);
        if (res.status === 200) expect(json.property.source).toBe('Travis Central Appraisal District');
        else expect(['upstream_unavailable', 'upstream_invalid']).toContain(json.error.code);
      }
      // Retries hide most faults: most requests succeed.
      expect(statuses.filter((s) => s === 200).length).toBeGreaterThan(20);
      expect(statuses.every((s) => s === 200 || s === 502)).toBe(true);
    });
  },
);

describe('what reaches the upstream', () => {
  it('only fixed paths, the key where the upstream wants it, and none of the browser’s headers', async () => {
    const h = createHarness();
    await h.signIn();
    await h.call(
      `/api/properties/resolve?address=${encodeURIComponent('1100 Congress Ave, Austin, TX&cursor=x')}`,
      {
        headers: {
          'X-Forwarded-For': '10.0.0.1',
          Referer: 'http://example.com/secret',
          'Accept-Language': 'fr',
        },
      },
    );
    const url = h.upstreamRequests.at(-1) as URL;
    expect(url.pathname).toBe('/properties/resolve');
    expect([...url.searchParams.keys()]).toEqual(['address']);
    expect(url.searchParams.get('address')).toBe('1100 Congress Ave, Austin, TX&cursor=x');
    const headers = h.upstreamHeaders.at(-1) as Headers;
    expect([...headers.keys()].sort()).toEqual(['accept', 'authorization']);
    expect(headers.get('authorization')).toBe('Bearer pi_demo_professional');
  });
});

describe('two accounts asking the same thing at the same moment', () => {
  it('each gets its own upstream call on its own key: identical calls are shared within an account only', async () => {
    const h = createHarness();
    await h.signIn('pi_demo_professional');
    const pro = h.cookie;
    h.cookie = '';
    await h.signIn('pi_demo_enterprise');
    const ent = h.cookie;
    const before = h.upstreamRequests.length;
    const address = '1100 Congress Ave, Austin, TX 78701';
    const ask = (cookie: string) =>
      h.call(`/api/properties/resolve?address=${encodeURIComponent(address)}`, {
        headers: { Cookie: cookie },
      });
    const answers = await Promise.all([ask(pro), ask(ent), ask(pro), ask(ent)]);
    expect(answers.map((r) => r.status)).toEqual([200, 200, 200, 200]);
    const keys = h.upstreamHeaders.slice(before).map((hd) => hd.get('authorization'));
    expect(keys.sort()).toEqual(['Bearer pi_demo_enterprise', 'Bearer pi_demo_professional']);
  });
});

describe('an upstream under a path prefix', () => {
  it('keeps the base URL’s path, e.g. https://host/v2', async () => {
    const h = createHarness({
      upstream: { baseUrl: 'http://provider.test/v2/' },
      fetch: fakeUpstream(() => ({})),
    });
    await h.signIn();
    await h.resolve('1 Main St');
    expect(h.upstreamRequests.map((u) => u.href)).toEqual([
      'http://provider.test/v2/auth/me',
      'http://provider.test/v2/properties/resolve?address=1+Main+St',
    ]);
  });
});

describe.each(singleChangeDialects().map((d) => [describeDialect(d), d] as [string, Dialect]))(
  'with one "not shown" detail changed: %s',
  (_name, dialect) => {
    it('signs in, resolves to the same record, and reports ambiguity with its own code', async () => {
      const h = createHarness({ dialect });
      expect((await h.signIn()).status).toBe(200);
      const parsed = ResolveResponse.parse(await (await h.resolve('1100 Congress Ave, Austin, TX')).json());
      expect(parsed.property).toMatchObject({
        source: 'Travis Central Appraisal District',
        confidence: 'high',
        lastVerified: '2026-10-20',
      });
      expect(parsed.rateLimit?.remaining).toBe(58);
      expect((await missOf(await h.resolve('100 Main St'))).code).toBe('ambiguous');
    });
  },
);

describe('caching', () => {
  it('answers a repeated resolve from cache: no upstream request, the rate-limit budget does not move', async () => {
    const h = createHarness();
    await h.signIn();
    const first = await body(await h.resolve('1100 Congress Ave, Austin, TX'));
    const requests = h.upstreamRequests.length;
    const second = await body(await h.resolve('  1100 CONGRESS AVE,   austin, tx '));
    expect(h.upstreamRequests.length).toBe(requests);
    expect(second.property).toEqual(first.property);
    expect(second.rateLimit.remaining).toBe(first.rateLimit.remaining);
  });

  it('answers a cached record with the rate limit as it stands now, as JSON the contract reads', async () => {
    const h = createHarness();
    await h.signIn();
    const first = await body(await h.resolve('1100 Congress Ave, Austin, TX'));
    const other = await body(await h.resolve('233 S Wacker Dr, Chicago, IL'));
    expect(other.rateLimit.remaining).toBeLessThan(first.rateLimit.remaining);
    // The record's JSON is written once; the rest of the answer is this request's.
    const res = await h.resolve('1100 congress ave, austin, tx');
    expect(res.headers.get('content-type')).toBe('application/json');
    const again = ResolveResponse.parse(await res.json());
    expect(again.property).toEqual(first.property);
    expect(again.rateLimit).toEqual(other.rateLimit);
  });

  it('shares one upstream call among identical concurrent requests', async () => {
    const h = createHarness();
    await h.signIn();
    const before = h.upstreamRequests.length;
    const all = await Promise.all(Array.from({ length: 8 }, () => h.resolve('233 S Wacker Dr, Chicago, IL')));
    expect(all.every((r) => r.status === 200)).toBe(true);
    expect(h.upstreamRequests.length - before).toBe(1);
  });

  it('keeps each account’s results apart', async () => {
    const h = createHarness();
    await h.signIn();
    await h.resolve('1100 Congress Ave, Austin, TX');
    const before = h.upstreamRequests.length;
    await h.signIn('pi_demo_enterprise');
    await h.resolve('1100 Congress Ave, Austin, TX');
    expect(h.upstreamRequests.length - before).toBe(2); // auth/me + resolve: no cross-account hit
  });
});

describe('rate limits', () => {
  beforeEach(() =>
    vi.useFakeTimers({
      toFake: ['setTimeout', 'clearTimeout', 'Date'],
      now: new Date('2026-11-21T12:00:00Z'),
    }),
  );
  afterEach(() => vi.useRealTimers());

  it('waits for a near reset and retries, without the caller seeing the 429', async () => {
    const h = createHarness({ rateLimit: { requests: 2, seconds: 10 } });
    await h.signIn();
    await h.resolve('1100 Congress Ave, Austin, TX');
    const pending = h.resolve('233 S Wacker Dr, Chicago, IL');
    let settled = false;
    void pending.then(() => {
      settled = true;
    });
    await vi.advanceTimersByTimeAsync(5_000);
    expect(settled).toBe(false);
    await vi.advanceTimersByTimeAsync(6_000);
    const res = await pending;
    expect(res.status).toBe(200);
    expect((await body(res)).property.address).toBe('233 S Wacker Dr, Chicago, IL 60606');
  });

  it('answers 429 at once with Retry-After and resetAt when the reset is far, sending nothing upstream', async () => {
    const h = createHarness({ rateLimit: { requests: 2, seconds: 60 } });
    await h.signIn();
    await h.resolve('1100 Congress Ave, Austin, TX');
    const before = h.upstreamRequests.length;
    const res = await h.resolve('233 S Wacker Dr, Chicago, IL');
    expect(res.status).toBe(429);
    expect(h.upstreamRequests.length).toBe(before);
    expect(res.headers.get('retry-after')).toBe('60');
    const err = ApiErrorBody.parse(await res.json()).error;
    expect(err.code).toBe('rate_limited');
    expect(err.resetAt).toBe('2026-11-21T12:01:00.000Z');
  });

  it('reads a 429 it could not foresee (a storm) and retries after the reset', async () => {
    const h = createHarness({ faults: 'storm=0.5,seed=1', rateLimit: { requests: 1000, seconds: 60 } });
    const statuses: number[] = [];
    for (let i = 0; i < 6; i++) {
      const p = h.signIn();
      await vi.advanceTimersByTimeAsync(20_000);
      statuses.push((await p).status);
    }
    // Each storm 429 is waited out (its reset is 3 s away, within the 20 s bound): every sign-in succeeds.
    expect(statuses).toEqual([200, 200, 200, 200, 200, 200]);
  });
});

describe('bad input never causes a 5xx', () => {
  it.each([
    ['blank', '/api/properties/resolve?address=%20%20'],
    ['missing', '/api/properties/resolve'],
    ['huge', `/api/properties/resolve?address=${'a'.repeat(5000)}`],
    ['control characters', '/api/properties/resolve?address=1%20Main%00St'],
    ['invalid UTF-8', '/api/properties/resolve?address=%C3%28%FF'],
    ['repeated', '/api/properties/resolve?address=a&address=b'],
    ['forged cursor', '/api/properties/search?q=main&cursor=eyJ1IjoieCJ9.AAAA'],
    ['search blank', '/api/properties/search?q='],
  ])('%s -> 400 bad_request', async (_name, path) => {
    const h = createHarness();
    await h.signIn();
    const res = await h.call(path);
    expect(res.status).toBe(400);
    expect(ApiErrorBody.parse(await res.json()).error.code).toBe('bad_request');
  });

  it('words each refusal for its own field, however often the same text comes (good addresses are remembered)', async () => {
    const h = createHarness();
    await h.signIn();
    const message = async (path: string) => {
      const res = await h.call(path);
      expect(res.status).toBe(400);
      return ApiErrorBody.parse(await res.json()).error.message;
    };
    for (let round = 0; round < 2; round++) {
      expect(await message('/api/properties/resolve?address=%20%20')).toBe('Enter an address.');
      expect(await message('/api/properties/search?q=%20%20')).toBe('Type part of an address.');
      expect(await message('/api/properties/resolve?address=PO%20Box%2012')).toMatch(/PO box/);
    }
  });

  it('refuses a cursor issued for another query', async () => {
    const h = createHarness();
    await h.signIn();
    const first = SearchResponse.parse(await (await h.call('/api/properties/search?q=main')).json());
    expect(first.nextCursor).toEqual(expect.any(String));
    const before = h.upstreamRequests.length;
    const res = await h.call(
      `/api/properties/search?q=oak&cursor=${encodeURIComponent(first.nextCursor ?? '')}`,
    );
    expect(res.status).toBe(400);
    expect(ApiErrorBody.parse(await res.json()).error.code).toBe('bad_request');
    // The BFF itself refused: the reference would refuse the cursor too, so only this proves the binding.
    expect(h.upstreamRequests.length).toBe(before);
  });

  it('requires a session for property data', async () => {
    const h = createHarness();
    const res = await h.resolve('1100 Congress Ave, Austin, TX');
    expect(res.status).toBe(401);
    expect(ApiErrorBody.parse(await res.json()).error.code).toBe('unauthenticated');
  });
});

describe('an upstream that sends what we cannot rely on', () => {
  const rateHeaders = {
    'x-ratelimit-limit': '100',
    'x-ratelimit-remaining': '99',
    'x-ratelimit-reset': '30',
  };
  const sending = (record: unknown) => fakeUpstream(() => record, rateHeaders);

  it.each([
    ['no confidence', { id: 'x1', source: 'County Assessor', last_verified: '2026-01-01' }],
    [
      'an unknown confidence',
      { id: 'x1', source: 'County Assessor', confidence: 'certain', last_verified: '2026-01-01' },
    ],
    ['no source', { id: 'x1', confidence: 'high', last_verified: '2026-01-01' }],
    ['an unreadable date', { id: 'x1', source: 'A', confidence: 'high', last_verified: 'last Tuesday' }],
    ['no identifier', { source: 'A', confidence: 'high', last_verified: '2026-01-01' }],
  ])('a record with %s is a 502 upstream_invalid, never shown as data', async (_name, record) => {
    const h = createHarness({ fetch: sending(record) });
    await h.signIn();
    const res = await h.resolve('1 Main St, Austin, TX');
    expect(res.status).toBe(502);
    expect(ApiErrorBody.parse(await res.json()).error.code).toBe('upstream_invalid');
  });

  it('reads an unknown provider’s shape: other id field, enveloped, epoch-ms dates, extra fields', async () => {
    const h = createHarness({
      upstream: { idField: 'ref' },
      fetch: sending({
        result: {
          ref: 'P-77',
          formatted_address: '1 Main St, Austin, TX 78701',
          source: 'Williamson County Appraisal District',
          confidence: 'Medium',
          last_verified: Date.parse('2025-02-03T10:00:00Z'),
          flood_zone: 'X',
          '<script>': 'no',
        },
      }),
    });
    await h.signIn();
    const parsed = ResolveResponse.parse(await (await h.resolve('1 Main St, Austin, TX')).json());
    expect(parsed.property).toMatchObject({
      id: 'P-77',
      confidence: 'medium',
      lastVerified: '2025-02-03',
      sourceKind: 'assessor',
    });
    expect(parsed.property.attributes.other).toEqual({ flood_zone: 'X' });
    expect(parsed.rateLimit?.remaining).toBe(99);
  });
});

describe('client disconnects', () => {
  it('keeps a shared upstream call going for the callers still waiting', async () => {
    let release = () => {};
    let upstreamSignal: AbortSignal | undefined;
    const h = createHarness({
      fetch: fakeUpstream(async (_url, signal) => {
        upstreamSignal = signal;
        await new Promise<void>((r) => {
          release = r;
        });
        return {
          id: 'p1',
          address: '1 Main St',
          source: 'X County Assessor',
          confidence: 'high',
          last_verified: '2026-01-01',
        };
      }),
    });
    await h.signIn();
    const gone = new AbortController();
    const first = h
      .call('/api/properties/resolve?address=1%20Main%20St', { signal: gone.signal })
      .catch(() => null);
    const second = h.call('/api/properties/resolve?address=1%20Main%20St');
    await new Promise((r) => setImmediate(r));
    gone.abort();
    await new Promise((r) => setImmediate(r));
    expect(upstreamSignal?.aborted).toBe(false);
    release();
    expect((await second).status).toBe(200);
    await first;
  });

  it('aborts the upstream call when the browser goes away', async () => {
    let upstreamSignal: AbortSignal | undefined;
    const h = createHarness({
      fetch: fakeUpstream((_url, signal) => {
        upstreamSignal = signal;
        return new Promise((_r, reject) =>
          signal?.addEventListener('abort', () => reject(new DOMException('aborted', 'AbortError'))),
        );
      }),
    });
    await h.signIn();
    const controller = new AbortController();
    const pending = h
      .call('/api/properties/resolve?address=1%20Main%20St', { signal: controller.signal })
      .catch(() => null);
    await new Promise((r) => setImmediate(r));
    controller.abort();
    await pending;
    expect(upstreamSignal?.aborted).toBe(true);
  });
});
