import { LRUCache } from 'lru-cache';
import { Cancellation, type CancelSignal } from './cancel.ts';
import { ClientGone } from './upstream/scheduler.ts';

/**
 * Results cache, per account. Async so a shared implementation (Redis) can stand in for it when several
 * replicas share one cache.
 */
export interface ResultCache<V> {
  get(account: string, key: string): Promise<V | undefined>;
  set(account: string, key: string, value: V): Promise<void>;
}

export interface CacheLimits {
  ttlMs: number;
  /** Bound on the whole cache, in bytes of the values' JSON (an estimate of what they hold in memory). */
  maxBytes: number;
  /** Bound on entries, whatever their size. */
  maxEntries: number;
  /** The most of maxBytes one account may hold, 0..1: one busy account cannot evict every other. */
  accountShare: number;
}

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

/**
 * Identical concurrent calls share one promise: a burst of the same search costs one upstream request.
 * The shared work is aborted only when every caller waiting on it has gone away.
 */
export class InFlight<V> {
  readonly #pending = new Map<string, { promise: Promise<V>; controller: Cancellation; waiting: number }>();

  run(key: string, work: (signal: CancelSignal) => Promise<V>, caller?: CancelSignal): Promise<V> {
    // A caller already gone would be counted as waiting forever (its abort listener never runs).
    if (caller?.aborted) return Promise.reject(new ClientGone());
    let entry = this.#pending.get(key);
    if (!entry) {
      const controller = new Cancellation();
      const created = { controller, waiting: 0, promise: work(controller) };
      created.promise = created.promise.finally(() => this.#pending.delete(key));
      this.#pending.set(key, created);
      entry = created;
    }
    const shared = entry;
    shared.waiting++;
    caller?.addEventListener(
      'abort',
      () => {
        if (--shared.waiting === 0) shared.controller.abort(caller.reason);
      },
      { once: true },
    );
    return shared.promise;
  }
}
