import { sql, type Transaction } from 'kysely';
import type { DatabaseSchema, ReviewsTable } from '../../db/schema.ts';

export interface NewRun {
  review: Pick<ReviewsTable, 'id' | 'account_id'>;
  run: number;
  /** Check again: the service is asked itself, not its cache. */
  fresh: boolean;
  /** The rows it covers: the review's rows received (every row, but for an upload cancelled before the end). */
  rows: number;
  now: number;
}

/**
 * A new run: every row received pending, for the worker to look up (only the BFF's own lookups answer a row),
 * but those a reviewer excluded, which are not asked (each 'cancelled', counted done). A run with nothing to ask
 * (an upload cancelled before its first chunk, every row excluded) is finished as it starts.
 */
export async function startRun(trx: Transaction<DatabaseSchema>, n: NewRun): Promise<void> {
  const { excluded } = await trx
    .selectFrom('review_rows')
    .select((eb) => eb.fn.countAll<number | string>().as('excluded'))
    .where('review_id', '=', n.review.id)
    .where('excluded', 'is not', null)
    .executeTakeFirstOrThrow();
  const done = Number(excluded);
  await trx
    .insertInto('review_runs')
    .values({
      review_id: n.review.id,
      run: n.run,
      started_at: n.now,
      finished_at: done >= n.rows ? n.now : null,
      fresh: n.fresh ? 1 : 0,
      total: n.rows,
      done,
      matched: 0,
      not_found: 0,
      ambiguous: 0,
      failed: 0,
      paused_at: null,
      cancelled_at: null,
    })
    .execute();
  await trx
    .insertInto('review_results')
    .columns([
      'review_id',
      'run',
      'row_index',
      'account_id',
      'state',
      'lease_until',
      'not_before',
      'attempts',
      'outcome',
      'result',
      'seq',
    ])
    .expression((eb) =>
      eb
        .selectFrom('review_rows')
        .select((s) => [
          'review_id',
          s.val(n.run).as('run'),
          'row_index',
          s.val(n.review.account_id).as('account_id'),
          s
            .case()
            .when('excluded', 'is', null)
            .then(sql.lit('pending'))
            .else(sql.lit('cancelled'))
            .end()
            .as('state'),
          s.val(0).as('lease_until'),
          s.val(0).as('not_before'),
          s.val(0).as('attempts'),
          s.val(null).as('outcome'),
          s.val(null).as('result'),
          s.val(0).as('seq'),
        ])
        .where('review_id', '=', n.review.id),
    )
    .execute();
}
