import { randomBytes } from 'node:crypto';
import type { Kysely, Transaction } from 'kysely';
import {
  askedKey,
  type CreateReviewRequest,
  type ReviewChunkRequest,
  type ReviewRowResult,
  type ReviewSummary,
  type RowExclusion,
  type RowFix,
} from '../../../contract/index.ts';
import type { DatabaseSchema, ReviewsTable } from '../../db/schema.ts';
import type { RowResult } from '../../reviews/look-up-row.ts';
import type { NewAuditEntry } from '../audit/audit-store.ts';
import { insertForChange } from '../audit/chain.ts';
import { latestRun } from './latest-run.ts';
import { assertWithinQuota, lockQuota } from './pending-rows.ts';
import { type ActionRefusal, controlRun, type ReviewAction } from './review-controls.ts';
import {
  withdrawSignOffOnEdit,
  withdrawSignOffOnFix,
  withdrawSignOffOnInclude,
} from './row-decisions-sign-off.ts';
import { type ExclusionRefusal, type ExclusionWritten, writeExclusion } from './row-exclusions.ts';
import { type FixRefusal, writeFix } from './row-fixes.ts';
import { type RowsPage, type RowsPageOptions, readRowsPage } from './rows-page.ts';
import { startRun } from './start-run.ts';
import { toSummary } from './to-api.ts';

type Db = Kysely<DatabaseSchema>;
type Trx = Transaction<DatabaseSchema>;

/** Rows per insert statement (9 parameters each; SQLite takes at most 32,766 but a build may take fewer). */
const INSERT_ROWS = 1_000;

/** Why a chunk was not taken: the API answers each with its own error. */
export type ChunkRefusal = 'not_found' | 'not_uploading' | 'cancelled' | 'out_of_range';

/**
 * Durable reviews of an account: what was uploaded (every row with its own cells), the runs over it, and each
 * row's one answer per run. Every read and write names the account: another account's review is not there.
 */
export class SqlReviewStore {
  constructor(
    private readonly db: Db,
    private readonly now: () => number = Date.now,
  ) {}

  /**
   * A new review, or the one this start click already made (same clientToken); refused (quota_exceeded) when its
   * rows would take the account past `maxPending` rows waiting, counted and written under the account's lock.
   */
  async create(
    accountId: string,
    createdBy: string,
    request: CreateReviewRequest,
    maxPending = Number.POSITIVE_INFINITY,
  ): Promise<ReviewSummary> {
    return this.db.transaction().execute(async (trx) => {
      await lockQuota(trx, accountId);
      // Under the lock, so a start click sent twice at once makes one review.
      const existing = await this.#byToken(trx, accountId, request.clientToken);
      if (existing) return (await summaryOf(trx, accountId, existing)) as ReviewSummary;
      await assertWithinQuota(trx, accountId, request.totalRows, maxPending);
      const id = `rv_${randomBytes(16).toString('base64url')}`;
      await trx
        .insertInto('reviews')
        .values({
          id,
          account_id: accountId,
          created_by: createdBy,
          created_at: this.now(),
          client_token: request.clientToken,
          name: request.name,
          kind: request.kind,
          origin: request.origin ?? null,
          columns: JSON.stringify(request.columns),
          total_rows: request.totalRows,
          received_rows: 0,
          skipped_blank: request.skippedBlank ?? 0,
          last_seq: 0,
        })
        .execute();
      return (await summaryOf(trx, accountId, id)) as ReviewSummary;
    });
  }

  async #byToken(trx: Trx, accountId: string, clientToken: string): Promise<string | undefined> {
    const row = await trx
      .selectFrom('reviews')
      .select('id')
      .where('account_id', '=', accountId)
      .where('client_token', '=', clientToken)
      .executeTakeFirst();
    return row?.id;
  }

  /**
   * Adds a chunk of rows. A chunk sent again (same index) adds nothing; once every row is in, run 1 starts.
   */
  async addChunk(
    accountId: string,
    reviewId: string,
    chunk: ReviewChunkRequest,
  ): Promise<ReviewSummary | ChunkRefusal> {
    return this.db.transaction().execute(async (trx): Promise<ReviewSummary | ChunkRefusal> => {
      // The review's row is locked first (an update that changes nothing): on PostgreSQL, chunks of one review
      // then take turns, so no count is lost and run 1 starts once, and a delete and a chunk serialise: a
      // chunk after the delete finds no review, never leaves rows behind it.
      const review = await trx
        .updateTable('reviews')
        .set((eb) => ({ received_rows: eb.ref('received_rows') }))
        .where('id', '=', reviewId)
        .where('account_id', '=', accountId)
        .returningAll()
        .executeTakeFirst();
      if (!review) return 'not_found';
      if (review.received_rows >= review.total_rows) return 'not_uploading';
      // A run before every row is in: the upload was cancelled (review-controls.ts), and takes no more rows.
      if (
        await trx.selectFrom('review_runs').select('run').where('review_id', '=', reviewId).executeTakeFirst()
      )
        return 'cancelled';
      if (chunk.firstRow + chunk.rows.length > review.total_rows) return 'out_of_range';
      const fresh = await trx
        .insertInto('review_chunks')
        .values({ review_id: reviewId, chunk_index: chunk.index, rows: chunk.rows.length })
        .onConflict((oc) => oc.columns(['review_id', 'chunk_index']).doNothing())
        .executeTakeFirst();
      if (Number(fresh.numInsertedOrUpdatedRows ?? 0) > 0) await this.#addRows(trx, review, chunk);
      // Read under the lock: the answer is the review as this chunk left it, even if a delete comes next.
      return (await summaryOf(trx, accountId, reviewId)) as ReviewSummary;
    });
  }

  /** A new chunk's rows; once every row is in, run 1 starts. */
  async #addRows(trx: Trx, review: ReviewsTable, chunk: ReviewChunkRequest): Promise<void> {
    const reviewId = review.id;
    const values = chunk.rows.map((row, i) => ({
      review_id: reviewId,
      row_index: chunk.firstRow + i,
      address: row.address,
      cells: row.cells ? JSON.stringify(row.cells) : null,
      fix: null,
      excluded: null,
      source_row: row.sourceRow ?? null,
      parcel: row.parcel?.trim() || null,
      address_key: askedKey(row.address, row.parcel),
    }));
    // A chunk overlapping rows already in (a client bug) adds only the rows that are new. In parts: a statement
    // of 2,000 rows of 8 columns is more parameters than the embedded SQLite takes.
    let added = 0;
    for (let at = 0; at < values.length; at += INSERT_ROWS) {
      const inserted = await trx
        .insertInto('review_rows')
        .values(values.slice(at, at + INSERT_ROWS))
        .onConflict((oc) => oc.columns(['review_id', 'row_index']).doNothing())
        .executeTakeFirst();
      added += Number(inserted.numInsertedOrUpdatedRows ?? 0);
    }
    const received = review.received_rows + added;
    await trx.updateTable('reviews').set({ received_rows: received }).where('id', '=', reviewId).execute();
    if (received >= review.total_rows)
      await startRun(trx, { review, run: 1, fresh: false, rows: review.total_rows, now: this.now() });
  }

  /**
   * "Check again": a new run over every row, asking the service itself; refused (quota_exceeded), as a new
   * review is, when its rows would take the account past `maxPending` waiting. Undefined: no such review.
   */
  async checkAgain(
    accountId: string,
    reviewId: string,
    maxPending = Number.POSITIVE_INFINITY,
  ): Promise<ReviewSummary | 'busy' | undefined> {
    return this.db.transaction().execute(async (trx) => {
      await lockQuota(trx, accountId);
      // The review's row is written first: on PostgreSQL its lock makes a fix of a row (row-fixes.ts) and
      // another Check again wait for this one, so a fix never lands in the run this one just ended.
      const review = await trx
        .updateTable('reviews')
        .set((eb) => ({ last_seq: eb('last_seq', '+', 1) }))
        .where('id', '=', reviewId)
        .where('account_id', '=', accountId)
        .returningAll()
        .executeTakeFirst();
      if (!review) return undefined;
      const latest = await latestRun(trx, reviewId);
      if (!latest || latest.finished_at === null) return 'busy' as const;
      // Over the rows received: all of them, or those of an upload cancelled before the rest came.
      await assertWithinQuota(trx, accountId, review.received_rows, maxPending);
      await startRun(trx, {
        review,
        run: latest.run + 1,
        fresh: true,
        rows: review.received_rows,
        now: this.now(),
      });
      return summaryOf(trx, accountId, reviewId);
    });
  }

  /**
   * Pause, Resume or Cancel of the review's latest run (review-controls.ts): the review as it left it, or why
   * it was refused. `entry` (the audit trail's, for the review's name) is inserted in the same transaction, so
   * the action stands only with its entry (ADR 010, addendum); when the insert fails nothing is applied and
   * this rejects with audit_unavailable.
   */
  async control(
    accountId: string,
    reviewId: string,
    action: ReviewAction,
    entry?: (review: { id: string; name: string }, at: number) => NewAuditEntry,
  ): Promise<ReviewSummary | ActionRefusal> {
    return this.db.transaction().execute(async (trx) => {
      const refusal = await controlRun(trx, accountId, reviewId, action, this.now());
      if (refusal) return refusal;
      const summary = (await summaryOf(trx, accountId, reviewId)) as ReviewSummary;
      if (entry) await insertForChange(trx, [entry(summary, this.now())]);
      return summary;
    });
  }

  async summary(accountId: string, reviewId: string): Promise<ReviewSummary | undefined> {
    return summaryOf(this.db, accountId, reviewId);
  }

  /** The account's reviews, newest first. */
  async list(accountId: string, limit = 500): Promise<ReviewSummary[]> {
    const reviews = await this.db
      .selectFrom('reviews')
      .selectAll()
      .where('account_id', '=', accountId)
      .orderBy('created_at', 'desc')
      .limit(limit)
      .execute();
    if (reviews.length === 0) return [];
    const runs = await this.db
      .selectFrom('review_runs')
      .selectAll()
      .where(
        'review_id',
        'in',
        reviews.map((r) => r.id),
      )
      .orderBy('run')
      .execute();
    return reviews.map((r) =>
      toSummary(
        r,
        runs.filter((u) => u.review_id === r.id),
      ),
    );
  }

  /** A page of a run's rows (rows-page.ts); undefined when the account has no such review. */
  async rows(accountId: string, reviewId: string, options: RowsPageOptions): Promise<RowsPage | undefined> {
    return readRowsPage(this.db, accountId, reviewId, options);
  }

  /**
   * A reviewer's fix of one row of the latest run: the row's answer becomes `result` (a match found for
   * `fix.address`), its run's counts move with it, it gets the next sequence number (so every live view hears
   * of it), and later runs look up `fix.address`. Refused while the row waits for an answer of its own.
   */
  async fixRow(
    accountId: string,
    reviewId: string,
    index: number,
    fix: RowFix,
    result: RowResult,
    /** The fix's lookup's entry (held): in the fix's own transaction, so the change stands only with it. */
    entry?: NewAuditEntry,
  ): Promise<ReviewRowResult | FixRefusal> {
    const refusal = await this.db.transaction().execute(async (trx) => {
      const refused = await writeFix(trx, accountId, reviewId, index, fix, result);
      if (refused) return refused;
      if (entry) await insertForChange(trx, [entry]);
      // The answer of the run signed off changed: the sign-off and its approval are withdrawn, by the fixing key.
      return withdrawSignOffOnFix(trx, { accountId, reviewId, index, by: fix.by, at: this.now() });
    });
    if (refusal) return refusal;
    // Deleted since the fix went in: there is no row to show.
    return (await this.row(accountId, reviewId, index)) ?? 'not_found';
  }

  /**
   * A reviewer excludes one row (`exclusion`) or includes it again (null): row-exclusions.ts. `entry` (the audit
   * trail's) is inserted in the same transaction, as a control's is: the change stands only with its entry. The
   * row as every view now reads it, and what became of its lookup in the latest run.
   */
  async excludeRow(
    accountId: string,
    target: { reviewId: string; index: number },
    exclusion: Omit<RowExclusion, 'at'> | null,
    entry?: (at: number) => NewAuditEntry,
  ): Promise<{ row: ReviewRowResult; asked: ExclusionWritten['asked'] } | ExclusionRefusal> {
    const { reviewId, index } = target;
    const written = await this.db.transaction().execute(async (trx) => {
      const now = this.now();
      const marked = exclusion && { ...exclusion, at: new Date(now).toISOString() };
      const done = await writeExclusion(trx, accountId, reviewId, index, marked, now);
      if (typeof done === 'string') return done;
      // Included again with no decision, the sign-off's rule no longer holds; excluded, what was signed changed
      // (either withdrawal is by this key).
      const withdrawn = exclusion
        ? await withdrawSignOffOnEdit(trx, reviewId, index, 'excluded')
        : await withdrawSignOffOnInclude(trx, reviewId, index);
      if (entry) {
        const e = entry(now);
        const also = withdrawn
          ? [{ ...e, kind: 'review_sign_off_withdrawn' as const, query: withdrawn }]
          : [];
        await insertForChange(trx, [e, ...also]);
      }
      return done;
    });
    if (typeof written === 'string') return written;
    const row = await this.row(accountId, reviewId, index);
    return row ? { row, asked: written.asked } : 'not_found';
  }

  /** One row of the latest run, as the rows page gives it. */
  async row(accountId: string, reviewId: string, index: number): Promise<ReviewRowResult | undefined> {
    const page = await this.rows(accountId, reviewId, { after: index - 1, limit: 1 });
    const row = page?.rows[0];
    return row?.index === index ? row : undefined;
  }

  /** Deletes the review for the whole account; false when the account has no such review. */
  async delete(accountId: string, reviewId: string): Promise<boolean> {
    return this.db.transaction().execute(async (trx) => {
      const gone = await trx
        .deleteFrom('reviews')
        .where('id', '=', reviewId)
        .where('account_id', '=', accountId)
        .executeTakeFirst();
      if (Number(gone.numDeletedRows) === 0) return false;
      // Its rows, answers, decisions and uploaded file, and its monitor (a deleted review is watched no more); its alerts stay,
      // said to be of a deleted review, as the audit trail's entries do.
      for (const table of [
        'review_results',
        'review_runs',
        'review_rows',
        'review_chunks',
        'review_decisions',
        'review_sources',
        'monitors',
        'monitor_slots',
      ] as const)
        await trx.deleteFrom(table).where('review_id', '=', reviewId).execute();
      return true;
    });
  }
}

/** The review as the API gives it, read in `db` (a transaction, to read what it holds locked). */
async function summaryOf(db: Db, accountId: string, reviewId: string): Promise<ReviewSummary | undefined> {
  const review = await db
    .selectFrom('reviews')
    .selectAll()
    .where('id', '=', reviewId)
    .where('account_id', '=', accountId)
    .executeTakeFirst();
  if (!review) return undefined;
  const runs = await db
    .selectFrom('review_runs')
    .selectAll()
    .where('review_id', '=', reviewId)
    .orderBy('run')
    .execute();
  return toSummary(review, runs);
}
