/**
 * What cancellable work on the upstream path listens to: the part of AbortSignal it uses, so that a browser's
 * AbortSignal and our own cheap token both fit.
 */
export interface CancelSignal {
  readonly aborted: boolean;
  readonly reason: unknown;
  addEventListener(type: 'abort', listener: () => void, options?: { once?: boolean }): void;
  removeEventListener(type: 'abort', listener: () => void): void;
}

/**
 * A cancel token shaped like AbortSignal, for the signals the BFF makes per request. An AbortController is an
 * EventTarget: making one and adding and removing a listener costs about 4 µs here, this about 0.1 µs, and an
 * uncached request needs two (docs/decisions/005-lean-hot-path.md). As with AbortSignal, each listener runs at
 * most once, in the order added, a listener added after the abort never runs, and one that throws does not
 * stop the others (its error is reported as uncaught, as EventTarget does).
 */
export class Cancellation implements CancelSignal {
  aborted = false;
  reason: unknown = undefined;
  #listeners: Set<() => void> | null = null;

  addEventListener(_type: 'abort', listener: () => void): void {
    if (this.aborted) return;
    this.#listeners ??= new Set();
    this.#listeners.add(listener);
  }

  removeEventListener(_type: 'abort', listener: () => void): void {
    this.#listeners?.delete(listener);
  }

  abort(reason: unknown = new Error('cancelled')): void {
    if (this.aborted) return;
    this.aborted = true;
    this.reason = reason;
    const listeners = this.#listeners;
    this.#listeners = null;
    for (const listener of listeners ?? []) {
      try {
        listener();
      } catch (err) {
        queueMicrotask(() => {
          throw err;
        });
      }
    }
  }
}

/** The client disconnected: nothing will read our answer, so stop all upstream work. */
export class ClientGone extends Error {}

/** Waits `ms`, or rejects with the signal's reason as soon as it aborts (backoff and rate-limit waits). */
export function abortableSleep(ms: number, signal?: CancelSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal?.reason);
    };
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}
