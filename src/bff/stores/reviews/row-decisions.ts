import type { Kysely, Transaction } from 'kysely';
import type { DecisionKind, RowDecision, RowDecisionStep } from '../../../contract/index.ts';
import type { DatabaseSchema } from '../../db/schema.ts';
import type { NewAuditEntry } from '../audit/audit-store.ts';
import { insertForChange } from '../audit/chain.ts';
import { latestRun } from './latest-run.ts';

type Db = Kysely<DatabaseSchema>;
type Trx = Transaction<DatabaseSchema>;

/** Why rows cannot be decided: no such review (in this account), no such row, or not uploaded yet. */
export type DecisionRefusal = 'not_found' | 'no_such_row' | 'not_uploaded';

/** What a decision (or its clearing) did: the rows it changed, and whether it withdrew the review's sign-off. */
export interface DecisionWritten {
  changed: number[];
  withdrewSignOff: boolean;
}

/** An audit entry of one of these kinds, for the change's own transaction (the route knows the session). */
export type DecisionEntry = (
  kind: 'review_row_decided' | 'review_signed_off' | 'review_approved' | 'review_sign_off_withdrawn',
  row: number | null,
  query: string | null,
  at: number,
) => NewAuditEntry;

/** A decision to write (what and why) by a key (`by`); `decision` null clears it (the row undecided again). */
export interface NewDecision {
  decision: DecisionKind | null;
  note: string;
  by: string;
}

/** Rows per statement with a list of indexes (SQLite takes 32,766 parameters; PostgreSQL 65,535). */
const IN_LIST = 1_000;

/**
 * A reviewer's decisions on rows (issue 30). Every decision is kept (review_decisions, numbered per row); the
 * current one is also on the row, for every view and the export to read without a join.
 */
export class SqlRowDecisions {
  constructor(
    private readonly db: Db,
    private readonly now: () => number = Date.now,
  ) {}

  /**
   * Sets (or, with null, clears) the decision of `rows` of a review, all or none, with one audit entry per row
   * changed, committed with it. A row already holding this very decision and note is left alone (a retried
   * request changes nothing and records nothing). A change to a signed-off review withdraws its sign-off and
   * approval, recorded too: what was signed is no longer what the review says.
   */
  async decide(
    accountId: string,
    reviewId: string,
    rows: readonly number[],
    decision: NewDecision,
    entry?: DecisionEntry,
  ): Promise<DecisionWritten | DecisionRefusal> {
    return this.db.transaction().execute(async (trx) => {
      const at = this.now();
      const review = await lockReview(trx, accountId, reviewId);
      if (!review) return 'not_found';
      const indexes = [...new Set(rows)].sort((a, b) => a - b);
      if (indexes.some((i) => i >= review.total_rows)) return 'no_such_row';
      const current = await currentOf(trx, reviewId, indexes);
      if (current.size < indexes.length) return 'not_uploaded';
      const set = decision.decision;
      const json = set && JSON.stringify(toRowDecision({ ...decision, decision: set }, at));
      const changed = indexes.filter((i) => {
        const now = current.get(i) ?? null;
        return set ? !sameDecision(now, decision) : now !== null;
      });
      if (changed.length === 0) return { changed, withdrewSignOff: false };
      await appendHistory(trx, reviewId, changed, decision, at);
      const seq = Number(review.last_seq);
      for (const part of parts(changed)) {
        await trx
          .updateTable('review_rows')
          .set({ decision: json })
          .where('review_id', '=', reviewId)
          .where('row_index', 'in', part)
          .execute();
        // The rows' next sequence number in the latest run, so every live view hears of the decision.
        await trx
          .updateTable('review_results')
          .set({ seq })
          .where('review_id', '=', reviewId)
          .where('run', '=', review.latest_run)
          .where('row_index', 'in', part)
          .execute();
      }
      const withdrewSignOff = review.signed_off_at !== null && review.signed_off_at !== undefined;
      if (withdrewSignOff) await withdrawSignOff(trx, reviewId);
      if (entry) {
        const query = set ? `${set}${decision.note ? `: ${decision.note}` : ''}` : 'cleared';
        const entries = changed.map((i) => entry('review_row_decided', i, query, at));
        if (withdrewSignOff)
          entries.push(
            entry('review_sign_off_withdrawn', null, `A decision changed ${changed.length} row(s)`, at),
          );
        await insertForChange(trx, entries);
      }
      return { changed, withdrewSignOff };
    });
  }

  /** A row's decisions, oldest first (the last is its current one); undefined: no such review in the account. */
  async history(accountId: string, reviewId: string, index: number): Promise<RowDecisionStep[] | undefined> {
    const review = await this.db
      .selectFrom('reviews')
      .select('id')
      .where('id', '=', reviewId)
      .where('account_id', '=', accountId)
      .executeTakeFirst();
    if (!review) return undefined;
    const steps = await this.db
      .selectFrom('review_decisions')
      .selectAll()
      .where('review_id', '=', reviewId)
      .where('row_index', '=', index)
      .orderBy('version')
      .execute();
    return steps.map((s) => ({
      decision: s.decision as RowDecisionStep['decision'],
      note: s.note,
      by: s.key_fingerprint,
      at: new Date(Number(s.at)).toISOString(),
    }));
  }
}

const toRowDecision = (d: NewDecision & { decision: DecisionKind }, at: number): RowDecision => ({
  decision: d.decision,
  note: d.note,
  by: d.by,
  at: new Date(at).toISOString(),
});

/** The same decision, note and key as the row holds now (its time aside). */
function sameDecision(current: string | null, d: NewDecision): boolean {
  if (current === null) return false;
  try {
    const c = JSON.parse(current) as RowDecision;
    return c.decision === d.decision && c.note === d.note && c.by === d.by;
  } catch {
    return false;
  }
}

function* parts(indexes: readonly number[]): Generator<number[]> {
  for (let at = 0; at < indexes.length; at += IN_LIST) yield indexes.slice(at, at + IN_LIST);
}

/**
 * The review's row, updated first (its sequence number moves on): on PostgreSQL that lock makes every change of
 * one review (a decision, a sign-off, an approval, an exclusion, the worker's answer) take turns, so a sign-off
 * never counts the rows while a decision is being cleared, nor a decision miss a sign-off it must withdraw.
 */
export async function lockReview(trx: Trx, accountId: string, reviewId: string) {
  const review = await trx
    .updateTable('reviews')
    .set((eb) => ({ last_seq: eb('last_seq', '+', 1) }))
    .where('id', '=', reviewId)
    .where('account_id', '=', accountId)
    .returning([
      'last_seq',
      'total_rows',
      'received_rows',
      'signed_off_at',
      'signed_off_by',
      'signed_off_visitor',
      'approved_at',
    ])
    .executeTakeFirst();
  if (!review) return undefined;
  const latest = await latestRun(trx, reviewId);
  return {
    ...review,
    latest_run: latest?.run ?? 0,
    latest_finished: latest ? latest.finished_at !== null : false,
  };
}

/** The rows' current decisions (JSON, or null), by index; a row not uploaded yet is not in the map. */
async function currentOf(trx: Trx, reviewId: string, indexes: readonly number[]) {
  const current = new Map<number, string | null>();
  for (const part of parts(indexes)) {
    const found = await trx
      .selectFrom('review_rows')
      .select(['row_index', 'decision'])
      .where('review_id', '=', reviewId)
      .where('row_index', 'in', part)
      .execute();
    for (const r of found) current.set(Number(r.row_index), r.decision ?? null);
  }
  return current;
}

/** Each row's decision appended to its history, as the next version after its last. */
async function appendHistory(
  trx: Trx,
  reviewId: string,
  indexes: readonly number[],
  decision: NewDecision,
  at: number,
): Promise<void> {
  for (const part of parts(indexes)) {
    const last = await trx
      .selectFrom('review_decisions')
      .select(['row_index', (eb) => eb.fn.max('version').as('version')])
      .where('review_id', '=', reviewId)
      .where('row_index', 'in', part)
      .groupBy('row_index')
      .execute();
    const versions = new Map(last.map((r) => [Number(r.row_index), Number(r.version)]));
    await trx
      .insertInto('review_decisions')
      .values(
        part.map((i) => ({
          review_id: reviewId,
          row_index: i,
          version: (versions.get(i) ?? 0) + 1,
          decision: decision.decision ?? 'cleared',
          note: decision.decision ? decision.note : '',
          key_fingerprint: decision.by,
          at,
        })),
      )
      .execute();
  }
}

/** The review's sign-off and approval, withdrawn (the audit trail keeps that they were). */
export async function withdrawSignOff(trx: Db, reviewId: string): Promise<void> {
  await trx
    .updateTable('reviews')
    .set({
      signed_off_by: null,
      signed_off_at: null,
      signed_off_reason: null,
      signed_off_run: null,
      signed_off_visitor: null,
      approved_by: null,
      approved_at: null,
    })
    .where('id', '=', reviewId)
    .execute();
}
