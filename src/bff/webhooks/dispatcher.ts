import { randomBytes } from 'node:crypto';
import type { Kysely } from 'kysely';
import type { Logger } from 'pino';
import type { DatabaseSchema } from '../db/schema.ts';
import { CompletedRuns } from './completed-runs.ts';
import { type AfterAttempt, KEEP_MS, type LeasedMessage, type WebhookOutbox } from './outbox-store.ts';
import { type AttemptResult, type SendOptions, sendAttempt } from './sender.ts';

/** First retry after about 5 s, doubling, at most an hour apart: about 30 attempts in the 24 hours. */
const FIRST_RETRY_MS = 5_000;
const LONGEST_WAIT_MS = 3_600_000;
/**
 * Old delivery-log events deleted by one pass (with their attempts): a synchronous delete on SQLite holds the event
 * loop, and 500 held it 123 ms (median) at load 14; 100 a pass a second still clears 360,000 an hour.
 */
export const FORGET_BATCH = 100;

/**
 * When to try again after failed attempt number `attempt`, or null to give up: exponential back-off with jitter
 * (±25%, so endpoints that failed together do not all come back at one moment), never past `retryUntil`; the last
 * attempt is made at `retryUntil` itself, and a failure then is final.
 */
export function nextAttemptAt(attempt: number, now: number, retryUntil: number, random: () => number) {
  if (now >= retryUntil) return null;
  const wait = Math.min(FIRST_RETRY_MS * 2 ** Math.min(attempt - 1, 30), LONGEST_WAIT_MS);
  return Math.min(now + Math.round(wait * (0.75 + random() * 0.5)), retryUntil);
}

/** A leased message whose secret opened. */
export type SignableMessage = LeasedMessage & { secret: string };

/** A message whose endpoint's secret does not open is not sent unsigned: the log says why, and retries wait. */
const UNOPENED: AttemptResult = {
  delivered: false,
  statusCode: null,
  error:
    "Not sent: this endpoint's signing secret was sealed under another KEY_ENCRYPTION_SECRET. Rotate its secret (or restore the server's secret).",
  durationMs: 0,
  response: null,
};

export interface DispatcherOptions {
  db: Kysely<DatabaseSchema>;
  outbox: WebhookOutbox;
  logger: Logger;
  /** The BFF's clock (src/bff/clock.ts): when a message is due, leases, back-off. */
  now: () => number;
  send?: SendOptions;
  /** A lease outlives an attempt (10 s) with room to spare; a dead replica's messages go to others after it. */
  leaseMs?: number;
  pollMs?: number;
  /** Messages sent at once by this replica. */
  concurrency?: number;
  random?: () => number;
  /** Test seam: the attempt itself (default sendAttempt). */
  /** Run once, successfully, before the first pass (a failure is retried at the next pass). */
  prepare?: () => Promise<void>;
  attempt?: (message: SignableMessage, options: SendOptions) => Promise<AttemptResult>;
}

/**
 * The loop every replica runs: queue the review.completed events durable state calls for, lease due messages,
 * send each, log the attempt and move the message on (delivered, again later, failed). Nothing is held in memory
 * that a restart would lose: what is due is in the outbox, and a lease of a replica that died runs out.
 */
export class WebhookDispatcher {
  readonly owner = `webhooks-${randomBytes(6).toString('hex')}`;
  readonly #o: Required<Omit<DispatcherOptions, 'send'>> & { send: SendOptions };
  #timer: ReturnType<typeof setTimeout> | undefined;
  #running: Promise<unknown> | null = null;
  /** The loop is on (start() until stop()). */
  #looping = false;
  /** stop() was called: a pass under way sends what it leased and stops. */
  #stopping = false;
  #again = false;
  #forgotAt = Number.NEGATIVE_INFINITY;
  /** The last pass's batch of old log entries was full: the next pass deletes another. */
  #forgetMore = false;
  #prepared = false;
  readonly #completed: CompletedRuns;
  /** Wakes a pass waiting on its attempts: something was queued. */
  #wake: () => void = () => {};

  constructor(options: DispatcherOptions) {
    this.#o = {
      leaseMs: 60_000,
      pollMs: 1_000,
      concurrency: 8,
      random: Math.random,
      prepare: async () => {},
      attempt: sendAttempt,
      send: { allowPrivate: false, timeoutMs: 10_000 },
      ...options,
    };
    this.#completed = new CompletedRuns(options.db, options.outbox);
  }

  start(): void {
    if (this.#looping) return;
    this.#looping = true;
    this.#stopping = false;
    this.#schedule(0);
  }

  /** Stops polling and waits for the pass under way (its attempts end within the send timeout). */
  async stop(): Promise<void> {
    this.#looping = false;
    this.#stopping = true;
    clearTimeout(this.#timer);
    await this.#running;
  }

  /** Something was queued: look now rather than at the next poll. */
  notify(): void {
    this.#wake();
    if (!this.#looping) return;
    if (this.#running) this.#again = true;
    else this.#schedule(0);
  }

  #schedule(ms: number): void {
    clearTimeout(this.#timer);
    this.#timer = setTimeout(() => {
      this.#running = this.tick()
        .catch((err: Error) => this.#o.logger.warn({ err: { message: err.message } }, 'webhook pass failed'))
        .finally(() => {
          this.#running = null;
          if (!this.#looping) return;
          const again = this.#again;
          this.#again = false;
          this.#schedule(again ? 0 : this.#o.pollMs);
        });
    }, ms);
    this.#timer.unref?.();
  }

  /** One pass; answers how many attempts it made. */
  async tick(): Promise<number> {
    const o = this.#o;
    if (!this.#prepared) {
      await o.prepare();
      this.#prepared = true;
    }
    await this.#completed.enqueue(o.now());
    // The log's old entries go once an hour, a batch a pass until none is left (any replica; deleting twice is
    // harmless): a busy account's log had outgrown a single batch an hour (hostile review M10), and a pass that
    // deleted it all at once would hold the deliveries behind it.
    if (this.#forgetMore || o.now() - this.#forgotAt >= 3_600_000) {
      this.#forgotAt = o.now();
      this.#forgetMore = (await o.outbox.forget(o.now() - KEEP_MS, FORGET_BATCH)) === FORGET_BATCH;
    }
    // A pool of `concurrency` attempts: a slot that frees is leased again at once, so a slow receiver holds its
    // own slots only, never a whole batch; and one account holds at most half of them, so another account's
    // event finds a slot even while one account's receiver hangs until the timeout.
    let made = 0;
    const inFlight = new Set<Promise<void>>();
    const held = new Map<string, number>();
    const perAccount = Math.max(1, Math.ceil(o.concurrency / 2));
    for (;;) {
      const free = this.#stopping ? 0 : o.concurrency - inFlight.size;
      const leased = free > 0 ? await o.outbox.lease(this.owner, free, o.leaseMs, { held, perAccount }) : [];
      for (const message of leased) {
        held.set(message.accountId, (held.get(message.accountId) ?? 0) + 1);
        const attempt: Promise<void> = this.#deliver(message)
          .catch((err: Error) =>
            o.logger.warn({ err: { message: err.message } }, 'webhook attempt not recorded'),
          )
          .finally(() => {
            inFlight.delete(attempt);
            held.set(message.accountId, (held.get(message.accountId) ?? 1) - 1);
          });
        inFlight.add(attempt);
      }
      made += leased.length;
      if (inFlight.size === 0) return made;
      // Nothing more to lease now: wait for a slot to free, or for something to be queued (notify).
      if (leased.length === 0) {
        await Promise.race([...inFlight, new Promise<void>((r) => (this.#wake = r))]);
        // Attempts that end together free their slots together: one lease for them all.
        await new Promise((r) => setImmediate(r));
      }
    }
  }

  async #deliver(message: LeasedMessage): Promise<void> {
    const o = this.#o;
    const { secret } = message;
    const result = secret === null ? UNOPENED : await o.attempt({ ...message, secret }, o.send);
    const now = o.now();
    let after: AfterAttempt;
    if (result.delivered) after = { state: 'delivered', at: now };
    else {
      const next = nextAttemptAt(message.attempt, now, message.retryUntil, o.random);
      after = next === null ? { state: 'failed' } : { state: 'pending', nextAttemptAt: next };
    }
    await o.outbox.finish(this.owner, message, result, after);
    if (after.state === 'failed')
      o.logger.info(
        { webhookId: message.id, endpoint: message.endpointId },
        'webhook given up after retries',
      );
  }
}
