import type { Lane } from '../../contract/index.ts';
import { type CancelSignal, ClientGone } from '../cancel.ts';
import type { AttemptResult, BudgetStore, Decision } from './budget.ts';

/** The wait for a slot would run past the caller's deadline; `resetAt` is when one frees up. */
export class SlotUnavailable extends Error {
  constructor(readonly resetAt: number) {
    super('no upstream slot before the deadline');
  }
}

/** A reserved upstream request. Release it exactly once with what the attempt found out. */
export interface Slot {
  release(result: AttemptResult): Promise<void>;
}

interface Waiter {
  lane: Lane;
  deadline: number;
  seq: number;
  resolve: (slot: Slot) => void;
  reject: (err: Error) => void;
  done: boolean;
  /** The budget refused while it queued: its grant ends a rate-limit wait (metrics). */
  held: boolean;
}

export interface SchedulerDeps {
  now?: () => number;
  /** A clock tests move forward (src/bff/clock.ts): each wait re-arms against the new time. */
  onAdvance?: (listener: () => void) => () => void;
  /** Scheduler events for metrics (waits, grants); optional. `held`: it waited for the budget. */
  onGrant?: (lane: Lane, waitedMs: number, held: boolean) => void;
}

/**
 * Who decides when a request may go upstream: every upstream call of an account waits here for a slot
 * reserved against that account's budget (see budget.ts for the rules). Interactive requests are served
 * before review work; each waiter has a deadline, and one that cannot get a slot before it is refused at
 * once (SlotUnavailable) rather than held. Waiting is per account: one account's limit never holds up another.
 */
export class UpstreamScheduler {
  readonly #now: () => number;
  readonly #queues = new Map<string, Waiter[]>();
  readonly #timers = new Map<string, { at: number; timer: ReturnType<typeof setTimeout> }>();
  readonly #chains = new Map<string, Promise<void>>();
  #seq = 0;

  constructor(
    private readonly store: BudgetStore,
    private readonly deps: SchedulerDeps = {},
  ) {
    this.#now = deps.now ?? Date.now;
    deps.onAdvance?.(() => {
      for (const [key, { at }] of [...this.#timers]) {
        clearTimeout(this.#timers.get(key)?.timer);
        this.#timers.delete(key);
        this.#wakeAt(key, at);
      }
    });
  }

  /** Waits for a slot; rejects with SlotUnavailable past `deadline`, or ClientGone when `signal` aborts. */
  acquire(key: string, lane: Lane, deadline: number, signal?: CancelSignal): Promise<Slot> {
    const queued = this.#now();
    if (signal?.aborted) return Promise.reject(new ClientGone());
    // Fast path, for a store in this process: nobody of this account is waiting or being decided, so a slot
    // the budget grants now is this request's by the same rules the queue applies. A refusal queues as usual.
    const sync = this.store.now;
    if (sync && !this.#queues.has(key) && !this.#chains.has(key) && sync.reserve(key, lane, queued).ok) {
      this.deps.onGrant?.(lane, 0, false);
      return Promise.resolve(this.#slot(key));
    }
    return new Promise<Slot>((resolve, reject) => {
      const waiter: Waiter = {
        lane,
        deadline,
        seq: this.#seq++,
        done: false,
        held: false,
        resolve: (slot) => {
          signal?.removeEventListener('abort', onAbort);
          this.deps.onGrant?.(lane, this.#now() - queued, waiter.held);
          resolve(slot);
        },
        reject: (err) => {
          signal?.removeEventListener('abort', onAbort);
          reject(err);
        },
      };
      const onAbort = () => {
        if (waiter.done) return;
        this.#remove(key, waiter);
        waiter.reject(new ClientGone());
      };
      signal?.addEventListener('abort', onAbort, { once: true });
      const queue = this.#queues.get(key) ?? [];
      queue.push(waiter);
      // Interactive first, then first come first served.
      queue.sort((a, b) => (a.lane === b.lane ? a.seq - b.seq : a.lane === 'interactive' ? -1 : 1));
      this.#queues.set(key, queue);
      this.#pump(key);
    });
  }

  /** Waiters per account and lane, for metrics and tests. */
  waiting(key: string): { interactive: number; review: number } {
    const queue = this.#queues.get(key) ?? [];
    const interactive = queue.filter((w) => w.lane === 'interactive').length;
    return { interactive, review: queue.length - interactive };
  }

  #remove(key: string, waiter: Waiter) {
    waiter.done = true;
    const queue = this.#queues.get(key);
    if (!queue) return;
    const i = queue.indexOf(waiter);
    if (i >= 0) queue.splice(i, 1);
    if (queue.length === 0) this.#queues.delete(key);
  }

  /** Decisions for one account run one at a time, in order (the store may be remote and asynchronous). */
  #pump(key: string) {
    const previous = this.#chains.get(key) ?? Promise.resolve();
    const next = previous.then(() => this.#drain(key)).catch(() => {});
    this.#chains.set(key, next);
    void next.then(() => {
      if (this.#chains.get(key) === next) this.#chains.delete(key);
    });
  }

  async #drain(key: string) {
    const queue = this.#queues.get(key);
    if (!queue || queue.length === 0) return;
    let wakeAt = Number.POSITIVE_INFINITY;
    for (let i = 0; i < queue.length; ) {
      const waiter = queue[i] as Waiter;
      const now = this.#now();
      let decision: Decision;
      try {
        decision = await this.store.reserve(key, waiter.lane, now);
      } catch (err) {
        // The store failed (a shared one unreachable): no decision is coming, so answer everyone waiting
        // with that failure now rather than leaving them for a wake-up that never comes.
        for (const w of [...queue]) {
          this.#remove(key, w);
          w.reject(err as Error);
        }
        return;
      }
      if (waiter.done) {
        // Aborted while we asked: give the slot back untouched.
        if (decision.ok) await this.store.observe(key, { kind: 'none' }, now);
        continue;
      }
      if (decision.ok) {
        this.#remove(key, waiter);
        waiter.resolve(this.#slot(key));
        continue;
      }
      // Blocked: so is everyone behind it (same lane or lower priority). Refuse those who would miss their
      // deadline; wake up when the first of the rest may go, or a deadline passes.
      for (const w of [...queue.slice(i)]) {
        const certainLate = decision.retryAt !== null && decision.retryAt > w.deadline;
        const expired = decision.retryAt === null && now >= w.deadline;
        if (certainLate || expired) {
          this.#remove(key, w);
          w.reject(new SlotUnavailable(decision.resetAt ?? decision.retryAt ?? now + 1000));
        } else {
          w.held = true;
          if (decision.retryAt === null) wakeAt = Math.min(wakeAt, w.deadline);
        }
      }
      if (decision.retryAt !== null) wakeAt = Math.min(wakeAt, decision.retryAt);
      // A review waiter blocked by pacing does not block an interactive one ahead of it, and interactive
      // ones come first: so after the first refusal nobody behind can go.
      break;
    }
    if (Number.isFinite(wakeAt) && (this.#queues.get(key)?.length ?? 0) > 0) this.#wakeAt(key, wakeAt);
  }

  #wakeAt(key: string, at: number) {
    const existing = this.#timers.get(key);
    if (existing && existing.at <= at) return;
    if (existing) clearTimeout(existing.timer);
    const timer = setTimeout(
      () => {
        this.#timers.delete(key);
        this.#pump(key);
      },
      Math.max(0, at - this.#now()),
    );
    (timer as { unref?: () => void }).unref?.();
    this.#timers.set(key, { at, timer });
  }

  #slot(key: string): Slot {
    let released = false;
    return {
      release: async (result) => {
        if (released) return;
        released = true;
        const sync = this.store.now;
        if (sync) {
          sync.observe(key, result, this.#now());
          // The freed slot can only matter to someone waiting.
          if (this.#queues.has(key)) this.#pump(key);
          return;
        }
        await this.store.observe(key, result, this.#now());
        this.#pump(key);
      },
    };
  }
}
