import { randomBytes } from 'node:crypto';
import type { Logger } from 'pino';
import type { Database } from '../db/database.ts';
import type { Lookups } from '../lookups.ts';
import type { BffMetrics } from '../metrics.ts';
import { isKeyRefused } from '../refused-keys.ts';
import { SqlReviewQueue } from '../stores/reviews/queue.ts';
import { ReviewRepeats } from '../stores/reviews/repeats.ts';
import { SqlReviewStore } from '../stores/reviews/review-store.ts';
import type { SessionStore } from '../stores/sessions/types.ts';
import { lookUpRow, noAddressAnswer } from './look-up-row.ts';
import { ReviewCarriers } from './review-carriers.ts';
import { ReviewWorker } from './worker.ts';

/** Reviews kept on the server: the store the routes read and write, and the worker that answers the rows. */
export interface DurableReviews {
  store: SqlReviewStore;
  worker: ReviewWorker;
  database: Database;
  /** Live views on this replica listen here to answer at once (other replicas' work shows at the next poll). */
  onProgress(listener: (reviewId: string) => void): () => void;
  /** A review moved outside the worker (a row fixed in place): its live views on this replica look now. */
  announce(reviewId: string): void;
}

export interface DurableReviewOptions {
  database: Database;
  lookups: Lookups;
  sessions: SessionStore;
  logger: Logger;
  /** Rows this replica works at once (REVIEW_CONCURRENCY). */
  concurrency?: number;
  /** Review requests of a key waiting for a rate-limit slot (the scheduler's): such rows hold no slot. */
  slotWaiters?: (keyHash: string) => number;
  pollMs?: number;
  /** How long a leased row is this replica's before another may take it (tests shorten it). */
  leaseMs?: number;
  /** Counts each answered row by outcome and cache (proplens_review_rows_total). */
  metrics?: Pick<BffMetrics, 'reviewRows'>;
  /** The time rows wait by (due, leased, answered): the upstream's clock (src/bff/clock.ts), the system's if absent. */
  now?: () => number;
  /** That clock's moves, when a test moves it: leases are extended and due rows looked for at once. */
  onClockAdvance?: (listener: () => void) => () => void;
}

export function createDurableReviews(options: DurableReviewOptions): DurableReviews {
  const { database, lookups, sessions, logger } = options;
  const now = options.now ?? Date.now;
  const listeners = new Set<(reviewId: string) => void>();
  const carriers = new ReviewCarriers(database.db, announce);
  const repeats = new ReviewRepeats(database.db);
  const worker = new ReviewWorker({
    queue: new SqlReviewQueue(database.db, database.dialect, now, database.sqlite),
    sessions: {
      liveAccounts: () => sessions.liveAccounts(),
      sessionFor: async (accountId, prefer) => (await sessions.sessionFor(accountId, prefer))?.session,
    },
    lookUp: async (session, row, { signal, hold }) => {
      // Nothing to ask (a file's row without an address or parcel number), or asked already in this run.
      if (row.address.trim() === '') return noAddressAnswer(new Date(now()).toISOString());
      await carriers.note(row, session);
      // The entry names the review and its owner besides the key that makes the lookup.
      const audit = { kind: 'review_row' as const, reviewId: row.reviewId, row: row.index, hold };
      const context = row.owner ? { ...audit, owner: row.owner } : audit;
      // A repeat of a key the review asks (or is asking) shares that answer: no lookup is made for it.
      const { answer: result, repeat } = await repeats.answer(row, () =>
        lookUpRow(lookups, session, row.address, {
          fresh: row.fresh,
          signal,
          now,
          // The entry is held, to be written with the row's answer (ReviewWorker #process).
          audit: context,
        }),
      );
      if (repeat && result.outcome !== 'failed') {
        // Its entry is held, as a lookup's would be, and kept with the row's answer.
        await lookups.recordRepeat(session, context, row.address, { ...result, outcome: result.outcome });
        options.metrics?.reviewRows.inc({ outcome: result.outcome, cached: 'true' });
        return result;
      }
      // A refused key (refused-keys.ts) has ended its sessions already: the row waits for a sign-in, and is no
      // answer to count.
      if (!isKeyRefused(result))
        options.metrics?.reviewRows.inc({ outcome: result.outcome, cached: String(result.cached) });
      return result;
    },
    logger,
    owner: `bff-${randomBytes(6).toString('hex')}`,
    ...(options.concurrency ? { concurrency: options.concurrency } : {}),
    ...(options.slotWaiters ? { slotWaiters: options.slotWaiters } : {}),
    ...(options.pollMs ? { pollMs: options.pollMs } : {}),
    ...(options.leaseMs ? { leaseMs: options.leaseMs } : {}),
    now,
    ...(options.onClockAdvance ? { onClockAdvance: options.onClockAdvance } : {}),
    onProgress: announce,
  });
  function announce(reviewId: string) {
    for (const listener of listeners) listener(reviewId);
  }
  return {
    store: new SqlReviewStore(database.db, now),
    worker,
    database,
    onProgress(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    announce,
  };
}
