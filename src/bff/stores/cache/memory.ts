import { LRUCache } from 'lru-cache';
import type { CacheLimits, ResultCache } from './types.ts';

interface Entry<V> {
  value: V;
  account: string;
  bytes: number;
}

/** An account holding entries: its entries' prefix, its keys in the order stored (oldest first), their bytes. */
interface Holder {
  prefix: string;
  keys: Set<string>;
  bytes: number;
}

/**
 * TTL plus an LRU bound in bytes (lru-cache), and a per-account share: an account over its share evicts its own
 * least recently stored entries, never another account's.
 *
 * Entries are kept under a short prefix of their account's (a number while it holds any), not the account's own
 * 64-character key hash: that was 127 bytes a key, 11 MB of the 45 MB 90,000 entries took (heap snapshot).
 */
export class MemoryCache<V> implements ResultCache<V> {
  readonly #lru: LRUCache<string, Entry<V>> | null;
  readonly #accounts = new Map<string, Holder>();
  readonly #accountMax: number;
  #prefixes = 0;

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
    const own = this.#accounts.get(account);
    return own && this.#lru?.get(own.prefix + key)?.value;
  }

  async set(account: string, key: string, value: V): Promise<void> {
    const lru = this.#lru;
    if (!lru) return;
    const bytes = JSON.stringify(value).length + key.length + 64;
    if (bytes > this.#accountMax) return;
    const own = this.#holder(account);
    const full = own.prefix + key;
    lru.delete(full);
    while (own.bytes + bytes > this.#accountMax) {
      const oldest = own.keys.values().next().value;
      if (oldest === undefined) break;
      lru.delete(oldest);
    }
    lru.set(full, { value, account, bytes });
    if (lru.has(full)) {
      own.keys.add(full);
      own.bytes += bytes;
    }
    // Evicting its own entries to make room may have emptied it (and forgotten it): it holds this one now.
    if (own.keys.size > 0) this.#accounts.set(account, own);
    else this.#accounts.delete(account);
  }

  /** The account's holder; a new prefix when it holds nothing (no entry is left under an old one). */
  #holder(account: string): Holder {
    const own = this.#accounts.get(account);
    if (own) return own;
    return { prefix: `${(this.#prefixes++).toString(36)}:`, keys: new Set(), bytes: 0 };
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
