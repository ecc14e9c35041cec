import { afterEach, describe, expect, it, vi } from 'vitest';
import {
  ApiErrorBody,
  describeMatch,
  type LookupResult,
  LookupResult as LookupResultSchema,
  SearchResponse,
} from '../contract/index.ts';
import { createHarness } from './test-support/harness.ts';

type Harness = ReturnType<typeof createHarness>;

const lookups = (h: Harness, addresses: string[], init: { signal?: AbortSignal } = {}) =>
  h.call('/api/reviews/lookups', { method: 'POST', body: { addresses }, ...init });

/** Reads the NDJSON stream: every line must parse with the contract's schema. */
async function lines(res: Response): Promise<LookupResult[]> {
  const text = await res.text();
  return text
    .split('\n')
    .filter((l) => l !== '')
    .map((l) => LookupResultSchema.parse(JSON.parse(l)));
}

/** Real addresses of the test dataset, whatever its showcase records are. */
async function knownAddresses(h: Harness, q: string, n: number): Promise<string[]> {
  const out: string[] = [];
  let cursor: string | undefined;
  while (out.length < n) {
    const url = `/api/properties/search?q=${encodeURIComponent(q)}${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`;
    const page = SearchResponse.parse(await (await h.call(url)).json());
    out.push(...page.items.filter((p) => !p.attributes.unit).map((p) => p.address));
    if (!page.nextCursor) break;
    cursor = page.nextCursor;
  }
  return [...new Set(out)].slice(0, n);
}

describe('POST /api/reviews/lookups', () => {
  afterEach(() => vi.useRealTimers());

  it('answers every address with exactly one line: matched, not found, ambiguous, refused input', async () => {
    const h = createHarness();
    await h.signIn();
    const [known] = await knownAddresses(h, 'main', 1);
    const addresses = [
      known as string,
      '99999 Nowhere Blvd, Faketown, ZZ 00000',
      '100 Main St',
      'x'.repeat(600),
      '  ',
      '1100 Congres Ave, Austn TX',
    ];
    const res = await lookups(h, addresses);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/application\/x-ndjson/);
    const got = await lines(res);
    expect(got.map((l) => l.index).sort()).toEqual([0, 1, 2, 3, 4, 5]);
    const by = new Map(got.map((l) => [l.index, l]));
    // How each record matched what was sent, as a single search says it: nothing to say for the exact one.
    expect(by.get(0)).toMatchObject({ outcome: 'matched', property: { address: known }, match: null });
    expect(describeMatch(by.get(5)?.match ?? { changes: [] })).toBe(
      'corrected: Congres → Congress, Austn → Austin; added: ZIP 78701',
    );
    expect(by.get(1)?.outcome).toBe('not_found');
    expect(by.get(2)).toMatchObject({ outcome: 'ambiguous', error: { code: 'ambiguous' } });
    expect(by.get(2)?.candidates?.length).toBeGreaterThan(1);
    expect(by.get(3)).toMatchObject({ outcome: 'failed', error: { code: 'bad_request' } });
    expect(by.get(4)).toMatchObject({ outcome: 'failed', error: { code: 'bad_request' } });
    for (const l of got) expect(Date.parse(l.retrievedAt)).not.toBeNaN();
    expect(got.at(-1)?.rateLimit?.limit).toBe(60);
  });

  it('answers cached rows at once, at no upstream cost, and looks duplicates up once', async () => {
    const h = createHarness();
    await h.signIn();
    const known = await knownAddresses(h, 'oak', 3);
    await lines(await lookups(h, [...known, known[0] as string]));
    const resolves = () => h.upstreamRequests.filter((u) => u.pathname.endsWith('/resolve')).length;
    expect(resolves()).toBe(3);
    const again = await lines(await lookups(h, known));
    expect(again.every((l) => l.outcome === 'matched' && l.cached)).toBe(true);
    expect(resolves()).toBe(3);
  });

  it('paces a batch larger than the rate limit: every row matched, and the upstream never answers 429', async () => {
    vi.useFakeTimers({
      toFake: ['setTimeout', 'clearTimeout', 'Date'],
      now: new Date('2026-11-22T12:00:00Z'),
    });
    const h = createHarness({ rateLimit: { requests: 10, seconds: 10 } });
    await h.signIn();
    const known = await knownAddresses(h, 'main', 30);
    expect(known.length).toBe(30);
    vi.setSystemTime(Date.now() + 11_000); // a fresh window
    const pending = lookups(h, known).then(lines);
    await vi.advanceTimersByTimeAsync(45_000);
    const got = await pending;
    expect(got).toHaveLength(30);
    expect(got.filter((l) => l.outcome !== 'matched')).toEqual([]);
    expect(h.upstreamStatuses.filter((s) => s === 429)).toEqual([]);
  });

  it('lets an agent’s search go ahead of a review waiting for the rate limit', async () => {
    vi.useFakeTimers({
      toFake: ['setTimeout', 'clearTimeout', 'Date'],
      now: new Date('2026-11-22T12:00:00Z'),
    });
    const h = createHarness({ rateLimit: { requests: 10, seconds: 10 } });
    await h.signIn();
    const known = await knownAddresses(h, 'main', 31);
    vi.setSystemTime(Date.now() + 11_000);
    const review = lookups(h, known.slice(0, 30)).then(lines);
    await vi.advanceTimersByTimeAsync(3_000); // the review is paced across the window
    const started = Date.now();
    const interactive = h.resolve(known[30] as string);
    let answeredAt = 0;
    void interactive.then(() => {
      answeredAt = Date.now();
    });
    await vi.advanceTimersByTimeAsync(1_000);
    expect(answeredAt).toBeGreaterThan(0);
    expect(answeredAt - started).toBeLessThan(1_000);
    expect((await interactive).status).toBe(200);
    await vi.advanceTimersByTimeAsync(60_000);
    expect(await review).toHaveLength(30);
    expect(h.upstreamStatuses.filter((s) => s === 429)).toEqual([]);
  });

  it('stops looking up when the browser goes away', async () => {
    vi.useFakeTimers({
      toFake: ['setTimeout', 'clearTimeout', 'Date'],
      now: new Date('2026-11-22T12:00:00Z'),
    });
    const h = createHarness({ rateLimit: { requests: 5, seconds: 60 } });
    await h.signIn();
    const known = await knownAddresses(h, 'main', 20);
    const before = h.upstreamRequests.length;
    const browser = new AbortController();
    const pending = lookups(h, known, { signal: browser.signal })
      .then((r) => r.text())
      .catch(() => null);
    await vi.advanceTimersByTimeAsync(100);
    browser.abort();
    await vi.advanceTimersByTimeAsync(180_000);
    await pending;
    // Only what the budget allowed before the browser left went upstream; nothing after.
    expect(h.upstreamRequests.length - before).toBeLessThanOrEqual(3);
  });

  it('refuses without a session, a bad body, or too many addresses', async () => {
    const h = createHarness();
    expect((await lookups(h, ['1 Main St'])).status).toBe(401);
    await h.signIn();
    for (const body of [
      {},
      { addresses: [] },
      { addresses: Array.from({ length: 51 }, () => 'a') },
      { addresses: [1] },
    ]) {
      const res = await h.call('/api/reviews/lookups', { method: 'POST', body });
      expect(res.status).toBe(400);
      expect(ApiErrorBody.parse(await res.json()).error.code).toBe('bad_request');
    }
    const raw = await h.call('/api/reviews/lookups', {
      method: 'POST',
      raw: 'not json',
      headers: { 'content-type': 'application/json' },
    });
    expect(raw.status).toBe(400);
  });
});
