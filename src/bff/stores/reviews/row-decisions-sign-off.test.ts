import { describe, expect, it } from 'vitest';
import type { Database } from '../../db/database.ts';
import type { RowResult, StoredAnswer } from '../../reviews/look-up-row.ts';
import { auditEntry } from '../../test-support/audit-entry.ts';
import { databaseBackends } from '../../test-support/database-backends.ts';
import { seedReview } from '../../test-support/seed-review.ts';
import type { NewAuditEntry } from '../audit/audit-store.ts';
import { type Completion, writeCompletions } from './completions.ts';
import { SqlReviewSignOff } from './review-sign-off.ts';
import { SqlReviewStore } from './review-store.ts';
import { SqlRowDecisions } from './row-decisions.ts';

/*
 * When a sign-off stops holding with nobody deciding anything (issue 30), on both databases: a later run that
 * changed a row's answer withdraws it (one that changed none keeps it, still of its run); a cancelled later run
 * withdraws it; a row included again with no decision withdraws it; each withdrawal is in the audit trail. And a
 * public demo visitor approves only a sign-off of the same visitor.
 */

const NOT_FOUND: StoredAnswer = {
  outcome: 'not_found',
  cached: false,
  retrievedAt: '2026-11-01T09:00:00.000Z',
};
const ALICE = { by: 'a11ce000', visitor: null };
const BOB = { by: 'b0b00000', visitor: null };

const entryOf =
  (accountId: string, reviewId: string) =>
  (at: number): NewAuditEntry =>
    auditEntry({
      at,
      account_id: accountId,
      key_fingerprint: ALICE.by,
      kind: 'review_row_included',
      outcome: 'ok',
      review_id: reviewId,
      row_index: 2,
    });

/** A finished review of `total` rows, each not found on its one run. */
const seeded = (database: Database, accountId: string, total: number) =>
  seedReview(database, {
    accountId,
    name: 'Collateral',
    runs: 1,
    total,
    row: (i) => ({ address: `${i + 1} Main St`, answers: [NOT_FOUND] }),
  });

async function signedOff(database: Database, accountId: string, total: number): Promise<string> {
  const id = await seeded(database, accountId, total);
  const all = Array.from({ length: total }, (_, i) => i);
  await new SqlRowDecisions(database.db).decide(accountId, id, all, {
    decision: 'accept',
    note: '',
    by: ALICE.by,
  });
  expect(await new SqlReviewSignOff(database.db).signOff(accountId, id, ALICE, '')).toBe(true);
  return id;
}

/** Check again, and the worker's answers to every row of the new run (row i answers `answers(i)`), in one batch. */
async function runAgain(
  database: Database,
  accountId: string,
  id: string,
  answers: (i: number) => StoredAnswer,
) {
  const store = new SqlReviewStore(database.db);
  const started = await store.checkAgain(accountId, id);
  if (!started || started === 'busy') throw new Error('Check again was refused');
  const run = started.runs.at(-1)?.number as number;
  await database.db
    .updateTable('review_results')
    .set({ state: 'leased', lease_owner: 'w1', lease_until: Date.now() + 60_000 })
    .where('review_id', '=', id)
    .where('run', '=', run)
    .where('state', '=', 'pending')
    .execute();
  const leased = await database.db
    .selectFrom('review_results')
    .select('row_index')
    .where('review_id', '=', id)
    .where('run', '=', run)
    .where('state', '=', 'leased')
    .execute();
  const batch: Completion[] = leased.map(({ row_index }) => ({
    owner: 'w1',
    row: { reviewId: id, accountId, run, index: Number(row_index), address: '', fresh: true, attempts: 0 },
    result: {
      ...answers(Number(row_index)),
      cached: false,
      retrievedAt: new Date().toISOString(),
    } as RowResult,
    entry: undefined,
    taken: () => {},
    failed: () => {},
  }));
  const taken = await writeCompletions(database.db, database.dialect, batch, Date.now());
  expect(taken.every(Boolean)).toBe(true);
  return run;
}

async function withdrawals(database: Database, id: string) {
  const rows = await database.db
    .selectFrom('audit_entries')
    .select(['query', 'key_fingerprint'])
    .where('review_id', '=', id)
    .where('kind', '=', 'review_sign_off_withdrawn')
    .orderBy('id')
    .execute();
  return rows.map((r) => [r.query, r.key_fingerprint]);
}

describe.each(databaseBackends('sign-off-rules'))('a sign-off and later changes ($name)', (backend) => {
  let n = 0;
  const account = () => `acct-sign-off-${++n}`;

  // Planted once: without the finishing run's call into settleSignOffAfterRun (completions.ts), run 3 left the
  // sign-off standing over a changed answer, unaudited.
  it('stands, of its run, after a run that changed no answer; a run that changed one withdraws it, audited', async () => {
    const { database } = backend;
    const accountId = account();
    const id = await signedOff(database, accountId, 3);
    const signOff = () => new SqlReviewSignOff(database.db).signOffOf(accountId, id);
    expect(await signOff()).toMatchObject({ by: ALICE.by, run: 1 });

    // The same answers again (newly retrieved): nothing a reviewer relies on changed.
    expect(await runAgain(database, accountId, id, () => NOT_FOUND)).toBe(2);
    expect(await signOff()).toMatchObject({ by: ALICE.by, run: 1 });
    expect(await new SqlReviewSignOff(database.db).approve(accountId, id, BOB)).toBe(true);

    // Row 2 answers otherwise now.
    await runAgain(database, accountId, id, (i) =>
      i === 1 ? { ...NOT_FOUND, outcome: 'ambiguous' } : NOT_FOUND,
    );
    expect(await signOff()).toBeNull();
    expect(await withdrawals(database, id)).toEqual([
      ['Run 3 changed the answer of 1 row since the sign-off of run 1', ALICE.by],
    ]);
    // Signed off again, it is of the latest run.
    expect(await new SqlReviewSignOff(database.db).signOff(accountId, id, BOB, '')).toBe(true);
    expect(await signOff()).toMatchObject({ by: BOB.by, run: 3, approved: null });
  });

  // Planted once: without the call after cancel() (review-controls.ts) the sign-off stood over rows never asked.
  it('is withdrawn by a later run cancelled before its rows were asked', async () => {
    const { database } = backend;
    const accountId = account();
    const id = await signedOff(database, accountId, 2);
    const store = new SqlReviewStore(database.db);
    expect(await store.checkAgain(accountId, id)).toMatchObject({ signOff: { run: 1 } });
    expect(await store.control(accountId, id, 'cancel')).toMatchObject({ signOff: null });
    expect(await withdrawals(database, id)).toEqual([
      ['Run 2 changed the answer of 2 rows since the sign-off of run 1', ALICE.by],
    ]);
  });

  // Planted once: without withdrawSignOffOnInclude in excludeRow, the review stayed signed off over row 3.
  it('is withdrawn when an excluded row without a decision is included again, not when it has one', async () => {
    const { database } = backend;
    const accountId = account();
    const id = await seeded(database, accountId, 3);
    const store = new SqlReviewStore(database.db);
    const decisions = new SqlRowDecisions(database.db);
    const signOff = new SqlReviewSignOff(database.db);
    const target = { reviewId: id, index: 2 };
    const entry = entryOf(accountId, id);
    await store.excludeRow(accountId, target, { reason: 'Not collateral', by: ALICE.by }, entry);
    await decisions.decide(accountId, id, [0, 1], { decision: 'accept', note: '', by: ALICE.by });
    expect(await signOff.signOff(accountId, id, ALICE, '')).toBe(true);

    await store.excludeRow(accountId, target, null, entry);
    expect(await signOff.signOffOf(accountId, id)).toBeNull();
    expect(await withdrawals(database, id)).toEqual([['Row 3 included again, with no decision', ALICE.by]]);

    // Decided while excluded, then included again: every row not excluded still has a decision.
    await store.excludeRow(accountId, target, { reason: 'Not collateral', by: ALICE.by }, entry);
    await decisions.decide(accountId, id, [2], { decision: 'reject', note: '', by: ALICE.by });
    expect(await signOff.signOff(accountId, id, ALICE, '')).toBe(true);
    await store.excludeRow(accountId, target, null, entry);
    expect(await signOff.signOffOf(accountId, id)).toMatchObject({ by: ALICE.by });
    expect(await withdrawals(database, id)).toHaveLength(1);
  });

  // Planted once: without the visitor check in approve(), the stranger's approval stood.
  it('lets a demo visitor approve only a sign-off of the same visitor', async () => {
    const { database } = backend;
    const accountId = account();
    const id = await seeded(database, accountId, 1);
    const signOff = new SqlReviewSignOff(database.db);
    await new SqlRowDecisions(database.db).decide(accountId, id, [0], {
      decision: 'accept',
      note: '',
      by: 'v1',
    });
    expect(await signOff.signOff(accountId, id, { by: 'v1', visitor: 'visit-a' }, '')).toBe(true);
    expect(await signOff.approve(accountId, id, { by: 'v2', visitor: 'visit-b' })).toBe('other_visitor');
    expect(await signOff.approve(accountId, id, { by: 'v1', visitor: 'visit-a' })).toBe('same_key');
    expect(await signOff.approve(accountId, id, { by: 'v2', visitor: 'visit-a' })).toBe(true);
  });
});
