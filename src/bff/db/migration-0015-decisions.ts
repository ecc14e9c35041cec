import type { Kysely, Migration } from 'kysely';

// biome-ignore lint/suspicious/noExplicitAny: migrations run before, and regardless of, the typed schema
type Db = Kysely<any>;

/**
 * Migration 0015 (issue 30): a reviewer's decisions on rows, and a review's sign-off and approval.
 *
 * Every decision is kept (`review_decisions`, numbered per row: the highest `version` is the row's current one,
 * and the primary key makes two writers of one version fail rather than both stand); the current one is also
 * on the row (`review_rows.decision`, JSON RowDecision), so the rows API and a 100,000-row export read it
 * without a join. The sign-off and approval are columns of the review itself: a review has at most one of each
 * at a time, its row is what every change of the review locks first, so a conditional update of it is the
 * check (a withdrawn sign-off's history is in the audit trail).
 */
export const decisions: Migration = {
  async up(db: Db) {
    await db.schema
      .createTable('review_decisions')
      .addColumn('review_id', 'text', (c) => c.notNull())
      .addColumn('row_index', 'integer', (c) => c.notNull())
      .addColumn('version', 'integer', (c) => c.notNull())
      // accept, reject, follow_up, or cleared (the row undecided again).
      .addColumn('decision', 'text', (c) => c.notNull())
      .addColumn('note', 'text', (c) => c.notNull())
      .addColumn('key_fingerprint', 'text', (c) => c.notNull())
      .addColumn('at', 'bigint', (c) => c.notNull())
      .addPrimaryKeyConstraint('review_decisions_pk', ['review_id', 'row_index', 'version'])
      .execute();
    await db.schema.alterTable('review_rows').addColumn('decision', 'text').execute();
    for (const column of ['signed_off_by', 'signed_off_reason', 'approved_by'])
      await db.schema.alterTable('reviews').addColumn(column, 'text').execute();
    for (const column of ['signed_off_at', 'approved_at'])
      await db.schema.alterTable('reviews').addColumn(column, 'bigint').execute();
  },
};

/** Every decision on a review's rows (migration 0015), oldest first by `version` within a row. */
export interface ReviewDecisionsTable {
  review_id: string;
  row_index: number;
  version: number;
  decision: string;
  note: string;
  key_fingerprint: string;
  at: number;
}
