import { type Kysely, sql } from 'kysely';
import type { ReviewCompletedData } from '../../contract/index.ts';
import type { DatabaseSchema } from '../db/schema.ts';
import { newRow, type WebhookOutbox } from './outbox-store.ts';

/** At most this many review.completed events are queued by one pass (the next pass takes the rest). */
const BATCH = 200;

/**
 * review.completed, read from durable state rather than announced by the review store: each run that finished
 * (not cancelled) after an endpoint subscribed to the event was added, and has no outbox row for that endpoint yet,
 * gets one. Every replica's dispatcher may run this at once: the outbox's UNIQUE (endpoint, dedupe key) keeps one
 * row, so each run is announced once per endpoint, also when the replica that finished it died just after.
 * Answers how many rows were queued.
 */
export async function enqueueCompletedRuns(
  db: Kysely<DatabaseSchema>,
  outbox: WebhookOutbox,
  now: number,
): Promise<number> {
  const dedupe = sql<string>`'review.completed:' || r.id || ':' || cast(u.run as text)`;
  const runs = await db
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
    .where('u.finished_at', 'is not', null)
    .where('u.cancelled_at', 'is', null)
    .whereRef('u.finished_at', '>=', 'e.created_at')
    .where('o.id', 'is', null)
    // A demo visitor's endpoint hears only of the reviews that visitor started.
    .where((eb) => eb.or([eb('e.visitor', 'is', null), eb('e.visitor', '=', eb.ref('r.created_by'))]))
    .limit(BATCH)
    .execute();
  const rows = runs.map((u) => {
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
  });
  return (await outbox.insert(rows)).length;
}
