import type { Logger } from 'pino';
import type { HeldEntry } from '../audit/audit.ts';
import { Cancellation } from '../cancel.ts';
import { isKeyRefused } from '../refused-keys.ts';
import type { NewAuditEntry } from '../stores/audit/audit-store.ts';
import type { LeaseShares } from '../stores/reviews/lease-order.ts';
import type { Session } from '../stores/sessions/types.ts';
import type { LeasedRow } from './leased-row.ts';
import { isRetryable, type RowResult } from './look-up-row.ts';
import { type HeldRow, type Holding, holding, releasable } from './worker-holding.ts';

// Also named here, beside ReviewQueue, which hands it out: the stores and tests import both from this module.
export type { LeasedRow };

/** The durable side of the worker (the review store): leases, results, retries. */
export interface ReviewQueue {
  /**
   * Up to `limit` pending rows of running reviews of these accounts, leased to `owner` for `leaseMs`: round-robin
   * over the accounts, then their reviews, starting from those `shares` says this replica holds fewest of.
   */
  lease(
    owner: string,
    accountIds: readonly string[],
    limit: number,
    leaseMs: number,
    shares?: LeaseShares,
  ): Promise<LeasedRow[]>;
  /** Keeps the leases alive while their rows wait for the rate limit. */
  extend(owner: string, rows: readonly LeasedRow[], leaseMs: number): Promise<void>;
  /**
   * The row's one outcome for its run, and the audit entry of the lookup that gave it, in one transaction:
   * false when the lease was lost (another replica has the row now), and then neither is written.
   */
  complete(owner: string, row: LeasedRow, result: RowResult, entry?: NewAuditEntry): Promise<boolean>;
  /** Gives the row back, to be leased again no sooner than `notBefore` (epoch ms), counting an attempt. */
  retryLater(owner: string, row: LeasedRow, notBefore: number): Promise<void>;
  /** Gives rows back as they were (same place in line, no attempt counted): this replica let go of them. */
  release(owner: string, rows: readonly LeasedRow[]): Promise<void>;
}

/** A signed-in session of an account whose key the review may use; undefined when nobody is signed in. */
export interface AccountSessions {
  /** Accounts with at least one live session on any replica. */
  liveAccounts(): Promise<string[]>;
  /**
   * One live session of the account (its idle clock reset: a running review keeps it alive): one of the key
   * with fingerprint `prefer` (the review's owner's) when there is one, else the most recently used.
   */
  sessionFor(accountId: string, prefer?: string): Promise<Session | undefined>;
}

export interface ReviewWorkerDeps {
  queue: ReviewQueue;
  sessions: AccountSessions;
  /** `hold` takes the lookup's audit entry, uncommitted: the worker keeps it with the row's answer. */
  lookUp: (
    session: Session,
    row: LeasedRow,
    options: { signal: Cancellation; hold: (held: HeldEntry) => void },
  ) => Promise<RowResult>;
  logger: Logger;
  /** This replica's name in leases. */
  owner: string;
  /**
   * Rows this replica works at once; the scheduler paces them to the account's rate limit. Rows waiting for
   * their account's rate limit (see `slotWaiters`) are not counted: they hold no slot another account could use.
   */
  concurrency?: number;
  /** Review requests of this key waiting for a rate-limit slot (the scheduler's queue); absent, none are known. */
  slotWaiters?: (keyHash: string) => number;
  leaseMs?: number;
  /** How often to look for work when nothing woke the worker. */
  pollMs?: number;
  /** Retryable failures before a row keeps its failed outcome. */
  maxAttempts?: number;
  now?: () => number;
  /**
   * Moves of `now`'s clock, when a test moves it (src/bff/clock.ts): leases are extended at once, so a move never
   * ends a lease still worked, and due rows are looked for at once, as if that time had passed.
   */
  onClockAdvance?: (listener: () => void) => () => void;
  /** Tells the SSE streams of this replica that a review moved. */
  onProgress?: (reviewId: string) => void;
}

/**
 * Works review rows in the background, on any replica: leases pending rows from the database, looks each up
 * on the key of a live session of the review's account (through the scheduler's review lane, so interactive
 * searches go first and the rate limit holds), writes the one outcome, and keeps its leases alive while rows
 * wait. A replica that dies leaves leases that run out, and another replica takes the rows.
 */
export class ReviewWorker {
  readonly #deps: Required<Omit<ReviewWorkerDeps, 'onProgress' | 'slotWaiters' | 'onClockAdvance'>> &
    Pick<ReviewWorkerDeps, 'onProgress' | 'slotWaiters' | 'onClockAdvance'>;
  #stopListening: (() => void) | null = null;
  readonly #active = new Map<string, HeldRow>();
  #seq = 0;
  #running = false;
  #wake: (() => void) | null = null;
  #loop: Promise<void> | null = null;
  #heartbeat: ReturnType<typeof setInterval> | null = null;
  /**
   * Rows to work at once: `concurrency` while rows go to the service; doubled (up to CACHED_WINDOW) each time
   * a whole window's worth was answered from the cache, since such rows wait on nothing but this process and
   * the database: leases and completions then come in batches of hundreds, not of a few. Back to `concurrency`
   * at the first row that was not.
   */
  #window: number;
  /** Rows answered from the cache in a row (since the last that was not). */
  #cachedRun = 0;

  constructor(deps: ReviewWorkerDeps) {
    this.#deps = {
      concurrency: 8,
      leaseMs: 30_000,
      pollMs: 1_000,
      maxAttempts: 5,
      now: Date.now,
      ...deps,
    };
    this.#window = this.#deps.concurrency;
  }

  start(): void {
    if (this.#running) return;
    this.#running = true;
    this.#heartbeat = setInterval(() => void this.#extend(), this.#deps.leaseMs / 3);
    this.#heartbeat.unref?.();
    this.#stopListening =
      this.#deps.onClockAdvance?.(() => {
        void this.#extend();
        this.notify();
      }) ?? null;
    this.#loop = this.#run();
  }

  /** New work (an upload finished, a sign-in): look now rather than at the next poll. */
  notify(): void {
    this.#wake?.();
  }

  /** Stops taking rows and cancels those in hand; their leases run out and any replica retries them. */
  async stop(): Promise<void> {
    this.#running = false;
    if (this.#heartbeat) clearInterval(this.#heartbeat);
    this.#stopListening?.();
    for (const { cancel } of this.#active.values()) cancel.abort(new Error('worker stopping'));
    this.#wake?.();
    await this.#loop;
  }

  get activeRows(): number {
    return this.#active.size;
  }

  async #run(): Promise<void> {
    while (this.#running) {
      let leased: LeasedRow[] = [];
      let free = 0;
      try {
        const held = this.#holding();
        free = this.#free(held);
        if (free > 0) {
          const accounts = (await this.#deps.sessions.liveAccounts()).filter(
            (a) => held.limitByAccount.get(a) !== 0,
          );
          if (accounts.length > 0)
            leased = await this.#deps.queue.lease(this.#deps.owner, accounts, free, this.#deps.leaseMs, held);
        }
      } catch (err) {
        // The database or the session store is down: try again at the next poll, nothing is lost.
        this.#deps.logger.warn(
          { err: { message: (err as Error).message } },
          'review worker could not lease rows',
        );
      }
      // One session of each account (and review owner) for the whole lease, not a look-up (and a copy of the
      // session) per row: the owner's own key when it is signed in, else a colleague's.
      const sessions = new Map<string, Promise<Session | undefined>>();
      for (const row of leased) {
        const whose = `${row.accountId}:${row.owner ?? ''}`;
        let session = sessions.get(whose);
        if (!session) {
          session = this.#deps.sessions.sessionFor(row.accountId, row.owner);
          sessions.set(whose, session);
        }
        this.#work(row, session);
      }
      if (leased.length === 0 || leased.length >= free) await this.#sleep();
    }
  }

  /**
   * What this replica holds, by account and review; an account's rows parked beyond what its rate limit can
   * take are given back first (their slots go to whoever leases next, its colleagues' reviews included).
   */
  #holding(): Holding {
    const held = holding(this.#active.values(), this.#deps.slotWaiters);
    const extra = releasable(this.#active.values(), held);
    if (extra.length === 0) return held;
    for (const r of extra) {
      r.released = true;
      r.cancel.abort(new Error('given back: its account waits on its rate limit'));
    }
    return holding(this.#active.values(), this.#deps.slotWaiters);
  }

  /** Slots free: working rows count, parked ones not; never more than the window and `concurrency` in hand. */
  #free(held: Holding): number {
    let inHand = 0;
    for (const r of this.#active.values()) if (!r.released) inHand++;
    return Math.min(this.#window - held.working, this.#window + this.#deps.concurrency - inHand);
  }

  /** A row answered (or not) from the cache: the window grows with rows the service was not asked for. */
  #answered(cached: boolean): void {
    if (!cached) {
      this.#cachedRun = 0;
      this.#window = this.#deps.concurrency;
      return;
    }
    if (++this.#cachedRun >= this.#window) {
      this.#cachedRun = 0;
      this.#window = Math.min(CACHED_WINDOW, this.#window * 2);
    }
  }

  #sleep(): Promise<void> {
    return new Promise<void>((resolve) => {
      const timer = setTimeout(done, this.#deps.pollMs);
      function done() {
        clearTimeout(timer);
        resolve();
      }
      this.#wake = () => {
        this.#wake = null;
        done();
      };
    });
  }

  #work(row: LeasedRow, session: Promise<Session | undefined>): void {
    const key = `${row.reviewId}:${row.run}:${row.index}`;
    const held: HeldRow = { row, cancel: new Cancellation(), seq: this.#seq++, released: false };
    this.#active.set(key, held);
    void this.#process(held, session)
      .catch(async (err) => {
        if (held.released) return this.#deps.queue.release(this.#deps.owner, [row]);
        // Stopping: the row's lease runs out and a replica asks it again; nothing to warn of.
        if (!this.#running) return;
        this.#deps.logger.warn(
          { err: { message: (err as Error).message }, reviewId: row.reviewId },
          'review row not written',
        );
      })
      .catch((err) => {
        // Not given back: its lease runs out and any replica takes it again.
        this.#deps.logger.warn(
          { err: { message: (err as Error).message }, reviewId: row.reviewId },
          'review row not given back',
        );
      })
      .finally(() => {
        this.#active.delete(key);
        // Rows answered from the cache finish in batches (their completions commit together): the next lease
        // waits for half the window, to take hundreds of rows rather than the first one's slot.
        if (this.#window === this.#deps.concurrency || this.#active.size <= this.#window / 2) this.#wake?.();
      });
  }

  async #process(held: HeldRow, session: Promise<Session | undefined>): Promise<void> {
    const { queue, owner, now } = this.#deps;
    const { row, cancel } = held;
    const holder = await session;
    // Signed out since the lease (or its key refused): the row waits for the account's next sign-in.
    if (!holder) return this.#askAgain(row);
    held.keyHash = holder.keyHash;
    if (held.released) throw cancel.reason;
    let audit: HeldEntry | undefined;
    const result = await this.#deps.lookUp(holder, row, {
      signal: cancel,
      hold: (entry) => {
        audit = entry;
      },
    });
    this.#answered(result.cached === true);
    if (!held.released && !cancel.aborted && this.#keeps(row, result)) {
      // The answer and its entry in one transaction (ADR 010, addendum): a process killed before it commits has
      // kept neither, so the row asked again is audited once; a lost lease drops both.
      let written: boolean;
      try {
        written = await queue.complete(owner, row, result, audit?.entry);
      } catch (err) {
        // Neither was written (the database, or the trail's table, refused the transaction): the row waits,
        // spending no attempt. The lookup was made all the same: its entry is committed alone if the trail
        // takes it, and the row asked again has an entry of its own.
        await committed(audit);
        await this.#askAgain(row);
        throw err;
      }
      if (written) this.#deps.onProgress?.(row.reviewId);
      // The lease was lost meanwhile (another holder answers the row): this lookup was made with the account's
      // key all the same, so its entry is committed alone, as any lookup's is.
      else await committed(audit);
      return;
    }
    // No answer of this lookup is kept, but it was made: its entry is committed alone, as any lookup's is.
    const recorded = await committed(audit);
    if (held.released) throw cancel.reason;
    if (cancel.aborted) return;
    // That key was refused (refused-keys.ts: its sessions are ended), or the lookup could not be put on record
    // (so it was not made, or its answer not kept): no answer of the service's.
    if (!recorded || !this.#countsAnAttempt(result)) return this.#askAgain(row);
    await queue.retryLater(owner, row, retryAt(result, row.attempts, now()));
  }

  /** Gives the row back to be asked again from the next poll, spending none of its attempts: it had no answer. */
  #askAgain(row: LeasedRow): Promise<void> {
    const { queue, owner, now, pollMs } = this.#deps;
    return queue.retryLater(owner, { ...row, attempts: row.attempts - 1 }, now() + pollMs);
  }

  /** The service answered the lookup (not a refused key, nor a lookup refused for want of its record). */
  #countsAnAttempt(result: RowResult): boolean {
    return !isKeyRefused(result) && result.error?.code !== 'audit_unavailable';
  }

  /** The row's answer is its last: kept, unless it is asked again (a retryable failure with attempts left). */
  #keeps(row: LeasedRow, result: RowResult): boolean {
    return (
      this.#countsAnAttempt(result) && !(isRetryable(result) && row.attempts + 1 < this.#deps.maxAttempts)
    );
  }

  async #extend(): Promise<void> {
    const rows = [...this.#active.values()].filter((a) => !a.released).map((a) => a.row);
    if (rows.length === 0) return;
    try {
      await this.#deps.queue.extend(this.#deps.owner, rows, this.#deps.leaseMs);
    } catch (err) {
      this.#deps.logger.warn({ err: { message: (err as Error).message } }, 'review leases not extended');
    }
  }
}

/** Rows worked at once at most while they are answered from the cache (a completion batch is 500). */
const CACHED_WINDOW = 512;

/** Commits a lookup's held entry alone (none held: nothing to commit); false when it could not be. */
async function committed(audit: HeldEntry | undefined): Promise<boolean> {
  try {
    await audit?.commit();
    return true;
  } catch {
    return false;
  }
}

/** When to ask a retryable row again: at the rate limit's reset when it says, else backing off 2^n seconds. */
export function retryAt(result: RowResult, attempts: number, now: number): number {
  const reset = result.error?.resetAt ? Date.parse(result.error.resetAt) : Number.NaN;
  if (Number.isFinite(reset) && reset > now) return Math.min(reset, now + 3_600_000);
  return now + Math.min(60_000, 1_000 * 2 ** attempts);
}
