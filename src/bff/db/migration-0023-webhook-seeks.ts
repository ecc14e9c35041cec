import type { Kysely, Migration } from 'kysely';

/*
 * Migration 0023: the webhook dispatcher's two background reads by index rather than by scan (hostile review of
 * issue 29, M7 and M10).
 * - `review_runs_finished` (finished_at): each pass announces review.completed for the runs finished since the last
 *   one (webhooks/completed-runs.ts reads from a watermark); without it every pass, each second on every replica,
 *   joined every run of every account with an endpoint.
 * - `webhook_outbox_done` (state, created_at): the delivery log's pruning reads the delivered and given-up rows
 *   older than 30 days, oldest first, in bounded batches until none is left.
 * Indexes only: the same DDL on both databases, nothing to backfill.
 */

// biome-ignore lint/suspicious/noExplicitAny: migrations run before, and regardless of, the typed schema
type Db = Kysely<any>;

export const webhookSeeks: Migration = {
  async up(db: Db) {
    await db.schema.createIndex('review_runs_finished').on('review_runs').column('finished_at').execute();
    await db.schema
      .createIndex('webhook_outbox_done')
      .on('webhook_outbox')
      .columns(['state', 'created_at'])
      .execute();
  },
};
