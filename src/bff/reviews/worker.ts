import type { Logger } from 'pino';
import { Cancellation } from '../cancel.ts';
import type { Session } from '../stores/sessions/types.ts';
import { isRetryable, type RowResult } from './look-up-row.ts';

/** A row handed to this replica for a while: nobody else works it until the lease runs out. */
export interface LeasedRow {
  reviewId: string;
  accountId: string;
  run: number;
  index: number;
  address: string;
  /** "Check again" runs bypass the cache. */
  fresh: boolean;
  /** Earlier attempts that ended in a retryable failure. */
  attempts: number;
}

/** The durable side of the worker (the review store): leases, results, retries. */
export interface ReviewQueue {
  /** Up to `limit` pending rows of running reviews of these accounts, leased to `owner` for `leaseMs`. */
  lease(owner: string, accountIds: readonly string[], limit: number, leaseMs: number): Promise<LeasedRow[]>;
  /** Keeps the leases alive while their rows wait for the rate limit. */
  extend(owner: string, rows: readonly LeasedRow[], leaseMs: number): Promise<void>;
  /** The row's one outcome for its run; false when the lease was lost (another replica has the row now). */
  complete(owner: string, row: LeasedRow, result: RowResult): Promise<boolean>;
  /** Gives the row back, to be leased again no sooner than `notBefore` (epoch ms), counting an attempt. */
  retryLater(owner: string, row: LeasedRow, notBefore: number): Promise<void>;
}

/** A signed-in session of an account whose key the review may use; undefined when nobody is signed in. */
export interface AccountSessions {
  /** Accounts with at least one live session on any replica. */
  liveAccounts(): Promise<string[]>;
  /** One live session of the account (its idle clock reset: a running review keeps it alive). */
  sessionFor(accountId: string): Promise<Session | undefined>;
}

export interface ReviewWorkerDeps {
  queue: ReviewQueue;
  sessions: AccountSessions;
  lookUp: (session: Session, row: LeasedRow, options: { signal: Cancellation }) => Promise<RowResult>;
  logger: Logger;
  /** This replica's name in leases. */
  owner: string;
  /** Rows this replica works at once; the scheduler paces them to the account's rate limit. */
  concurrency?: number;
  leaseMs?: number;
  /** How often to look for work when nothing woke the worker. */
  pollMs?: number;
  /** Retryable failures before a row keeps its failed outcome. */
  maxAttempts?: number;
  now?: () => number;
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
  readonly #deps: Required<Omit<ReviewWorkerDeps, 'onProgress'>> & Pick<ReviewWorkerDeps, 'onProgress'>;
  readonly #active = new Map<string, { row: LeasedRow; cancel: Cancellation }>();
  #running = false;
  #wake: (() => void) | null = null;
  #loop: Promise<void> | null = null;
  #heartbeat: ReturnType<typeof setInterval> | null = null;

  constructor(deps: ReviewWorkerDeps) {
    this.#deps = {
      concurrency: 8,
      leaseMs: 30_000,
      pollMs: 1_000,
      maxAttempts: 5,
      now: Date.now,
      ...deps,
    };
  }

  start(): void {
    if (this.#running) return;
    this.#running = true;
    this.#heartbeat = setInterval(() => void this.#extend(), this.#deps.leaseMs / 3);
    this.#heartbeat.unref?.();
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
      try {
        const free = this.#deps.concurrency - this.#active.size;
        if (free > 0) {
          const accounts = await this.#deps.sessions.liveAccounts();
          if (accounts.length > 0)
            leased = await this.#deps.queue.lease(this.#deps.owner, accounts, free, this.#deps.leaseMs);
        }
      } catch (err) {
        // The database or the session store is down: try again at the next poll, nothing is lost.
        this.#deps.logger.warn(
          { err: { message: (err as Error).message } },
          'review worker could not lease rows',
        );
      }
      for (const row of leased) this.#work(row);
      if (leased.length === 0 || this.#active.size >= this.#deps.concurrency) await this.#sleep();
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

  #work(row: LeasedRow): void {
    const key = `${row.reviewId}:${row.run}:${row.index}`;
    const cancel = new Cancellation();
    this.#active.set(key, { row, cancel });
    void this.#process(row, cancel)
      .catch((err) => {
        this.#deps.logger.warn(
          { err: { message: (err as Error).message }, reviewId: row.reviewId },
          'review row not written',
        );
      })
      .finally(() => {
        this.#active.delete(key);
        this.#wake?.();
      });
  }

  async #process(row: LeasedRow, cancel: Cancellation): Promise<void> {
    const { queue, sessions, owner, now } = this.#deps;
    const holder = await sessions.sessionFor(row.accountId);
    if (!holder) {
      // Signed out since the lease: the row waits for the account's next sign-in.
      await queue.retryLater(owner, { ...row, attempts: row.attempts - 1 }, now() + this.#deps.pollMs);
      return;
    }
    const result = await this.#deps.lookUp(holder, row, { signal: cancel });
    if (cancel.aborted) return;
    if (result.error?.code === 'unauthenticated') {
      // That key stopped working (its session is ended): the row waits for another session of the account.
      await queue.retryLater(owner, { ...row, attempts: row.attempts - 1 }, now() + this.#deps.pollMs);
      return;
    }
    if (isRetryable(result) && row.attempts + 1 < this.#deps.maxAttempts) {
      await queue.retryLater(owner, row, retryAt(result, row.attempts, now()));
      return;
    }
    if (await queue.complete(owner, row, result)) this.#deps.onProgress?.(row.reviewId);
  }

  async #extend(): Promise<void> {
    const rows = [...this.#active.values()].map((a) => a.row);
    if (rows.length === 0) return;
    try {
      await this.#deps.queue.extend(this.#deps.owner, rows, this.#deps.leaseMs);
    } catch (err) {
      this.#deps.logger.warn({ err: { message: (err as Error).message } }, 'review leases not extended');
    }
  }
}

/** When to ask a retryable row again: at the rate limit's reset when it says, else backing off 2^n seconds. */
export function retryAt(result: RowResult, attempts: number, now: number): number {
  const reset = result.error?.resetAt ? Date.parse(result.error.resetAt) : Number.NaN;
  if (Number.isFinite(reset) && reset > now) return Math.min(reset, now + 3_600_000);
  return now + Math.min(60_000, 1_000 * 2 ** attempts);
}
