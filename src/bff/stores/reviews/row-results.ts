import type { Kysely } from 'kysely';
import type { DatabaseSchema } from '../../db/schema.ts';

/**
 * A review's rows with one run's answer and the run before's (for what changed), as the rows API, the live
 * view and the export read them: one query, ordered and paged by its callers, and turned into the API's rows
 * by `toRowResult`.
 */
export function rowsWithResults(db: Kysely<DatabaseSchema>, reviewId: string, run: number) {
  return db
    .selectFrom('review_rows as w')
    .leftJoin('review_results as r', (j) =>
      j
        .onRef('r.review_id', '=', 'w.review_id')
        .onRef('r.row_index', '=', 'w.row_index')
        .on('r.run', '=', run),
    )
    .leftJoin('review_results as p', (j) =>
      j
        .onRef('p.review_id', '=', 'w.review_id')
        .onRef('p.row_index', '=', 'w.row_index')
        .on('p.run', '=', run - 1),
    )
    .select([
      'w.row_index',
      'w.address',
      'w.cells',
      'w.fix',
      'w.excluded',
      'w.decision',
      'w.source_row',
      'w.parcel',
      'r.state',
      'r.result',
      'r.seq',
      'p.result as previous',
    ])
    .where('w.review_id', '=', reviewId);
}
