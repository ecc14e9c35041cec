import { createHash } from 'node:crypto';
import type { Kysely } from 'kysely';
import type { DatabaseSchema } from '../db/schema.ts';

/*
 * The file a review came from, kept as received (migration 0017) for its evidence packet's `source/<name>`.
 * Written once: the primary key decides between two uploads, and a second upload of other bytes is refused.
 */

export type SourceStored = 'stored' | 'same' | 'different';

export class ReviewSources {
  constructor(private readonly db: Kysely<DatabaseSchema>) {}

  /** Keeps the file unless the review has one: 'same' when it is these bytes (a retry), else 'different'. */
  async put(reviewId: string, name: string, bytes: Uint8Array, at: number): Promise<SourceStored> {
    const sha256 = createHash('sha256').update(bytes).digest('hex');
    const inserted = await this.db
      .insertInto('review_sources')
      .values({
        review_id: reviewId,
        name,
        size: bytes.length,
        sha256,
        content: Buffer.from(bytes).toString('base64'),
        received_at: at,
      })
      .onConflict((oc) => oc.column('review_id').doNothing())
      .executeTakeFirst();
    if (Number(inserted.numInsertedOrUpdatedRows ?? 0) > 0) return 'stored';
    const kept = await this.db
      .selectFrom('review_sources')
      .select('sha256')
      .where('review_id', '=', reviewId)
      .executeTakeFirst();
    return kept?.sha256 === sha256 ? 'same' : 'different';
  }

  async get(reviewId: string): Promise<{ name: string; bytes: Uint8Array } | undefined> {
    const row = await this.db
      .selectFrom('review_sources')
      .select(['name', 'content'])
      .where('review_id', '=', reviewId)
      .executeTakeFirst();
    return row && { name: row.name, bytes: new Uint8Array(Buffer.from(row.content, 'base64')) };
  }
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
