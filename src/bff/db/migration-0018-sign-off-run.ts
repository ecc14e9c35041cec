import { type Kysely, type Migration, sql } from 'kysely';

// biome-ignore lint/suspicious/noExplicitAny: migrations run before, and regardless of, the typed schema
type Db = Kysely<any>;

/**
 * Migration 0018 (issue 30): a sign-off names the run it is of, and a public demo visitor's sign-off the visitor.
 *
 * `signed_off_run`: the review's latest run when it was signed off; a later run keeps the sign-off, named "of run
 * N", while no row's answer changed (stores/reviews/row-decisions-sign-off.ts). A sign-off made before this
 * migration is of the latest run that had started by then.
 *
 * `signed_off_visitor`: for a demo visitor's sign-off, a hash of where the visitor signed in from (strangers share
 * the public demo account and its keys: only the same visitor's other key approves it); null for a real account.
 */
export const signOffRun: Migration = {
  async up(db: Db) {
    await db.schema.alterTable('reviews').addColumn('signed_off_run', 'integer').execute();
    await db.schema.alterTable('reviews').addColumn('signed_off_visitor', 'text').execute();
    await sql`update reviews set signed_off_run = (
        select max(u.run) from review_runs u
        where u.review_id = reviews.id and u.started_at <= reviews.signed_off_at
      ) where signed_off_at is not null`.execute(db);
  },
};
