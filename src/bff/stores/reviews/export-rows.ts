import { type Kysely, sql } from 'kysely';
import type { ReviewRowResult, ReviewSummary } from '../../../contract/index.ts';
import type { Dialect } from '../../db/database.ts';
import type { DatabaseSchema } from '../../db/schema.ts';
import { rowsWithResults } from './row-results.ts';
import { storedAnswerReader, toRowResult } from './to-api.ts';

type Db = Kysely<DatabaseSchema>;

/** Rows read per query while an export streams: memory holds one page, never the review. */
export const EXPORT_PAGE_ROWS = 1_000;

/** What an export's header needs to know before its first row: which columns the rows will fill. */
export interface ExportShape {
  review: ReviewSummary;
  run: number;
  /** Fields the service sent beyond ours (`other.<name>`), over every answered row of the run, sorted. */
  otherKeys: string[];
  /** A reviewer fixed a row of the review in place. */
  anyFixed: boolean;
  /** A row of the review is excluded. */
  anyExcluded: boolean;
  /** A row of the review has a decision. */
  anyDecided: boolean;
}

/**
 * Read-only queries of the review export (the writes stay in review-store.ts). Every read names the account
 * first: another account's review is not there.
 */
export class ReviewExportRows {
  constructor(
    private readonly db: Db,
    private readonly dialect: Dialect,
  ) {}

  /** The review, the run (default the latest) and its column needs; undefined: no such review or run. */
  async shape(review: ReviewSummary, run?: number): Promise<ExportShape | undefined> {
    const chosen = run ?? review.runs.at(-1)?.number ?? 1;
    // A review still uploading has no run yet: its rows export as pending, under run 1.
    if (review.runs.length > 0 && !review.runs.some((r) => r.number === chosen)) return undefined;
    const [otherKeys, anyFixed, anyExcluded, anyDecided] = await Promise.all([
      this.#otherKeys(review.id, chosen),
      this.#anyMarked(review.id, 'fix'),
      this.#anyMarked(review.id, 'excluded'),
      this.#anyMarked(review.id, 'decision'),
    ]);
    return { review, run: chosen, otherKeys, anyFixed, anyExcluded, anyDecided };
  }

  /** Every row of the run in input order, a page at a time (keyset on row_index). */
  async *rows(reviewId: string, run: number, pageRows = EXPORT_PAGE_ROWS): AsyncGenerator<ReviewRowResult[]> {
    const read = storedAnswerReader();
    let after = -1;
    for (;;) {
      const found = await rowsWithResults(this.db, reviewId, run)
        .where('w.row_index', '>', after)
        .orderBy('w.row_index')
        .limit(pageRows)
        .execute();
      if (found.length > 0) yield found.map((r) => toRowResult(r, run, read));
      if (found.length < pageRows) return;
      after = Number(found.at(-1)?.row_index);
    }
  }

  /**
   * The names of the service's extra fields in the run's answers, found by the database (JSON functions of each
   * dialect), so the header is known without reading the rows twice. Only answers that mention "other" are
   * parsed.
   */
  async #otherKeys(reviewId: string, run: number): Promise<string[]> {
    const query =
      this.dialect === 'sqlite'
        ? sql<{ key: string }>`select distinct j.key as key
            from review_results r, json_each(r.result, '$.property.attributes.other') j
            where r.review_id = ${reviewId} and r.run = ${run} and r.state = 'done'
              and r.result like '%"other":%' and j.key is not null`
        : sql<{ key: string }>`select distinct k as key
            from review_results r,
              jsonb_object_keys(case when jsonb_typeof(r.result::jsonb #> '{property,attributes,other}') = 'object'
                then r.result::jsonb #> '{property,attributes,other}' end) k
            where r.review_id = ${reviewId} and r.run = ${run} and r.state = 'done'
              and r.result like '%"other":%'`;
    const { rows } = await query.execute(this.db);
    return rows.map((r) => r.key).sort();
  }

  /** Whether any row of the review has a fix, is excluded, or has a decision. */
  async #anyMarked(reviewId: string, mark: 'fix' | 'excluded' | 'decision'): Promise<boolean> {
    const marked = await this.db
      .selectFrom('review_rows')
      .select('row_index')
      .where('review_id', '=', reviewId)
      .where(mark, 'is not', null)
      .limit(1)
      .executeTakeFirst();
    return marked !== undefined;
  }
}
