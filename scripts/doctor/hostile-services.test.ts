import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { afterAll, describe, expect, it } from 'vitest';
import { type DoctorOptions, runDoctor } from './probe.ts';
import { renderReport } from './report.ts';

/*
 * The doctor against services that misbehave in the ways the test audit names (DC01, DC03, DC05-DC08, and
 * defect 3): each is a real HTTP server on a loopback port; waits go through an injected sleep, so nothing
 * here sleeps for real.
 */

const closers: (() => Promise<void>)[] = [];
afterAll(async () => {
  for (const close of closers.reverse()) await close();
});

type Handler = (req: IncomingMessage, res: ServerResponse, url: URL) => void;

function listen(handler: Handler): Promise<string> {
  return new Promise((resolve) => {
    const server: Server = createServer((req, res) => handler(req, res, new URL(req.url ?? '/', 'http://x')));
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

const record = (extra: Record<string, unknown> = {}) => ({
  property_id: 'p1',
  address: '1 Main St, Springfield, IL 62701',
  source: 'Sangamon County Assessor',
  confidence: 'high',
  last_verified: '2026-01-02',
  ...extra,
});
const RATE = { 'x-ratelimit-limit': '60', 'x-ratelimit-remaining': '59', 'x-ratelimit-reset': '30' };

function json(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}) {
  res.writeHead(status, { 'content-type': 'application/json', ...headers });
  res.end(typeof body === 'string' ? body : JSON.stringify(body));
}

/** A plausible service: /auth/me, a one-page search and resolve, for requests `accept` takes; else 401. */
function service(
  accept: (req: IncomingMessage, url: URL) => boolean,
  options: {
    headers?: (url: URL) => Record<string, string>;
    refuse?: (res: ServerResponse) => void;
    items?: unknown[];
    resolved?: unknown;
  } = {},
): Promise<string> {
  return listen((req, res, url) => {
    if (!accept(req, url)) {
      if (options.refuse) return options.refuse(res);
      return json(res, 401, { error: { code: 'invalid_key', message: 'Unknown key' } });
    }
    const headers = options.headers?.(url) ?? {};
    if (url.pathname === '/auth/me')
      return json(res, 200, { id: 'a1', name: 'Acme', plan: 'enterprise' }, headers);
    if (url.pathname === '/properties/search')
      return json(res, 200, { data: options.items ?? [record()] }, headers);
    if (url.pathname === '/properties/resolve') return json(res, 200, options.resolved ?? record(), headers);
    return json(res, 404, { error: { code: 'not_found', message: 'no' } });
  });
}

const KEY = 'pk_live_doctor_key_1234';
const bearer = (req: IncomingMessage) => req.headers.authorization === `Bearer ${KEY}`;
/** Every wait the doctor asked for, instead of waiting. */
const doctor = async (url: string, over: Partial<DoctorOptions> = {}) => {
  const slept: number[] = [];
  const report = await runDoctor({
    url,
    key: KEY,
    sleep: async (ms) => void slept.push(ms),
    ...over,
  });
  return { report, slept, text: renderReport(report) };
};
const finding = (report: { findings: { topic: string; level: string; text: string }[] }, topic: string) =>
  report.findings.filter((f) => f.topic === topic);

describe('rate-limit headers', () => {
  it('are read from an accepted answer, not from the 401 of a wrong key placement (audit defect 3)', async () => {
    // Gateways commonly send X-RateLimit-* only on requests they let through.
    const url = await service((req) => req.headers['x-api-key'] === KEY, { headers: () => RATE });
    const { report, text } = await doctor(url);
    expect(report.settings.PROPERTY_API_AUTH).toBe('header:X-API-Key');
    expect(finding(report, 'Rate limit')).toEqual([
      {
        topic: 'Rate limit',
        level: 'ok',
        text: expect.stringMatching(/^X-RateLimit-Limit 60, remaining 59, reset as seconds from now/),
      },
    ]);
    expect(text).not.toMatch(/No X-RateLimit headers/);
  });

  it.each([
    ['90 s behind', -90_000, /this machine's clock is (89|90|91) s ahead of the service's/],
    ['90 s ahead', 90_000, /this machine's clock is (89|90|91) s behind the service's/],
  ])(
    'name the clock skew the right way round: the service is %s (audit DC05)',
    async (_name, offset, said) => {
      const url = await service(() => true, {
        headers: () => ({ ...RATE, date: new Date(Date.now() + offset).toUTCString() }),
      });
      const { report } = await doctor(url, { auth: { kind: 'bearer' } });
      expect(finding(report, 'Rate limit')[0]?.text).toMatch(said);
    },
  );
});

describe('a 429', () => {
  /** Answers the first request 429 with `reset`, then serves normally; counts requests. */
  const limitedOnce = async (reset: (serviceNow: number) => string, date?: number) => {
    let requests = 0;
    const url = await listen((req, res, url) => {
      requests++;
      if (requests > 1 && req.headers.authorization !== `Bearer ${KEY}`)
        return json(res, 401, { error: 'no' });
      const headers: Record<string, string> =
        date === undefined ? {} : { date: new Date(date).toUTCString() };
      const serviceNow = date ?? Date.now();
      if (requests === 1)
        return json(
          res,
          429,
          { error: 'slow down' },
          {
            ...headers,
            'x-ratelimit-reset': reset(serviceNow),
            'x-ratelimit-limit': '60',
            'x-ratelimit-remaining': '0',
          },
        );
      if (url.pathname === '/auth/me') return json(res, 200, { name: 'Acme', plan: 'enterprise' }, headers);
      if (url.pathname === '/properties/search') return json(res, 200, { data: [record()] }, headers);
      if (url.pathname === '/properties/resolve') return json(res, 200, record(), headers);
      return json(res, 401, { error: 'no' }, headers);
    });
    return { url, requests: () => requests };
  };

  it('with a short reset is waited out once, and the run goes on', async () => {
    const { url } = await limitedOnce(() => '3');
    const { report, slept } = await doctor(url, { auth: { kind: 'bearer' } });
    expect(slept).toEqual([3000]);
    expect(report.usable).toBe(true);
  });

  it('with an absolute reset is read on the service’s clock, however skewed (an hour behind here)', async () => {
    const serviceNow = Date.now() - 3_600_000;
    const { url } = await limitedOnce((at) => String(Math.floor(at / 1000) + 4), serviceNow);
    const { report, slept } = await doctor(url, { auth: { kind: 'bearer' } });
    // Four seconds on the service's clock, less the part of a second its Date header leaves out.
    expect(slept).toHaveLength(1);
    expect(slept[0]).toBeGreaterThan(3000);
    expect(slept[0]).toBeLessThanOrEqual(5000);
    expect(report.usable).toBe(true);
  });

  it.each([
    ['15 seconds from now (within the run’s budget)', () => '15'],
    ['two minutes from now', () => '120'],
    ['an HTTP-date 40 s ahead', (now: number) => new Date(now + 40_000).toUTCString()],
    ['epoch seconds an hour ahead', (now: number) => String(Math.floor(now / 1000) + 3600)],
  ])(
    'with a long reset (%s) is not waited out: the doctor says when to run again (audit DC03)',
    async (_n, reset) => {
      const { url, requests } = await limitedOnce(reset);
      const { report, slept } = await doctor(url, { budgetMs: 25_000 });
      expect(slept).toEqual([]);
      expect(report.usable).toBe(false);
      expect(finding(report, 'Rate limit')).toEqual([
        { topic: 'Rate limit', level: 'block', text: expect.stringMatching(/429.*\d+ s.*again/) },
      ]);
      // The limit is on the service, not on the placement: trying the others would only spend more.
      expect(requests()).toBe(1);
    },
  );
});

describe('a redirect', () => {
  it('is not a key placement: a service that sends unknown keys to its login page (audit DC08)', async () => {
    const url = await service((req) => req.headers['x-api-key'] === KEY, {
      refuse: (res) => {
        res.writeHead(302, { location: '/login' });
        res.end();
      },
    });
    const { report } = await doctor(url);
    expect(report.settings.PROPERTY_API_AUTH).toBe('header:X-API-Key');
    expect(finding(report, 'Key placement')[0]?.text).toMatch(/X-API-Key header \(2 tries\)/);
  });

  it('everywhere: not usable, and the redirect is named', async () => {
    const url = await listen((_req, res) => {
      res.writeHead(302, { location: 'https://login.example/' });
      res.end();
    });
    const { report } = await doctor(url);
    expect(report.usable).toBe(false);
    expect(finding(report, 'Key placement')[0]).toMatchObject({
      level: 'block',
      text: expect.stringMatching(/bearer → 302/),
    });
  });
});

describe('confidence words', () => {
  it('outside high/medium/low in search results are warned about, by name (audit DC06)', async () => {
    const url = await service(bearer, {
      items: [
        record(),
        record({ property_id: 'p2', confidence: 'Verified' }),
        record({ property_id: 'p3', confidence: ' HIGH ' }),
      ],
    });
    const { report } = await doctor(url, { auth: { kind: 'bearer' } });
    expect(report.usable).toBe(true);
    const said = finding(report, 'Confidence');
    expect(said).toEqual([
      { topic: 'Confidence', level: 'warn', text: expect.stringMatching(/"Verified" \(1 of 3 records\)/) },
    ]);
    // Case and spaces are read as PropLens reads them: " HIGH " is high.
    expect(said[0]?.text).not.toMatch(/HIGH/);
  });

  it('on the record resolved: not usable, with the word named', async () => {
    const url = await service(bearer, { resolved: record({ confidence: 'certain' }) });
    const { report } = await doctor(url, { auth: { kind: 'bearer' } });
    expect(report.usable).toBe(false);
    expect(finding(report, 'Record')[0]).toMatchObject({
      level: 'block',
      text: expect.stringMatching(/"certain"/),
    });
  });

  it('all known: nothing said of them', async () => {
    const url = await service(bearer, {
      items: [record(), record({ property_id: 'p2', confidence: 'Low' })],
    });
    const { report } = await doctor(url, { auth: { kind: 'bearer' } });
    expect(finding(report, 'Confidence')).toEqual([]);
    expect(report.usable).toBe(true);
  });
});

describe('a service that echoes the key', () => {
  /** How a service may write back what it was sent: the raw query, or the key JSON-escaped. */
  const escapedJson = (key: string) =>
    Array.from({ length: key.length }, (_, i) => key.charCodeAt(i))
      .map((c) =>
        c === 0x2f
          ? '\\/'
          : c > 0x7e || i(c)
            ? `\\u${c.toString(16).padStart(4, '0')}`
            : String.fromCharCode(c),
      )
      .join('');
  const i = (c: number) => c === 0x41; // 'A' escaped too: a mixed form
  it.each([
    ['pk/live+A=b9 x~', 'URL-encoded as a form (space as +)'],
    ['pk/live+A=ü€', 'with non-ASCII characters'],
  ])('%s: never shows it, in any form (audit DC01)', async (key) => {
    const url = await listen((req, res, url) => {
      const sent = url.searchParams.get('api_key');
      // The raw query as sent (percent-encoded), and the key JSON-escaped, in what the doctor reports.
      const raw = (req.url ?? '').split('?')[1] ?? '';
      const escaped = escapedJson(sent ?? '');
      if (sent !== key) return json(res, 401, `{"error":{"message":"bad key ${escaped} in ${raw}"}}`);
      if (url.pathname === '/auth/me')
        return json(res, 200, `{"name":"Acme ${escaped} ${raw}","plan":"enterprise"}`, RATE);
      const item = `{"property_id":"p1","address":"1 ${escaped} St","source":"Echo ${raw}","confidence":"high","last_verified":"2026-01-02","${escaped}":1}`;
      if (url.pathname === '/properties/search') return json(res, 200, `{"data":[${item}]}`, RATE);
      if (url.pathname === '/properties/resolve')
        return json(res, 200, item, { ...RATE, 'x-ratelimit-reset': `soon ${raw}` });
      return json(res, 404, '{}');
    });
    const { report, text } = await doctor(url, { key });
    expect(report.settings.PROPERTY_API_AUTH).toBe('query:api_key');
    const forms = [
      key,
      encodeURIComponent(key),
      new URLSearchParams({ k: key }).toString().slice(2),
      escapedJson(key),
      JSON.stringify(key).slice(1, -1).replaceAll('/', '\\/'),
    ];
    for (const shown of [text, JSON.stringify(report)])
      for (const form of forms) expect(shown).not.toContain(form);
    expect(text).toMatch(/\[redacted\]/);
  });
});
