import type { Kysely } from 'kysely';
import { RowFix } from '../../../contract/index.ts';
import type { Dialect } from '../../db/database.ts';
import type { DatabaseSchema } from '../../db/schema.ts';
import type { RowResult } from '../../reviews/look-up-row.ts';
import type { LeasedRow, ReviewQueue } from '../../reviews/worker.ts';

type Db = Kysely<DatabaseSchema>;
type Key = Pick<LeasedRow, 'reviewId' | 'run' | 'index'>;

/** The run's count column of each outcome. */
export const OUTCOME_COLUMN = {
  matched: 'matched',
  not_found: 'not_found',
  ambiguous: 'ambiguous',
  failed: 'failed',
} as const;

/**
 * The review worker's side of the review store: leases in the database, so that on several replicas exactly
 * one works a row at a time (PostgreSQL: FOR UPDATE SKIP LOCKED; the embedded SQLite has one replica), a lease
 * past its time is handed out again (a killed replica's rows), and a row gets exactly one outcome per run (a
 * late answer from a lease that ran out is dropped).
 */
export class SqlReviewQueue implements ReviewQueue {
  constructor(
    private readonly db: Db,
    private readonly dialect: Dialect,
    private readonly now: () => number = Date.now,
  ) {}

  async lease(
    owner: string,
    accountIds: readonly string[],
    limit: number,
    leaseMs: number,
  ): Promise<LeasedRow[]> {
    if (accountIds.length === 0 || limit <= 0) return [];
    const now = this.now();
    return this.db.transaction().execute(async (trx) => {
      const due = await trx
        .selectFrom('review_results as r')
        .innerJoin('review_rows as w', (j) =>
          j.onRef('w.review_id', '=', 'r.review_id').onRef('w.row_index', '=', 'r.row_index'),
        )
        .innerJoin('review_runs as u', (j) =>
          j.onRef('u.review_id', '=', 'r.review_id').onRef('u.run', '=', 'r.run'),
        )
        .select([
          'r.review_id',
          'r.run',
          'r.row_index',
          'r.account_id',
          'r.attempts',
          'w.address',
          'w.fix',
          'u.fresh',
        ])
        .where('r.account_id', 'in', [...accountIds])
        .where((eb) =>
          eb.or([
            eb.and([eb('r.state', '=', 'pending'), eb('r.not_before', '<=', now)]),
            eb.and([eb('r.state', '=', 'leased'), eb('r.lease_until', '<', now)]),
          ]),
        )
        .orderBy('r.review_id')
        .orderBy('r.run')
        .orderBy('r.row_index')
        .limit(limit)
        .$if(this.dialect === 'postgres', (q) => q.forUpdate('r').skipLocked())
        .execute();
      if (due.length === 0) return [];
      await trx
        .updateTable('review_results')
        .set({ state: 'leased', lease_owner: owner, lease_until: now + leaseMs })
        .where((eb) =>
          eb.or(due.map((d) => whereKey(eb, { reviewId: d.review_id, run: d.run, index: d.row_index }))),
        )
        .execute();
      return due.map((d) => ({
        reviewId: d.review_id,
        accountId: d.account_id,
        run: d.run,
        index: d.row_index,
        address: lookupAddress(d.address, d.fix),
        fresh: d.fresh === 1,
        attempts: d.attempts,
      }));
    });
  }

  async extend(owner: string, rows: readonly LeasedRow[], leaseMs: number): Promise<void> {
    if (rows.length === 0) return;
    await this.db
      .updateTable('review_results')
      .set({ lease_until: this.now() + leaseMs })
      .where('state', '=', 'leased')
      .where('lease_owner', '=', owner)
      .where((eb) => eb.or(rows.map((r) => whereKey(eb, r))))
      .execute();
  }

  async complete(owner: string, row: LeasedRow, result: RowResult): Promise<boolean> {
    const now = this.now();
    return this.db.transaction().execute(async (trx) => {
      const taken = await trx
        .updateTable('review_results')
        .set({ state: 'done', outcome: result.outcome, result: JSON.stringify(result), lease_owner: null })
        .where((eb) => whereKey(eb, row))
        .where('state', '=', 'leased')
        .where('lease_owner', '=', owner)
        .executeTakeFirst();
      if (Number(taken.numUpdatedRows) !== 1) return false;
      const { last_seq } = await trx
        .updateTable('reviews')
        .set((eb) => ({ last_seq: eb('last_seq', '+', 1) }))
        .where('id', '=', row.reviewId)
        .returning('last_seq')
        .executeTakeFirstOrThrow();
      await trx
        .updateTable('review_results')
        .set({ seq: last_seq })
        .where((eb) => whereKey(eb, row))
        .execute();
      const column = OUTCOME_COLUMN[result.outcome];
      await trx
        .updateTable('review_runs')
        .set((eb) => ({
          done: eb('done', '+', 1),
          [column]: eb(column, '+', 1),
          finished_at: eb
            .case()
            .when('done', '>=', eb('total', '-', 1))
            .then(now)
            .else(eb.ref('finished_at'))
            .end(),
        }))
        .where('review_id', '=', row.reviewId)
        .where('run', '=', row.run)
        .execute();
      return true;
    });
  }

  async retryLater(owner: string, row: LeasedRow, notBefore: number): Promise<void> {
    await this.db
      .updateTable('review_results')
      .set({ state: 'pending', lease_owner: null, not_before: notBefore, attempts: row.attempts + 1 })
      .where((eb) => whereKey(eb, row))
      .where('state', '=', 'leased')
      .where('lease_owner', '=', owner)
      .execute();
  }
}

/** What a row asks: the address a reviewer fixed it to, else the input. */
function lookupAddress(input: string, fix: string | null): string {
  if (!fix) return input;
  const parsed = RowFix.safeParse(JSON.parse(fix));
  return parsed.success ? parsed.data.address : input;
}

// biome-ignore lint/suspicious/noExplicitAny: Kysely's expression builder for review_results, in any query
function whereKey(eb: any, key: Key) {
  return eb.and([
    eb('review_id', '=', key.reviewId),
    eb('run', '=', key.run),
    eb('row_index', '=', key.index),
  ]);
}
