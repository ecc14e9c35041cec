import { describe, expect, it } from 'vitest';
import type { CancelSignal } from '../cancel.ts';
import { ClientGone } from '../cancel.ts';
import { readBffConfig } from '../env.ts';
import { InFlight } from '../in-flight.ts';
import { MemoryCache } from './cache/memory.ts';
import { MemorySessionStore } from './sessions/memory.ts';

const account = { name: 'A', plan: 'professional' as const };

describe('MemorySessionStore', () => {
  const make = (now: { t: number }, maxSessions = 10) =>
    new MemorySessionStore({ idleMs: 1000, absoluteMs: 5000, maxSessions }, () => now.t);

  it('ends a session left idle past the idle timeout, and keeps one in use', async () => {
    const now = { t: 0 };
    const store = make(now);
    const id = await store.create({ apiKey: 'k', keyHash: 'h', account, accountId: 'acct-h' });
    now.t = 900;
    expect(await store.get(id)).toBeDefined();
    now.t = 1800; // 900 ms since last use
    expect(await store.get(id)).toBeDefined();
    now.t = 2801; // 1001 ms idle
    expect(await store.get(id)).toBeUndefined();
  });

  it('ends every session at the absolute timeout, however busy', async () => {
    const now = { t: 0 };
    const store = make(now);
    const id = await store.create({ apiKey: 'k', keyHash: 'h', account, accountId: 'acct-h' });
    for (now.t = 500; now.t <= 5000; now.t += 500) expect(await store.get(id)).toBeDefined();
    now.t = 5001;
    expect(await store.get(id)).toBeUndefined();
  });

  it('caps the number of sessions, dropping the one idle longest', async () => {
    const now = { t: 0 };
    const store = make(now, 2);
    const a = await store.create({ apiKey: 'a', keyHash: 'a', account, accountId: 'acct-a' });
    const b = await store.create({ apiKey: 'b', keyHash: 'b', account, accountId: 'acct-b' });
    now.t = 10;
    await store.get(a); // a is now the most recently used
    await store.create({ apiKey: 'c', keyHash: 'c', account, accountId: 'acct-c' });
    expect(await store.get(b)).toBeUndefined();
    expect(await store.get(a)).toBeDefined();
  });

  it('issues unguessable ids', async () => {
    const store = make({ t: 0 });
    const ids = await Promise.all(
      Array.from({ length: 50 }, () =>
        store.create({ apiKey: 'k', keyHash: 'h', account, accountId: 'acct-h' }),
      ),
    );
    expect(new Set(ids).size).toBe(50);
    for (const id of ids) expect(id).toMatch(/^[A-Za-z0-9_-]{43}$/);
  });

  it('lends the review worker a live session of an account, the latest used, until none is live', async () => {
    const now = { t: 0 };
    const store = make(now);
    const first = await store.create({ apiKey: 'k1', keyHash: 'h1', account, accountId: 'firm' });
    now.t = 100;
    const second = await store.create({ apiKey: 'k2', keyHash: 'h2', account, accountId: 'firm' });
    await store.create({ apiKey: 'k3', keyHash: 'h3', account, accountId: 'other' });
    expect((await store.liveAccounts()).sort()).toEqual(['firm', 'other']);
    expect((await store.sessionFor('firm'))?.session.apiKey).toBe('k2');
    now.t = 200;
    await store.get(first);
    const lent = await store.sessionFor('firm');
    expect(lent?.session.apiKey).toBe('k1');
    expect(await store.sessionFor('nobody')).toBeUndefined();
    // Its key refused: that session ends, whoever holds it; the account's other key is still lent.
    await store.refuseKey({ accountId: 'firm', keyHash: lent?.session.keyHash ?? '' });
    expect(await store.get(first)).toBeUndefined();
    expect((await store.sessionFor('firm'))?.session.apiKey).toBe('k2');
    now.t = 200 + 1001; // every session idle past the timeout
    expect(await store.liveAccounts()).toEqual([]);
    expect(await store.sessionFor('firm')).toBeUndefined();
    expect(await store.get(second)).toBeUndefined();
  });
});

describe('MemoryCache and InFlight', () => {
  const limits = { ttlMs: 100, maxBytes: 100_000, maxEntries: 2, accountShare: 1 };

  it('expires entries after the TTL and evicts the least recently used beyond the bound', async () => {
    const now = { t: 1000 };
    const cache = new MemoryCache<number>(limits, () => now.t);
    await cache.set('x', 'a', 1);
    await cache.set('x', 'b', 2);
    await cache.get('x', 'a');
    await cache.set('x', 'c', 3); // evicts b, the least recently used
    expect(await cache.get('x', 'b')).toBeUndefined();
    expect(await cache.get('x', 'a')).toBe(1);
    now.t = 1101;
    expect(await cache.get('x', 'a')).toBeUndefined();
  });

  it('caches nothing with a TTL of 0', async () => {
    const cache = new MemoryCache<number>({ ...limits, ttlMs: 0 });
    await cache.set('x', 'a', 1);
    expect(await cache.get('x', 'a')).toBeUndefined();
    // The same entry with any TTL at all is kept (a clock that stands still): it is the 0 that refuses it.
    const kept = new MemoryCache<number>({ ...limits, ttlMs: 1 }, () => 1000);
    await kept.set('x', 'a', 1);
    expect(await kept.get('x', 'a')).toBe(1);
  });

  it('keeps accounts apart: the same key is a miss for another account', async () => {
    const cache = new MemoryCache<number>({ ...limits, ttlMs: 60_000 });
    await cache.set('x', 'a', 1);
    expect(await cache.get('x', 'a')).toBe(1); // stored, and found by its own account
    expect(await cache.get('y', 'a')).toBeUndefined();
    // Each account's entry under the same key is its own: neither overwrites the other.
    await cache.set('y', 'a', 2);
    expect(await cache.get('x', 'a')).toBe(1);
    expect(await cache.get('y', 'a')).toBe(2);
  });

  it('is bounded by bytes, and one account filling its share evicts only its own entries', async () => {
    const big = 'z'.repeat(900); // about 1 KB an entry
    const cache = new MemoryCache<string>({
      ttlMs: 60_000,
      maxBytes: 10_000,
      maxEntries: 1000,
      accountShare: 0.5,
    });
    for (let i = 0; i < 3; i++) await cache.set('quiet', `q${i}`, big);
    for (let i = 0; i < 50; i++) await cache.set('busy', `b${i}`, big);
    expect(cache.bytes).toBeLessThanOrEqual(10_000);
    expect(cache.accountBytes('busy')).toBeLessThanOrEqual(5_000);
    for (let i = 0; i < 3; i++) expect(await cache.get('quiet', `q${i}`)).toBe(big);
    expect(await cache.get('busy', 'b49')).toBe(big); // the newest stay
    expect(await cache.get('busy', 'b0')).toBeUndefined();
  });

  it('shares one promise among identical concurrent calls, and forgets it once settled', async () => {
    const flight = new InFlight<number>();
    let calls = 0;
    const work = () => new Promise<number>((r) => setImmediate(() => r(++calls)));
    expect(await Promise.all([flight.run('k', work), flight.run('k', work), flight.run('k', work)])).toEqual([
      1, 1, 1,
    ]);
    expect(await flight.run('k', work)).toBe(2);
  });

  it('aborts the shared work only when every caller has gone', async () => {
    const flight = new InFlight<string>();
    let shared: CancelSignal | undefined;
    let finish = (_v: string) => {};
    const work = (signal: CancelSignal) => {
      shared = signal;
      return new Promise<string>((resolve) => {
        finish = resolve;
      });
    };
    const a = new AbortController();
    const b = new AbortController();
    const first = flight.run('k', work, a.signal);
    const second = flight.run('k', work, b.signal);
    a.abort();
    expect(shared?.aborted).toBe(false); // the second caller still waits
    finish('done');
    expect(await second).toBe('done');
    expect(await first).toBe('done');

    const c = new AbortController();
    const d = new AbortController();
    void flight.run('j', work, c.signal);
    void flight.run('j', work, d.signal);
    c.abort();
    d.abort();
    expect(shared?.aborted).toBe(true);
  });

  it('turns away a caller that has already gone: it neither starts the work nor keeps it from being cancelled', async () => {
    const flight = new InFlight<string>();
    const started: CancelSignal[] = [];
    const work = (signal: CancelSignal) => {
      started.push(signal);
      return new Promise<string>(() => {});
    };
    const gone = new AbortController();
    gone.abort();
    // First and only caller already gone (a hang-up during a slow cache read): no upstream call at all.
    await expect(flight.run('k', work, gone.signal)).rejects.toBeInstanceOf(ClientGone);
    expect(started).toHaveLength(0);
    // Joining shared work after leaving does not count as waiting: when the one real caller leaves, the work stops.
    const stays = new AbortController();
    void flight.run('k', work, stays.signal);
    await expect(flight.run('k', work, gone.signal)).rejects.toBeInstanceOf(ClientGone);
    stays.abort();
    expect(started[0]?.aborted).toBe(true);
  });
});

describe('readBffConfig', () => {
  it('has sensible defaults', () => {
    const c = readBffConfig({});
    expect(c).toMatchObject({
      port: 8080,
      host: '127.0.0.1',
      upstreamUrl: undefined,
      auth: { kind: 'bearer' },
      cacheTtlMs: 300_000,
    });
    expect(c.maxRateLimitWaitMs).toBe(20_000);
  });

  it('reads every auth placement', () => {
    expect(readBffConfig({ PROPERTY_API_AUTH: 'header:X-Api-Token' }).auth).toEqual({
      kind: 'header',
      name: 'X-Api-Token',
    });
    expect(readBffConfig({ PROPERTY_API_AUTH: 'query:key' }).auth).toEqual({ kind: 'query', name: 'key' });
  });

  it('fails fast, listing every bad variable at once', () => {
    let message = '';
    try {
      readBffConfig({
        PORT: 'eighty',
        PROPERTY_API_URL: 'ftp://example.com',
        PROPERTY_API_AUTH: 'cookie',
        PROPERTY_SEARCH_PATH: '/../admin',
        CACHE_TTL_S: '-1',
        CURSOR_SECRET: 'short',
      });
    } catch (err) {
      message = (err as Error).message;
    }
    for (const name of [
      'PORT',
      'PROPERTY_API_URL',
      'PROPERTY_API_AUTH',
      'PROPERTY_SEARCH_PATH',
      'CACHE_TTL_S',
      'CURSOR_SECRET',
    ]) {
      expect(message).toContain(name);
    }
  });

  it('refuses an upstream URL with credentials, a query or a fragment, without echoing it', () => {
    for (const url of [
      'https://user:secret@api.example.com',
      'https://api.example.com/v1?api_key=secret',
      'https://api.example.com/v1#secret',
      'https://api.example.com/v1?',
      'not a url secret',
    ]) {
      let message = '';
      try {
        readBffConfig({ PROPERTY_API_URL: url });
      } catch (err) {
        message = (err as Error).message;
      }
      expect(message, url).toContain('PROPERTY_API_URL');
      expect(message, url).not.toContain('secret');
    }
    expect(readBffConfig({ PROPERTY_API_URL: 'https://api.example.com/v1/' }).upstreamUrl).toBe(
      'https://api.example.com/v1/',
    );
  });
});
