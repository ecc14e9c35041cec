import { type Kysely, sql } from 'kysely';
import type { DatabaseSchema } from '../../db/schema.ts';
import type { LeasedRow } from '../../reviews/leased-row.ts';
import type { RowResult, StoredAnswer } from '../../reviews/look-up-row.ts';
import { readResult } from './to-api.ts';

/** Reviews' runs whose repeated keys this replica remembers (a few keys each), then forgets all and starts again. */
const REMEMBERED_REVIEWS = 1_000;

/**
 * The answer a row's review already has for what the row asks: an earlier row of the same run with the same key
 * (its input normalised, or its parcel number), answered from a lookup of its own. "Repeats (looked up once)" is
 * kept by this, not by the cache, whose TTL may have run out between the two rows of a long review (a
 * 20,000-row tape spent 3,493 extra lookups). A failed answer is not shared (it may be worth asking again, or it
 * was refused without a lookup anyway). A fixed row's key is its fixed address's (row-fixes.ts), so it shares
 * with the rows that ask that address. Served by review_rows_by_key (migration 0008).
 *
 * Only a key the review holds more than once is looked for: which keys those are is read once per run (its rows
 * are all in before its first run starts; a fix changes a row's key, seen from the next run on), so the rows of a
 * review without repeats, a cached one's hundreds a second among them, ask the database nothing more than before.
 */
export class ReviewRepeats {
  readonly #repeated = new Map<string, Promise<ReadonlySet<string>>>();
  /** The row of each review, run and key this replica is answering now: its repeats wait for its answer. */
  readonly #answering = new Map<string, Promise<RowResult | undefined>>();

  constructor(private readonly db: Kysely<DatabaseSchema>) {}

  /**
   * The row's answer: shared from its review's answer for the same key (an earlier row's, answered; or one this
   * replica is asking now, waited for), else `ask()`'s. Rows of one key leased together (a sorted tape has its
   * repeats side by side) are asked once: the first asks, the others wait for it. `repeat` says the answer was
   * shared: no lookup was made for this row.
   */
  async answer(
    row: Pick<LeasedRow, 'reviewId' | 'run' | 'index' | 'key'>,
    ask: () => Promise<RowResult>,
  ): Promise<{ answer: RowResult; repeat: boolean }> {
    if (!row.key || !(await this.#repeatedKeys(row.reviewId, row.run)).has(row.key))
      return { answer: await ask(), repeat: false };
    const slot = `${row.reviewId}:${row.run}:${row.key}`;
    const first = this.#answering.get(slot);
    if (first) {
      const shared = asRepeat(await first);
      // The first row's answer is not one to share (it failed): this row asks for itself.
      return shared ? { answer: shared, repeat: true } : this.answer(row, ask);
    }
    // Taken before anything is awaited, so a repeat leased beside this row finds it.
    let settle: (answer: RowResult | undefined) => void = () => {};
    const mine = new Promise<RowResult | undefined>((resolve) => {
      settle = resolve;
    });
    this.#answering.set(slot, mine);
    try {
      const earlier = asRepeat(await this.#earlierAnswer(row, row.key));
      if (earlier) {
        settle(earlier);
        return { answer: earlier, repeat: true };
      }
      const answer = await ask();
      settle(answer);
      return { answer, repeat: false };
    } catch (err) {
      settle(undefined);
      throw err;
    } finally {
      if (this.#answering.get(slot) === mine) this.#answering.delete(slot);
    }
  }

  /** An earlier row of the run with the same key, answered from a lookup of its own (a fixed row's is not). */
  async #earlierAnswer(
    row: Pick<LeasedRow, 'reviewId' | 'run' | 'index'>,
    key: string,
  ): Promise<StoredAnswer | undefined> {
    const earlier = await this.db
      .selectFrom('review_rows as w')
      .innerJoin('review_results as r', (j) =>
        j.onRef('r.review_id', '=', 'w.review_id').onRef('r.row_index', '=', 'w.row_index'),
      )
      .select('r.result')
      .where('w.review_id', '=', row.reviewId)
      .where('w.address_key', '=', key)
      .where('w.row_index', '!=', row.index)
      .where('r.run', '=', row.run)
      .where('r.state', '=', 'done')
      .where('r.outcome', 'in', ['matched', 'not_found', 'ambiguous'])
      .limit(1)
      .executeTakeFirst();
    return readResult(earlier?.result ?? null);
  }

  /** The keys more than one row of the review asks (read once a run; read again after a failed read). */
  #repeatedKeys(reviewId: string, run: number): Promise<ReadonlySet<string>> {
    const memo = `${reviewId}:${run}`;
    const known = this.#repeated.get(memo);
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
    reading.catch(() => this.#repeated.delete(memo));
    this.#repeated.set(memo, reading);
    return reading;
  }
}

/**
 * An answer as a repeat shares it: as it was given (when, and whether from the cache), marked cached, for this row
 * asked nothing. A failed answer is not shared (it may be worth asking again), nor one without its time.
 */
function asRepeat(answer: StoredAnswer | undefined): RowResult | undefined {
  if (!answer || answer.outcome === 'failed' || !answer.retrievedAt) return undefined;
  return { ...answer, cached: true, retrievedAt: answer.retrievedAt };
}
