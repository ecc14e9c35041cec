import { type Kysely, PostgresAdapter, sql, type Transaction } from 'kysely';
import type { DatabaseSchema } from '../../db/schema.ts';
import { ApiError } from '../../errors.ts';

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

/**
 * Takes the account's quota lock for the rest of the caller's transaction: creates and Check agains of one
 * account then count and write one after the other, so together they never pass the bound (counted apart, every
 * request of a PostgreSQL pool read the same count, and each passed). PostgreSQL: a transaction-scoped advisory
 * lock on the account, taken before any review's row (a Check again locks its review after it), so the order
 * never inverts. SQLite: one connection, whose transactions run one at a time, holds it already.
 */
export async function lockQuota(trx: Transaction<DatabaseSchema>, accountId: string): Promise<void> {
  if (trx.getExecutor().adapter instanceof PostgresAdapter)
    await sql`select pg_advisory_xact_lock(hashtextextended(${`review-quota:${accountId}`}, 0))`.execute(trx);
}

/**
 * Refuses (409 quota_exceeded, saying how many wait and what frees them) `adding` rows more when they would take
 * the account past `max` waiting; under lockQuota, in the transaction that then writes them.
 */
export async function assertWithinQuota(
  trx: Transaction<DatabaseSchema>,
  accountId: string,
  adding: number,
  max: number,
): Promise<void> {
  if (max === Number.POSITIVE_INFINITY) return;
  const waiting = await pendingRows(trx, accountId);
  if (waiting + adding > max) throw quotaExceeded(waiting, adding, max);
}

export function quotaExceeded(waiting: number, adding: number, max: number): ApiError {
  const n = (x: number) => x.toLocaleString('en-US');
  return new ApiError(
    409,
    'quota_exceeded',
    `This account has ${n(waiting)} ${waiting === 1 ? 'row' : 'rows'} waiting to be looked up, and keeps at ` +
      `most ${n(max)}: ${n(adding)} more ${adding === 1 ? 'row' : 'rows'} would pass that. Let a review ` +
      'finish, or cancel or delete one (an upload not finished too), then try again.',
  );
}
