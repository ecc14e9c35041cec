import type { Kysely } from 'kysely';
import type { DatabaseSchema } from '../../db/schema.ts';

/** A review's latest run (undefined while its upload has none yet), in the caller's transaction or not. */
export function latestRun(db: Kysely<DatabaseSchema>, reviewId: string) {
  return db
    .selectFrom('review_runs')
    .selectAll()
    .where('review_id', '=', reviewId)
    .orderBy('run', 'desc')
    .executeTakeFirst();
}
