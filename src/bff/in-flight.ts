import { Cancellation, type CancelSignal, ClientGone } from './cancel.ts';

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
