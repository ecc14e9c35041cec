import type { Kysely } from 'kysely';
import type { DatabaseSchema } from '../../db/schema.ts';
import type { RowResult } from '../../reviews/look-up-row.ts';
import type { LeasedRow } from '../../reviews/worker.ts';
import { readResult } from './to-api.ts';

/**
 * The answer a row's review already has for what the row asks: an earlier row of the same run with the same key
 * (its input normalised, or its parcel number), answered from a lookup of its own. "Repeats (looked up once)" is
 * kept by this, not by the cache, whose TTL may have run out between the two rows of a long review (a
 * 20,000-row tape spent 3,493 extra lookups). A failed answer is not shared (it may be worth asking again, or it
 * was refused without a lookup anyway), nor a fixed row's (it answers another address). Served by
 * review_rows_by_key (migration 0008).
 */
export async function repeatAnswer(
  db: Kysely<DatabaseSchema>,
  row: Pick<LeasedRow, 'reviewId' | 'run' | 'index' | 'key'>,
): Promise<RowResult | undefined> {
  if (!row.key) return undefined;
  const earlier = await db
    .selectFrom('review_rows as w')
    .innerJoin('review_results as r', (j) =>
      j.onRef('r.review_id', '=', 'w.review_id').onRef('r.row_index', '=', 'w.row_index'),
    )
    .select('r.result')
    .where('w.review_id', '=', row.reviewId)
    .where('w.address_key', '=', row.key)
    .where('w.fix', 'is', null)
    .where('w.row_index', '!=', row.index)
    .where('r.run', '=', row.run)
    .where('r.state', '=', 'done')
    .where('r.outcome', 'in', ['matched', 'not_found', 'ambiguous'])
    .limit(1)
    .executeTakeFirst();
  const answer = readResult(earlier?.result ?? null);
  if (!answer?.retrievedAt) return undefined;
  // The earlier row's answer as it was given (when, and whether from the cache): this row asked nothing.
  return { ...answer, cached: true, retrievedAt: answer.retrievedAt };
}
