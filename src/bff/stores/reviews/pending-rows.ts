import type { Kysely } from 'kysely';
import type { DatabaseSchema } from '../../db/schema.ts';

/**
 * Rows of an account still to be looked up: every row of a review still uploading, and the rows not yet done
 * of each unfinished run. Read from the reviews and their runs (a few rows per review), never by counting the
 * backlog's rows, so it costs the same at 100 and at 1,000,000 pending rows.
 */
export async function pendingRows(db: Kysely<DatabaseSchema>, accountId: string): Promise<number> {
  const running = await db
    .selectFrom('review_runs as u')
    .innerJoin('reviews as r', 'r.id', 'u.review_id')
    .where('r.account_id', '=', accountId)
    .where('u.finished_at', 'is', null)
    .select((eb) => eb.fn.sum<number | string | null>(eb('u.total', '-', eb.ref('u.done'))).as('n'))
    .executeTakeFirst();
  const uploading = await db
    .selectFrom('reviews as r')
    .where('r.account_id', '=', accountId)
    .where((eb) =>
      eb.not(
        eb.exists(eb.selectFrom('review_runs as u').select('u.run').whereRef('u.review_id', '=', 'r.id')),
      ),
    )
    .select((eb) => eb.fn.sum<number | string | null>('r.total_rows').as('n'))
    .executeTakeFirst();
  return Number(running?.n ?? 0) + Number(uploading?.n ?? 0);
}
