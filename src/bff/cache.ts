/**
 * Results cache: TTL plus a bound on entries (least recently used goes first). Async so a Redis
 * implementation can stand in for it when several replicas share one cache.
 */
export interface ResultCache<V> {
  get(key: string): Promise<V | undefined>;
  set(key: string, value: V): Promise<void>;
}

export class MemoryCache<V> implements ResultCache<V> {
  readonly #entries = new Map<string, { value: V; expires: number }>();

  constructor(
    private readonly ttlMs: number,
    private readonly maxEntries: number,
    private readonly now: () => number = Date.now,
  ) {}

  async get(key: string): Promise<V | undefined> {
    const entry = this.#entries.get(key);
    if (!entry) return undefined;
    if (this.now() >= entry.expires) {
      this.#entries.delete(key);
      return undefined;
    }
    // Re-insert: a Map iterates in insertion order, so the first key is always the least recently used.
    this.#entries.delete(key);
    this.#entries.set(key, entry);
    return entry.value;
  }

  async set(key: string, value: V): Promise<void> {
    if (this.ttlMs <= 0) return;
    this.#entries.delete(key);
    this.#entries.set(key, { value, expires: this.now() + this.ttlMs });
    while (this.#entries.size > this.maxEntries)
      this.#entries.delete(this.#entries.keys().next().value as string);
  }

  get size(): number {
    return this.#entries.size;
  }
}

/**
 * Identical concurrent calls share one promise: a burst of the same search costs one upstream request.
 * The shared work is aborted only when every caller waiting on it has gone away.
 */
export class InFlight<V> {
  readonly #pending = new Map<
    string,
    { promise: Promise<V>; controller: AbortController; waiting: number }
  >();

  run(key: string, work: (signal: AbortSignal) => Promise<V>, caller?: AbortSignal): Promise<V> {
    let entry = this.#pending.get(key);
    if (!entry) {
      const controller = new AbortController();
      const created = { controller, waiting: 0, promise: work(controller.signal) };
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
