import { describe, expect, it } from 'vitest';
import { MemoryCache } from './memory.ts';

/** An entry of about 1 KB as the cache counts it (its JSON, its key, and 64). */
const big = (n: number) => `${n}:${'z'.repeat(900)}`;
const SIZE = JSON.stringify(big(1)).length + 'k1'.length + 64;

describe('MemoryCache, an account that comes and goes', () => {
  it('finds its entries again after it held none, and never another account’s', async () => {
    const now = { t: 1000 };
    const cache = new MemoryCache<string>(
      { ttlMs: 1_000, maxBytes: SIZE * 10, maxEntries: 100, accountShare: 1 },
      () => now.t,
    );
    await cache.set('x', 'k1', big(1));
    await cache.set('y', 'k1', big(2));
    now.t += 1_001; // both expire
    expect(await cache.get('x', 'k1')).toBeUndefined();
    expect(await cache.get('y', 'k1')).toBeUndefined();
    expect(cache.accountBytes('x')).toBe(0);
    // Back in the other order: each finds its own entry, not the other's under the same key.
    await cache.set('y', 'k1', big(3));
    await cache.set('x', 'k1', big(4));
    await cache.set('z', 'k1', big(5));
    expect(await cache.get('x', 'k1')).toBe(big(4));
    expect(await cache.get('y', 'k1')).toBe(big(3));
    expect(await cache.get('z', 'k1')).toBe(big(5));
    expect(cache.accountBytes('x')).toBe(SIZE);
  });

  it('keeps the entry that evicted its account’s last one, and counts it', async () => {
    // A share of one entry: each new key evicts the account's only other one first.
    const cache = new MemoryCache<string>({
      ttlMs: 60_000,
      maxBytes: SIZE * 4,
      maxEntries: 100,
      accountShare: 0.25,
    });
    for (let i = 1; i <= 5; i++) await cache.set('x', `k${i}`, big(i));
    expect(await cache.get('x', 'k5')).toBe(big(5));
    expect(await cache.get('x', 'k4')).toBeUndefined();
    expect(cache.accountBytes('x')).toBe(SIZE);
    expect(cache.size).toBe(1);
  });
});
