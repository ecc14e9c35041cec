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
