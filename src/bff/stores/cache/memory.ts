import { LRUCache } from 'lru-cache';
import type { CacheLimits, ResultCache } from './types.ts';

interface Entry<V> {
  value: V;
  account: string;
  bytes: number;
}

/**
 * TTL plus an LRU bound in bytes (lru-cache), and a per-account share: an account over its share evicts its own
 * least recently stored entries, never another account's.
 */
export class MemoryCache<V> implements ResultCache<V> {
  readonly #lru: LRUCache<string, Entry<V>> | null;
  /** Per account: its keys in the order stored (oldest first), and their bytes. */
  readonly #accounts = new Map<string, { keys: Set<string>; bytes: number }>();
  readonly #accountMax: number;

  constructor(limits: CacheLimits, now: () => number = Date.now) {
    this.#accountMax = Math.max(1, Math.floor(limits.maxBytes * limits.accountShare));
    this.#lru =
      limits.ttlMs <= 0 || limits.maxBytes <= 0 || limits.maxEntries <= 0
        ? null
        : new LRUCache<string, Entry<V>>({
            max: limits.maxEntries,
            maxSize: limits.maxBytes,
            sizeCalculation: (e) => e.bytes,
            ttl: limits.ttlMs,
            perf: { now },
            ttlResolution: 0,
            dispose: (e, key) => this.#forget(e.account, key, e.bytes),
          });
  }

  async get(account: string, key: string): Promise<V | undefined> {
    return this.#lru?.get(`${account}:${key}`)?.value;
  }

  async set(account: string, key: string, value: V): Promise<void> {
    const lru = this.#lru;
    if (!lru) return;
    const bytes = JSON.stringify(value).length + key.length + 64;
    if (bytes > this.#accountMax) return;
    const full = `${account}:${key}`;
    lru.delete(full);
    let own = this.#accounts.get(account);
    while (own && own.bytes + bytes > this.#accountMax) {
      const oldest = own.keys.values().next().value;
      if (oldest === undefined) break;
      lru.delete(oldest);
      own = this.#accounts.get(account);
    }
    lru.set(full, { value, account, bytes });
    if (!lru.has(full)) return;
    if (!own) {
      own = { keys: new Set(), bytes: 0 };
      this.#accounts.set(account, own);
    }
    own.keys.add(full);
    own.bytes += bytes;
  }

  #forget(account: string, key: string, bytes: number) {
    const own = this.#accounts.get(account);
    if (!own?.keys.delete(key)) return;
    own.bytes -= bytes;
    if (own.keys.size === 0) this.#accounts.delete(account);
  }

  /** Bytes held, in all and per account. */
  get bytes(): number {
    return this.#lru?.calculatedSize ?? 0;
  }

  accountBytes(account: string): number {
    return this.#accounts.get(account)?.bytes ?? 0;
  }

  get size(): number {
    return this.#lru?.size ?? 0;
  }
}
