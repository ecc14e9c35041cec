import { describe, expect, it } from 'vitest';
import { redisServerAvailable, useTestRedis } from '../../test-support/test-redis.ts';
import { RedisConnection } from '../redis-connection.ts';
import { deriveSecrets, RedisKeys } from '../redis-keys.ts';
import { RedisCache } from './redis.ts';
import type { CacheLimits } from './types.ts';

const keys = new RedisKeys(deriveSecrets('cache-test-secret-cache-test-secret').namesKey);
/** An entry of about 200 bytes as the cache counts them (JSON, plus its key, plus 64). */
const value = (n: number) => ({ n, text: 'x'.repeat(120) });
const SIZE = JSON.stringify(value(1)).length + 'k1'.length + 64;

describe.skipIf(!redisServerAvailable())('RedisCache', () => {
  const local = useTestRedis();
  const make = (limits: Partial<CacheLimits> = {}, now: { t: number } = { t: 1000 }) =>
    new RedisCache<{ n: number; text: string }>(
      local.redis,
      keys,
      { ttlMs: 60_000, maxBytes: 100_000, maxEntries: 1000, accountShare: 1, ...limits },
      undefined,
      () => now.t,
    );

  it('is one cache for every replica, per account, with the TTL as Redis expiry', async () => {
    const a = make();
    const b = make();
    await a.set('account-1', 'k1', value(1));
    expect(await b.get('account-1', 'k1')).toEqual(value(1));
    expect(await b.get('account-2', 'k1')).toBeUndefined();
    const [entry] = await local.redis.client.keys('proplens:v1:cache:e:*');
    const ttl = await local.redis.client.pttl(entry as string);
    expect(ttl).toBeGreaterThan(55_000);
    expect(ttl).toBeLessThanOrEqual(60_000);
  });

  it('keeps an account within its share, evicting its own oldest entries and nobody else’s', async () => {
    const now = { t: 1000 };
    const cache = make({ maxBytes: SIZE * 10, accountShare: 0.3 }, now); // 3 entries each
    await cache.set('other', 'k1', value(0));
    for (let i = 1; i <= 5; i++) {
      now.t += 1;
      await cache.set('busy', `k${i}`, value(i));
    }
    expect(await cache.get('busy', 'k1')).toBeUndefined();
    expect(await cache.get('busy', 'k2')).toBeUndefined();
    for (const k of ['k3', 'k4', 'k5']) expect(await cache.get('busy', k)).toBeDefined();
    expect(await cache.get('other', 'k1')).toEqual(value(0));
    expect(await cache.bytes('busy')).toBe(SIZE * 3);
    expect(await cache.bytes()).toBe(SIZE * 4);
  });

  it('keeps the whole cache within its bytes and entries, the oldest stored going first', async () => {
    const now = { t: 1000 };
    const byBytes = make({ maxBytes: SIZE * 3, maxEntries: 100 }, now);
    for (let i = 1; i <= 4; i++) {
      now.t += 1;
      await byBytes.set(`account-${i}`, 'k1', value(i));
    }
    expect(await byBytes.get('account-1', 'k1')).toBeUndefined();
    expect(await byBytes.get('account-4', 'k1')).toEqual(value(4));
    expect(await byBytes.bytes()).toBe(SIZE * 3);

    await local.redis.client.flushall();
    const byEntries = make({ maxEntries: 2 }, now);
    for (let i = 1; i <= 3; i++) {
      now.t += 1;
      await byEntries.set('account', `k${i}`, value(i));
    }
    expect(await local.redis.client.keys('proplens:v1:cache:e:*')).toHaveLength(2);
    expect(await byEntries.get('account', 'k1')).toBeUndefined();
  });

  it('replaces an entry stored again without counting it twice, and skips one larger than a share', async () => {
    const cache = make({ maxBytes: SIZE * 4, accountShare: 0.5 });
    await cache.set('a', 'k1', value(1));
    await cache.set('a', 'k1', value(2));
    expect(await cache.get('a', 'k1')).toEqual(value(2));
    expect(await cache.bytes('a')).toBe(SIZE);
    await cache.set('a', 'k9', { n: 9, text: 'y'.repeat(SIZE * 3) });
    expect(await cache.get('a', 'k9')).toBeUndefined();
    expect(await cache.get('a', 'k1')).toEqual(value(2));
  });

  it('forgets the bookkeeping of entries Redis has expired', async () => {
    const now = { t: 1000 };
    const cache = make({ ttlMs: 60_000 }, now);
    await cache.set('a', 'k1', value(1));
    now.t += 60_001;
    await cache.set('a', 'k2', value(2));
    expect(await cache.bytes('a')).toBe(SIZE);
    expect(await local.redis.client.zcard('proplens:v1:cache:order')).toBe(1);
  });

  it('stores nothing when turned off (CACHE_TTL_S=0)', async () => {
    const cache = make({ ttlMs: 0 });
    await cache.set('a', 'k1', value(1));
    expect(await cache.get('a', 'k1')).toBeUndefined();
    expect(await local.redis.client.dbsize()).toBe(0);
  });

  it('names entries by hashes, never the account key hash or the address', async () => {
    const cache = make();
    await cache.set('f00dfeed'.repeat(8), 'resolve:1100 congress ave austin tx', value(1));
    // Stored (a positive control: with nothing stored, the checks below would pass vacuously).
    expect(await cache.get('f00dfeed'.repeat(8), 'resolve:1100 congress ave austin tx')).toEqual(value(1));
    const names = await local.redis.client.keys('*');
    expect(names.length).toBeGreaterThan(0);
    for (const name of names) {
      expect(name.startsWith('proplens:v1:cache:')).toBe(true);
      expect(name).not.toContain('f00dfeed');
      expect(name).not.toContain('congress');
    }
  });

  it('with Redis away: a lookup answers 503, a store is skipped (the answer in hand still goes out)', async () => {
    const gone = new RedisConnection({ url: 'redis://127.0.0.1:1' });
    const cache = new RedisCache(gone, keys, {
      ttlMs: 1000,
      maxBytes: 1000,
      maxEntries: 10,
      accountShare: 1,
    });
    await expect(cache.get('a', 'k')).rejects.toMatchObject({ status: 503, code: 'store_unavailable' });
    await expect(cache.set('a', 'k', value(1))).resolves.toBeUndefined();
    await gone.close();
  });
});
