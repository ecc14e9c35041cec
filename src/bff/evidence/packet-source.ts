import { createHash } from 'node:crypto';
import { type Kysely, PostgresAdapter, sql } from 'kysely';
import { MAX_REVIEW_BYTES } from '../../contract/index.ts';
import type { DatabaseSchema } from '../db/schema.ts';
import { ApiError } from '../errors.ts';

/*
 * The file a review came from, kept as received (migration 0017) for its evidence packet's `source/<name>`.
 * Taken only while the review still receives its rows (before its first run starts: after that, a file sent is
 * not what the review was made from), once, and bounded: by the review's declared rows (sourceLimit) and by the
 * bytes its account keeps (REVIEW_MAX_SOURCE_BYTES). A review deleted takes its file with it (review-store.ts).
 */

export type SourceStored = 'stored' | 'same' | 'different' | 'not_found' | 'closed';

/** REVIEW_MAX_SOURCE_BYTES' default: the bytes of source files one account keeps, 1 GB. */
export const DEFAULT_MAX_SOURCE_BYTES = 1024 * 1024 * 1024;

/**
 * The largest file a review of `totalRows` rows is made from: 4 KB a row, at least 1 MB (a header and a few
 * wide rows), at most MAX_REVIEW_BYTES. A file much larger than its rows holds something else.
 */
export function sourceLimit(totalRows: number): number {
  return Math.min(MAX_REVIEW_BYTES, Math.max(1024 * 1024, 4096 * totalRows));
}

export class ReviewSources {
  constructor(private readonly db: Kysely<DatabaseSchema>) {}

  /**
   * Keeps the file of the account's review while it is uploading (else 'closed'), unless it has one: 'same' when
   * it is these bytes (a retry whose answer was lost), else 'different'. Refuses (409 quota_exceeded) a file that
   * would take the account's kept source bytes past `maxAccountBytes`.
   */
  async receive(
    accountId: string,
    reviewId: string,
    file: { name: string; bytes: Uint8Array; at: number },
    maxAccountBytes: number,
  ): Promise<SourceStored> {
    return this.db.transaction().execute(async (trx): Promise<SourceStored> => {
      // The account's uploads count and write one after another (PostgreSQL: an advisory lock on the account,
      // taken before the review's row; SQLite runs one transaction at a time), so together they never pass
      // the bound. The review's row is then locked as a chunk locks it, so the last chunk (which starts run 1)
      // and the file take turns: a file is never kept once the run has started.
      if (trx.getExecutor().adapter instanceof PostgresAdapter)
        await sql`select pg_advisory_xact_lock(hashtextextended(${`review-source:${accountId}`}, 0))`.execute(
          trx,
        );
      const review = await trx
        .updateTable('reviews')
        .set((eb) => ({ received_rows: eb.ref('received_rows') }))
        .where('id', '=', reviewId)
        .where('account_id', '=', accountId)
        .returning(['received_rows', 'total_rows'])
        .executeTakeFirst();
      if (!review) return 'not_found';
      const started = await trx
        .selectFrom('review_runs')
        .select('run')
        .where('review_id', '=', reviewId)
        .executeTakeFirst();
      if (started || review.received_rows >= review.total_rows) return 'closed';
      const used = await trx
        .selectFrom('review_sources as s')
        .innerJoin('reviews as r', 'r.id', 's.review_id')
        .where('r.account_id', '=', accountId)
        .where('s.review_id', '!=', reviewId)
        .select((eb) => eb.fn.sum<number | string | null>('s.size').as('n'))
        .executeTakeFirst();
      const usedBytes = Number(used?.n ?? 0);
      if (usedBytes + file.bytes.length > maxAccountBytes)
        throw sourceQuotaExceeded(usedBytes, file.bytes.length, maxAccountBytes);
      return put(trx, reviewId, file);
    });
  }

  /** Keeps the file as it is, whatever the review's state, unless the review has one (seeding, tests). */
  put(reviewId: string, name: string, bytes: Uint8Array, at: number): Promise<SourceStored> {
    return put(this.db, reviewId, { name, bytes, at });
  }

  async get(reviewId: string): Promise<{ name: string; bytes: Uint8Array; receivedAt: number } | undefined> {
    const row = await this.db
      .selectFrom('review_sources')
      .select(['name', 'content', 'received_at'])
      .where('review_id', '=', reviewId)
      .executeTakeFirst();
    return (
      row && {
        name: row.name,
        bytes: new Uint8Array(Buffer.from(row.content, 'base64')),
        receivedAt: Number(row.received_at),
      }
    );
  }
}

/** Written once: the primary key decides between two uploads ('same' bytes again or 'different' ones). */
async function put(
  db: Kysely<DatabaseSchema>,
  reviewId: string,
  file: { name: string; bytes: Uint8Array; at: number },
): Promise<SourceStored> {
  const sha256 = createHash('sha256').update(file.bytes).digest('hex');
  const inserted = await db
    .insertInto('review_sources')
    .values({
      review_id: reviewId,
      name: file.name,
      size: file.bytes.length,
      sha256,
      content: Buffer.from(file.bytes).toString('base64'),
      received_at: file.at,
    })
    .onConflict((oc) => oc.column('review_id').doNothing())
    .executeTakeFirst();
  if (Number(inserted.numInsertedOrUpdatedRows ?? 0) > 0) return 'stored';
  const kept = await db
    .selectFrom('review_sources')
    .select('sha256')
    .where('review_id', '=', reviewId)
    .executeTakeFirst();
  return kept?.sha256 === sha256 ? 'same' : 'different';
}

function sourceQuotaExceeded(used: number, adding: number, max: number): ApiError {
  const mb = (x: number) => `${(x / (1024 * 1024)).toLocaleString('en-US', { maximumFractionDigits: 1 })} MB`;
  return new ApiError(
    409,
    'quota_exceeded',
    `This account keeps ${mb(used)} of the files its reviews were made from, and keeps at most ${mb(max)}: ` +
      `this file’s ${mb(adding)} would pass that. Delete a review you no longer need (its file goes with it), ` +
      'then start this one again.',
  );
}

/** The name a file is kept and packed under: its last path part, printable, at most 200 characters. */
export function sourceFileName(given: string | undefined): string {
  const last = (given ?? '').split(/[/\\]/).pop() ?? '';
  const printable = Array.from(last).filter((ch) => {
    const code = ch.codePointAt(0) ?? 0;
    return code >= 0x20 && code !== 0x7f;
  });
  const clean = printable.join('').trim().slice(0, 200);
  return clean === '' || clean === '.' || clean === '..' ? 'source.csv' : clean;
}
