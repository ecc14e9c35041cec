import { describe, expect, it } from 'vitest';
import { createReferenceApp, DROP_HEADER, type ReferenceOptions } from './app.ts';
import { DEFAULT_DIALECT, type Dialect, parseDialect } from './dialect.ts';
import { parseFaults } from './faults.ts';
import { openTestStore } from './test-support.ts';

const { store, db } = await openTestStore();
const PRO = 'pi_demo_professional';

function makeApp(options: Partial<ReferenceOptions> = {}) {
  return createReferenceApp({ store, cursorSecret: 'test-secret', ...options });
}

function authed(dialect: Dialect, key = PRO): { headers: Record<string, string>; query: string } {
  if (dialect.auth === 'bearer') return { headers: { Authorization: `Bearer ${key}` }, query: '' };
  if (dialect.auth === 'header') return { headers: { 'X-API-Key': key }, query: '' };
  return { headers: {}, query: `api_key=${encodeURIComponent(key)}` };
}

async function get(
  app: ReturnType<typeof makeApp>,
  path: string,
  key: string | null = PRO,
  dialect = DEFAULT_DIALECT,
) {
  const auth = key === null ? { headers: {}, query: '' } : authed(dialect, key);
  const sep = path.includes('?') ? '&' : '?';
  return app.request(`${path}${auth.query ? sep + auth.query : ''}`, { headers: auth.headers });
}

describe('GET /auth/me', () => {
  const app = makeApp();

  it('confirms an eligible key with the account name and plan', async () => {
    const res = await get(app, '/auth/me');
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({
      id: 'acct_demo_pro',
      name: 'Harbor & Vale Realty',
      plan: 'professional',
    });
  });

  it('answers 401 for a missing or unknown key, 403 naming the plans and sales for a starter key', async () => {
    expect((await get(app, '/auth/me', null)).status).toBe(401);
    const unknown = await get(app, '/auth/me', 'pi_nope');
    expect(unknown.status).toBe(401);
    expect(await unknown.json()).toMatchObject({ error: { code: 'unauthorized' } });
    const starter = await get(app, '/auth/me', 'pi_demo_starter');
    expect(starter.status).toBe(403);
    const body = (await starter.json()) as { error: { code: string; message: string } };
    expect(body.error.code).toBe('plan_not_eligible');
    expect(body.error.message).toMatch(/professional or enterprise/);
    expect(body.error.message).toMatch(/sales@/);
  });

  it('refuses a key sent in a place this dialect does not read', async () => {
    const headerApp = makeApp({ dialect: parseDialect('auth=header') });
    expect(
      (await headerApp.request('/auth/me', { headers: { Authorization: `Bearer ${PRO}` } })).status,
    ).toBe(401);
    expect((await headerApp.request('/auth/me', { headers: { 'X-API-Key': PRO } })).status).toBe(200);
  });
});

describe('rate limits', () => {
  it('puts the limit headers on every answer and answers 429 once the window is spent', async () => {
    let now = 1_800_000_000_000;
    const app = makeApp({ rateLimit: { requests: 3, seconds: 60 }, now: () => now });
    const statuses: number[] = [];
    for (let i = 0; i < 4; i++) {
      const res = await get(app, '/auth/me');
      statuses.push(res.status);
      expect(res.headers.get('X-RateLimit-Limit')).toBe('3');
      expect(res.headers.get('X-RateLimit-Remaining')).toBe(String(Math.max(0, 2 - i)));
      expect(res.headers.get('X-RateLimit-Reset')).toBe(String((now + 60_000) / 1000));
    }
    expect(statuses).toEqual([200, 200, 200, 429]);
    now += 60_000;
    expect((await get(app, '/auth/me')).status).toBe(200);
  });

  it('counts per key and never lets concurrent requests exceed the limit', async () => {
    const app = makeApp({ rateLimit: { requests: 10, seconds: 60 } });
    const results = await Promise.all(Array.from({ length: 50 }, () => get(app, '/auth/me')));
    expect(results.filter((r) => r.status === 200)).toHaveLength(10);
    expect(results.filter((r) => r.status === 429)).toHaveLength(40);
    expect((await get(app, '/auth/me', 'pi_demo_enterprise')).status).toBe(200);
  });

  it('reads a demo key as one visitor uses it as that demo account, counted in a window of its own', async () => {
    const app = makeApp({ rateLimit: { requests: 1, seconds: 60 } });
    expect((await get(app, '/auth/me', PRO)).status).toBe(200);
    expect((await get(app, '/auth/me', PRO)).status).toBe(429);
    const visitor = await get(app, '/auth/me', `${PRO}~visitor-0001`);
    expect(visitor.status).toBe(200);
    expect(await visitor.json()).toMatchObject({ name: 'Harbor & Vale Realty', plan: 'professional' });
    expect((await get(app, '/auth/me', `${PRO}~visitor-0002`)).status).toBe(200);
    // Only demo keys: another key with a visitor part, or a malformed one, is unknown.
    expect((await get(app, '/auth/me', 'pi_live_key~visitor-0003')).status).toBe(401);
    expect((await get(app, '/auth/me', `${PRO}~x`)).status).toBe(401);
  });

  it('gives each plan its own limit unless one is set for all', async () => {
    const app = makeApp();
    expect((await get(app, '/auth/me', 'pi_demo_enterprise')).headers.get('X-RateLimit-Limit')).toBe('600');
    expect((await get(app, '/auth/me', PRO)).headers.get('X-RateLimit-Limit')).toBe('60');
    const one = makeApp({ rateLimit: { requests: 5, seconds: 10 } });
    expect((await get(one, '/auth/me', 'pi_demo_enterprise')).headers.get('X-RateLimit-Limit')).toBe('5');
    expect((await get(one, '/auth/me', PRO)).headers.get('X-RateLimit-Limit')).toBe('5');
  });

  it('counts refused requests too, and puts the headers on the refusals', async () => {
    const app = makeApp({ rateLimit: { requests: 2, seconds: 60 } });
    const refusals = [
      await get(app, '/auth/me', 'pi_wrong'),
      await get(app, '/auth/me', 'pi_wrong'),
      await get(app, '/auth/me', 'pi_wrong'),
    ];
    expect(refusals.map((r) => r.status)).toEqual([401, 401, 429]);
    expect(refusals.map((r) => r.headers.get('X-RateLimit-Remaining'))).toEqual(['1', '0', '0']);
    const starter = await get(app, '/auth/me', 'pi_demo_starter');
    expect(starter.status).toBe(403);
    expect(starter.headers.get('X-RateLimit-Remaining')).toBe('1');
    const unknownPath = await get(app, '/properties/nope');
    expect(unknownPath.status).toBe(404);
    expect(unknownPath.headers.get('X-RateLimit-Remaining')).toBe('1');
  });
});

describe('GET /properties/resolve', () => {
  const app = makeApp();
  const resolve = async (address: string) => {
    const res = await get(app, `/properties/resolve?address=${encodeURIComponent(address)}`);
    return { status: res.status, body: (await res.json()) as Record<string, any> };
  };

  it.each([
    '1100 Congress Ave, Austin, TX 78701',
    '1100 congress avenue austin texas',
    '1100 CONGRESS AVE AUSTIN TX',
    '1100 Congres Ave, Austin, TX',
    '1100 Congress Ave, Austn, TX',
    '1100 Congress Ave 78701',
    '1100 Ocngress Ave, Austin, TX',
    '1100 Congrses Avenue',
  ])('resolves the messy spelling %s to one record', async (address) => {
    const { status, body } = await resolve(address);
    expect(status).toBe(200);
    expect(body).toMatchObject({
      address: '1100 Congress Ave, Austin, TX 78701',
      source: 'Travis Central Appraisal District',
      confidence: 'high',
    });
    expect(body.last_verified).toMatch(/^\d{4}-\d{2}-\d{2}$/);
  });

  it('never picks one of several matches: ambiguous input gets 409 with the candidates', async () => {
    const { status, body } = await resolve('100 Main St');
    expect(status).toBe(409);
    expect(body.error.code).toBe('ambiguous_address');
    expect(body.error.candidates.length).toBeGreaterThan(1);
    for (const c of body.error.candidates) expect(c.address).toMatch(/^100 Main St, /);
  });

  it('answers 404 with a code, and "did you mean" candidates, for an unknown address', async () => {
    const { status, body } = await resolve('99999 Congress Ave, Austin, TX');
    expect(status).toBe(404);
    expect(body.error.code).toBe('address_not_found');
    expect(body.error.candidates[0].address).toMatch(/Congress Ave, Austin/);
    expect(body.error.reason).toBe('no_such_house');
    expect(body.error.message).toBe('The street is known, but not that house number.');
  });

  it('says why nothing matched where it can: no such street in a known place, a ZIP it holds nothing in', async () => {
    const street = await resolve('12 Zzyzzx Qqvvort Blvd, Austin, TX');
    expect(street.body.error).toMatchObject({ code: 'address_not_found', reason: 'no_such_street' });
    const zip = db.prepare('SELECT zip FROM property LIMIT 1').get() as { zip: string };
    const inZip = await resolve(`12 Zzyzzx Qqvvort Blvd ${zip.zip}`);
    expect(inZip.body.error.reason).toBe('no_such_street');
    const empty = await resolve('12 Main St 00001');
    expect(empty.body.error).toMatchObject({ code: 'address_not_found', reason: 'place_not_covered' });
    // No place named: nothing to say why.
    const bare = await resolve('12 Zzyzzx Qqvvort Blvd');
    expect(bare.body.error.reason).toBeUndefined();
  });

  it('says distinctly when a known building has no such unit, offering the building', async () => {
    const unit = db
      .prepare('SELECT street_number, street_name, city, state FROM property WHERE unit IS NOT NULL LIMIT 1')
      .get() as { street_number: string; street_name: string; city: string; state: string };
    const { status, body } = await resolve(
      `${unit.street_number} ${unit.street_name} Apt 9999, ${unit.city}, ${unit.state}`,
    );
    expect(status).toBe(404);
    expect(body.error.code).toBe('unit_not_found');
    const building = `${unit.street_number} ${unit.street_name}, ${unit.city}, ${unit.state} `;
    expect(body.error.building.address.slice(0, building.length)).toBe(building);
    expect(body.error.building.address.slice(building.length)).toMatch(/^\d{5}$/);
  });

  it.each([
    ['blank', '   '],
    ['over-long', `1 Main St ${'x'.repeat(520)}`],
    ['control characters', '1 Main St\u0000'],
  ])('refuses %s input with 400', async (_name, address) => {
    const { status, body } = await resolve(address);
    expect(status).toBe(400);
    expect(body.error.code).toBe('invalid_address');
  });

  it('refuses a repeated address parameter rather than picking one', async () => {
    const res = await get(
      app,
      '/properties/resolve?address=1100+Congress+Ave+Austin+TX&address=1100+Congress+Ave+Austin+TX',
    );
    expect(res.status).toBe(400);
    expect(await res.json()).toMatchObject({ error: { code: 'invalid_address' } });
  });
});

describe('GET /properties/search with cursors', () => {
  const app = makeApp();
  const page = async (q: string, cursor?: string, limit?: number) => {
    const params = new URLSearchParams({ q });
    if (cursor) params.set('cursor', cursor);
    if (limit) params.set('limit', String(limit));
    const res = await get(app, `/properties/search?${params}`);
    return {
      status: res.status,
      body: (await res.json()) as {
        data: { property_id: string; address: string }[];
        next_cursor?: string;
        error?: { code: string };
      },
    };
  };

  it('returns candidates best first: the typed house number first', async () => {
    const { status, body } = await page('100 main');
    expect(status).toBe(200);
    expect(body.data[0]?.address).toMatch(/^100 Main St/);
  });

  it('pages through every result with no duplicates and no gaps, next_cursor absent at the end', async () => {
    const all = await page('main', undefined, 100);
    const total = all.body.data.length + (all.body.next_cursor ? 1 : 0);
    expect(total).toBeGreaterThan(25);
    const seen: string[] = [];
    let cursor: string | undefined;
    for (let i = 0; i < 100; i++) {
      const { body } = await page('main', cursor, 7);
      seen.push(...body.data.map((d) => d.property_id));
      cursor = body.next_cursor;
      if (!cursor) break;
    }
    expect(cursor).toBeUndefined();
    expect(new Set(seen).size).toBe(seen.length);
    const reference = await page('main', undefined, 100);
    expect(seen.slice(0, reference.body.data.length)).toEqual(reference.body.data.map((d) => d.property_id));
  });

  it('uses pages of 20 by default and at most 100', async () => {
    expect((await page('main')).body.data).toHaveLength(20);
    expect((await page('main', undefined, 101)).status).toBe(400);
  });

  it('refuses forged, altered or foreign cursors with 400', async () => {
    const first = await page('main', undefined, 5);
    const cursor = first.body.next_cursor as string;
    const [payload, mac] = cursor.split('.') as [string, string];
    // The genuine cursor works: each refusal below is the cursor's doing.
    expect((await page('main', cursor)).status).toBe(200);
    const refused = { status: 400, body: { error: { code: 'invalid_cursor' } } };
    // Skipping ahead: the same query, another offset, the genuine signature. Only the signature refuses it.
    const genuine = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8')) as { o: number };
    const forgedPayload = Buffer.from(JSON.stringify({ ...genuine, o: genuine.o + 1 })).toString('base64url');
    const forged = `${forgedPayload}.${mac}`;
    expect(await page('main', forged)).toMatchObject(refused);
    const flipped = `${payload}.${mac.startsWith('A') ? 'B' : 'A'}${mac.slice(1)}`;
    expect(await page('main', flipped)).toMatchObject(refused);
    expect(await page('oak', cursor)).toMatchObject(refused);
    const other = makeApp({ cursorSecret: 'another-secret' });
    const res = await get(other, `/properties/search?q=main&cursor=${encodeURIComponent(cursor)}`);
    expect(res.status).toBe(400);
    expect(await res.json()).toMatchObject(refused.body);
  });
});

describe('dialects', () => {
  it.each([
    ['id=id', (b: any) => expect(b.id).toMatch(/^pi_/)],
    ['id=propertyId', (b: any) => expect(b.propertyId).toMatch(/^pi_/)],
    ['envelope=data', (b: any) => expect(b.data.property_id).toMatch(/^pi_/)],
    ['envelope=named', (b: any) => expect(b.property.property_id).toMatch(/^pi_/)],
    ['date=datetime', (b: any) => expect(b.last_verified).toBe('2026-10-20T12:00:00.000Z')],
    ['date=epoch-s', (b: any) => expect(b.last_verified).toBe(Date.parse('2026-10-20T12:00:00Z') / 1000)],
    ['date=epoch-ms', (b: any) => expect(b.last_verified).toBe(Date.parse('2026-10-20T12:00:00Z'))],
  ])('%s shapes the record', async (spec, check) => {
    const dialect = parseDialect(spec);
    const res = await get(
      makeApp({ dialect }),
      '/properties/resolve?address=1100+Congress+Ave+Austin+TX',
      PRO,
      dialect,
    );
    expect(res.status).toBe(200);
    check(await res.json());
  });

  it.each([
    ['reset=epoch-s', '1800000060'],
    ['reset=delta-s', '60'],
    ['reset=epoch-ms', '1800000060000'],
    ['reset=http-date', 'Fri, 15 Jan 2027 08:01:00 GMT'],
  ])('%s formats X-RateLimit-Reset', async (spec, expected) => {
    const app = makeApp({ dialect: parseDialect(spec), now: () => 1_800_000_000_000 });
    expect((await get(app, '/auth/me')).headers.get('X-RateLimit-Reset')).toBe(expected);
  });

  it.each([
    ['errors=json', 'application/json', (t: string) => expect(JSON.parse(t).error.code).toBe('unauthorized')],
    [
      'errors=message',
      'application/json',
      (t: string) => expect(JSON.parse(t)).toEqual({ message: 'The API key is not valid.' }),
    ],
    ['errors=text', 'text/plain', (t: string) => expect(t).toBe('The API key is not valid.')],
  ])('%s shapes error bodies', async (spec, type, check) => {
    const res = await get(makeApp({ dialect: parseDialect(spec) }), '/auth/me', 'pi_wrong');
    expect(res.headers.get('content-type')).toContain(type);
    check(await res.text());
  });

  it('places the key in the query string when told to', async () => {
    const dialect = parseDialect('auth=query');
    expect((await get(makeApp({ dialect }), '/auth/me', PRO, dialect)).status).toBe(200);
  });

  it('lists every bad setting at once', () => {
    expect(() => parseDialect('auth=cookie,id=uuid,colour=red')).toThrow(/auth=cookie.*id=uuid.*colour/);
  });
});

describe('faults', () => {
  const runMany = async (spec: string, n = 200) => {
    const app = makeApp({
      faults: parseFaults(spec),
      sleep: async () => {},
      rateLimit: { requests: 10_000, seconds: 60 },
    });
    const fetchIt = createInProcessFetch(app);
    const outcomes: string[] = [];
    for (let i = 0; i < n; i++) {
      try {
        const res = await fetchIt('http://ref/auth/me', { headers: { Authorization: `Bearer ${PRO}` } });
        const text = await res.text();
        let ok = true;
        try {
          JSON.parse(text);
        } catch {
          ok = false;
        }
        outcomes.push(res.status === 200 && !ok ? 'malformed' : String(res.status));
      } catch (err) {
        outcomes.push((err as Error).name === 'TypeError' ? 'dropped' : 'other');
      }
    }
    return outcomes;
  };
  const share = (xs: string[], v: string) => xs.filter((x) => x === v).length / xs.length;

  it('injects 500/503 answers at about the share asked for, repeatably from the seed', async () => {
    const a = await runMany('error=0.3,seed=5');
    expect(share(a, '500') + share(a, '503')).toBeGreaterThan(0.2);
    expect(share(a, '500') + share(a, '503')).toBeLessThan(0.4);
    expect(await runMany('error=0.3,seed=5')).toEqual(a);
  });

  it('cuts JSON bodies short, answers 429 storms, and drops connections', async () => {
    expect(share(await runMany('malformed=0.5,seed=2'), 'malformed')).toBeGreaterThan(0.35);
    const storm = await runMany('storm=0.5,seed=3');
    expect(share(storm, '429')).toBeGreaterThan(0.35);
    expect(share(await runMany('drop=0.5,seed=4'), 'dropped')).toBeGreaterThan(0.35);
  });

  it('adds latency through the injected sleep', async () => {
    const waits: number[] = [];
    const app = makeApp({ faults: parseFaults('latency=120'), sleep: async (ms) => void waits.push(ms) });
    await get(app, '/auth/me');
    expect(waits).toEqual([120]);
  });

  it('refuses a fault spec it cannot read, naming every problem', () => {
    expect(() => parseFaults('error=2,flood=1')).toThrow(/error=2.*flood/);
  });
});

/** A fetch that calls the app in-process; a dropped connection surfaces as fetch's own network TypeError. */
function createInProcessFetch(app: { fetch: (req: Request) => Response | Promise<Response> }) {
  return async (input: string | URL | Request, init?: RequestInit): Promise<Response> => {
    const req = input instanceof Request ? input : new Request(input, init);
    const signal = init?.signal ?? req.signal;
    const aborted = () => signal?.reason ?? new DOMException('This operation was aborted', 'AbortError');
    if (signal?.aborted) throw aborted();
    // Like a socket, give up when the caller aborts, even while the app is still working.
    const res = await new Promise<Response>((resolve, reject) => {
      signal?.addEventListener('abort', () => reject(aborted()), { once: true });
      Promise.resolve(app.fetch(req)).then(resolve, reject);
    });
    if (res.headers.get(DROP_HEADER))
      throw new TypeError('fetch failed', { cause: new Error('socket hang up') });
    return res;
  };
}
