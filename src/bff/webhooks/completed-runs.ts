import { type Kysely, sql } from 'kysely';
import type { ReviewCompletedData } from '../../contract/index.ts';
import type { DatabaseSchema } from '../db/schema.ts';
import { newRow, RETRY_WINDOW_MS, type WebhookOutbox } from './outbox-store.ts';
import type { WebhookOutboxTable } from './tables.ts';

/** At most this many review.completed events are queued by one pass (the next pass takes the rest). */
const BATCH = 200;
/**
 * How far behind its watermark a pass reads again: a run is written finished by the replica that finished it, in a
 * transaction that may commit a little after its `finished_at` (and replicas' clocks differ a little). Those
 * already queued are left out by the outbox's own rows, so reading them again costs a seek, not an event.
 */
export const LATE_MS = 5 * 60_000;
/**
 * How far back a dispatcher's first pass reads: a run finished this long before a start (its replica died before
 * the next pass) is still announced. As long as a message's retries: an older one would be given up at once.
 */
export const LOOKBACK_MS = RETRY_WINDOW_MS;

/**
 * review.completed, read from durable state rather than announced by the review store: each run that finished
 * (not cancelled) after an endpoint subscribed to the event was added, and has no outbox row for that endpoint yet,
 * gets one. Every replica's dispatcher may run this at once: the outbox's UNIQUE (endpoint, dedupe key) keeps one
 * row, so each run is announced once per endpoint, also when the replica that finished it died just after.
 *
 * Each pass reads only the runs finished since the last one (hostile review M7: every pass, each second, had
 * joined every run ever finished): from a watermark, by the `review_runs_finished` index (migration 0023), oldest
 * first, BATCH at most. The watermark is the pass's clock once a pass has read everything, or the last run read
 * when it stopped at BATCH; it is kept in memory, so a start reads back LOOKBACK_MS.
 */
export class CompletedRuns {
  #since: number | null = null;

  constructor(
    private readonly db: Kysely<DatabaseSchema>,
    private readonly outbox: WebhookOutbox,
  ) {}

  /** Queues the events of runs finished since the last pass; answers how many rows were queued. */
  async enqueue(now: number): Promise<number> {
    const from = (this.#since ?? now - LOOKBACK_MS) - LATE_MS;
    const runs = await finishedSince(this.db, from);
    const last = runs.at(-1);
    const queued = await this.outbox.insert(runs.map((u) => completedRow(u, now)));
    // Moved only once the runs read are queued: a pass whose insert fails reads them again (hostile review H16-1).
    this.#since = runs.length === BATCH && last ? Number(last.finished_at) : Math.max(this.#since ?? 0, now);
    return queued.length;
  }
}

/** Runs finished at or after `from` that an enabled, subscribed endpoint has not been told of, oldest first. */
function finishedSince(db: Kysely<DatabaseSchema>, from: number) {
  const dedupe = sql<string>`'review.completed:' || r.id || ':' || cast(u.run as text)`;
  return (
    db
      .selectFrom('webhook_endpoints as e')
      .innerJoin('reviews as r', 'r.account_id', 'e.account_id')
      .innerJoin('review_runs as u', 'u.review_id', 'r.id')
      .leftJoin('webhook_outbox as o', (j) =>
        j.onRef('o.endpoint_id', '=', 'e.id').on('o.dedupe_key', '=', dedupe),
      )
      .select([
        'e.id as endpoint_id',
        'e.account_id',
        'r.id as review_id',
        'r.name',
        'u.run',
        'u.finished_at',
        'u.total',
        'u.matched',
        'u.not_found',
        'u.ambiguous',
        'u.failed',
      ])
      .where('e.enabled', '=', 1)
      .where('e.events', 'like', '%"review.completed"%')
      .where('u.finished_at', '>=', from)
      .where('u.cancelled_at', 'is', null)
      .whereRef('u.finished_at', '>=', 'e.created_at')
      .where('o.id', 'is', null)
      // A demo visitor's endpoint hears only of the reviews that visitor started.
      .where((eb) => eb.or([eb('e.visitor', 'is', null), eb('e.visitor', '=', eb.ref('r.created_by'))]))
      .orderBy('u.finished_at')
      .limit(BATCH)
      .execute()
  );
}

function completedRow(u: Awaited<ReturnType<typeof finishedSince>>[number], now: number): WebhookOutboxTable {
  const data: ReviewCompletedData = {
    reviewId: u.review_id,
    name: u.name,
    run: Number(u.run),
    finishedAt: new Date(Number(u.finished_at)).toISOString(),
    counts: {
      total: Number(u.total),
      matched: Number(u.matched),
      notFound: Number(u.not_found),
      ambiguous: Number(u.ambiguous),
      failed: Number(u.failed),
    },
  };
  const payload = JSON.stringify({ type: 'review.completed', timestamp: data.finishedAt, data });
  const key = `review.completed:${u.review_id}:${u.run}`;
  return newRow(u.endpoint_id, u.account_id, 'review.completed', payload, key, now);
}
