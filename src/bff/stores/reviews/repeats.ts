import { type Kysely, sql } from 'kysely';
import type { DatabaseSchema } from '../../db/schema.ts';
import type { LeasedRow } from '../../reviews/leased-row.ts';
import type { RowResult } from '../../reviews/look-up-row.ts';
import { readResult } from './to-api.ts';

/** Reviews whose repeated keys this replica remembers (a few keys each), then forgets all and starts again. */
const REMEMBERED_REVIEWS = 1_000;

/**
 * The answer a row's review already has for what the row asks: an earlier row of the same run with the same key
 * (its input normalised, or its parcel number), answered from a lookup of its own. "Repeats (looked up once)" is
 * kept by this, not by the cache, whose TTL may have run out between the two rows of a long review (a
 * 20,000-row tape spent 3,493 extra lookups). A failed answer is not shared (it may be worth asking again, or it
 * was refused without a lookup anyway), nor a fixed row's (it answers another address). Served by
 * review_rows_by_key (migration 0008).
 *
 * Only a key the review holds more than once is looked for: which keys those are is read once per review (its
 * rows are all in before its first run starts, and a fix only takes a row's key away), so the rows of a review
 * without repeats, a cached one's hundreds a second among them, ask the database nothing more than before.
 */
export class ReviewRepeats {
  readonly #repeated = new Map<string, Promise<ReadonlySet<string>>>();

  constructor(private readonly db: Kysely<DatabaseSchema>) {}

  async answerFor(
    row: Pick<LeasedRow, 'reviewId' | 'run' | 'index' | 'key'>,
  ): Promise<RowResult | undefined> {
    if (!row.key || !(await this.#repeatedKeys(row.reviewId)).has(row.key)) return undefined;
    const earlier = await this.db
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

  /** The keys more than one row of the review asks (read once; read again after a failed read). */
  #repeatedKeys(reviewId: string): Promise<ReadonlySet<string>> {
    const known = this.#repeated.get(reviewId);
    if (known) return known;
    if (this.#repeated.size >= REMEMBERED_REVIEWS) this.#repeated.clear();
    const reading = this.db
      .selectFrom('review_rows')
      .select('address_key')
      .where('review_id', '=', reviewId)
      .where('address_key', 'is not', null)
      .groupBy('address_key')
      .having(sql`count(*)`, '>', 1)
      .execute()
      .then((rows) => new Set(rows.map((r) => r.address_key as string)));
    reading.catch(() => this.#repeated.delete(reviewId));
    this.#repeated.set(reviewId, reading);
    return reading;
  }
}
