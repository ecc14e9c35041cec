import { describe, expect, it } from 'vitest';
import type { Database } from '../../db/database.ts';
import type { StoredAnswer } from '../../reviews/look-up-row.ts';
import { auditEntry } from '../../test-support/audit-entry.ts';
import { databaseBackends } from '../../test-support/database-backends.ts';
import { seedReview } from '../../test-support/seed-review.ts';
import type { NewAuditEntry } from '../audit/audit-store.ts';
import { SqlReviewSignOff } from './review-sign-off.ts';
import { SqlReviewStore } from './review-store.ts';
import { type DecisionEntry, SqlRowDecisions } from './row-decisions.ts';

/*
 * Decisions on rows, sign-off and approval (issue 30), in the store, on both databases: every decision kept in
 * the row's history, the current one on the row, many rows at once all or none, the sign-off's rules, approval by
 * another key, an audit entry for each in the same transaction; and a decision cleared while the review is being
 * signed off, raced, never leaves it signed off without a reason over an undecided row.
 */

const ANSWER: StoredAnswer = { outcome: 'not_found', cached: false, retrievedAt: '2026-11-01T09:00:00.000Z' };
const ALICE = 'a11ce000';
const BOB = 'b0b00000';
/** A real account's key signing off or approving (no demo visitor). */
const real = (by: string) => ({ by, visitor: null });

async function seeded(database: Database, accountId: string, total = 3): Promise<string> {
  return seedReview(database, {
    accountId,
    name: 'Collateral',
    runs: 1,
    total,
    row: (i) => ({ address: `${i + 1} Main St`, answers: [ANSWER] }),
  });
}

/** An entry factory recording what it was asked (the kinds in order). */
function recorder(accountId: string, reviewId: string) {
  const kinds: string[] = [];
  const entry: DecisionEntry = (kind, row, query, at): NewAuditEntry => {
    kinds.push(row === null ? kind : `${kind}#${row}`);
    return auditEntry({
      at,
      account_id: accountId,
      key_fingerprint: ALICE,
      kind,
      query,
      outcome: 'ok',
      review_id: reviewId,
      row_index: row,
    });
  };
  return { kinds, entry };
}

describe.each(databaseBackends('row-decisions'))('decisions on rows ($name)', (backend) => {
  let n = 0;
  const account = () => `acct-decisions-${++n}`;

  it('keeps every decision in the row’s history, the latest on the row; many rows at once; cleared again', async () => {
    const { db } = backend.database;
    const accountId = account();
    const id = await seeded(backend.database, accountId);
    let clock = Date.UTC(2026, 10, 26, 10);
    const decisions = new SqlRowDecisions(db, () => clock++);
    const rows = new SqlReviewStore(db);
    const { kinds, entry } = recorder(accountId, id);

    expect(
      await decisions.decide(accountId, id, [0], { decision: 'accept', note: '', by: ALICE }, entry),
    ).toEqual({
      changed: [0],
      withdrewSignOff: false,
    });
    await decisions.decide(accountId, id, [0], { decision: 'follow_up', note: 'Site visit', by: BOB }, entry);
    // The same decision again (a retried request) changes nothing and records nothing.
    await decisions.decide(accountId, id, [0], { decision: 'follow_up', note: 'Site visit', by: BOB }, entry);
    expect((await rows.row(accountId, id, 0))?.decision).toMatchObject({
      decision: 'follow_up',
      note: 'Site visit',
      by: BOB,
    });
    expect((await decisions.history(accountId, id, 0))?.map((s) => [s.decision, s.note, s.by])).toEqual([
      ['accept', '', ALICE],
      ['follow_up', 'Site visit', BOB],
    ]);

    const bulk = await decisions.decide(
      accountId,
      id,
      [2, 1, 2],
      { decision: 'reject', note: 'Office', by: ALICE },
      entry,
    );
    expect(bulk).toEqual({ changed: [1, 2], withdrewSignOff: false });
    expect((await rows.rows(accountId, id, { limit: 10 }))?.rows.map((r) => r.decision?.decision)).toEqual([
      'follow_up',
      'reject',
      'reject',
    ]);
    // A row out of range refuses the whole bulk: nothing of it is written.
    expect(
      await decisions.decide(accountId, id, [0, 3], { decision: 'accept', note: '', by: ALICE }, entry),
    ).toBe('no_such_row');
    expect((await rows.row(accountId, id, 0))?.decision?.decision).toBe('follow_up');
    expect(
      await decisions.decide('another-account', id, [0], { decision: 'accept', note: '', by: ALICE }),
    ).toBe('not_found');

    await decisions.decide(accountId, id, [2], { decision: null, note: '', by: BOB }, entry);
    expect((await rows.row(accountId, id, 2))?.decision).toBeUndefined();
    expect((await decisions.history(accountId, id, 2))?.map((s) => [s.decision, s.by])).toEqual([
      ['reject', ALICE],
      ['cleared', BOB],
    ]);
    expect(kinds).toEqual([
      'review_row_decided#0',
      'review_row_decided#0',
      'review_row_decided#1',
      'review_row_decided#2',
      'review_row_decided#2',
    ]);
    const trail = await db
      .selectFrom('audit_entries')
      .select(['kind', 'row_index', 'query'])
      .where('review_id', '=', id)
      .orderBy('id')
      .execute();
    expect(trail.map((e) => [e.row_index, e.query])).toEqual([
      [0, 'accept'],
      [0, 'follow_up: Site visit'],
      [1, 'reject: Office'],
      [2, 'reject: Office'],
      [2, 'cleared'],
    ]);
  });

  it('stands only with its audit entry: an entry that cannot be written undoes the decision', async () => {
    const { db } = backend.database;
    const accountId = account();
    const id = await seeded(backend.database, accountId);
    const decisions = new SqlRowDecisions(db);
    const broken: DecisionEntry = (kind, row, query, at) =>
      ({
        ...recorder(accountId, id).entry(kind, row, query, at),
        account_id: null,
      }) as unknown as NewAuditEntry;
    await expect(
      decisions.decide(accountId, id, [0, 1], { decision: 'accept', note: '', by: ALICE }, broken),
    ).rejects.toMatchObject({ code: 'audit_unavailable' });
    expect(await decisions.history(accountId, id, 0)).toEqual([]);
    expect((await new SqlReviewStore(db).row(accountId, id, 0))?.decision).toBeUndefined();
  });

  it('signs off when every row not excluded is decided, or with a reason; another key approves; a later decision withdraws both', async () => {
    const { db } = backend.database;
    const accountId = account();
    const id = await seeded(backend.database, accountId);
    const decisions = new SqlRowDecisions(db);
    const signOff = new SqlReviewSignOff(db);
    const { kinds, entry } = recorder(accountId, id);
    await decisions.decide(accountId, id, [0], { decision: 'accept', note: '', by: ALICE });

    expect(await signOff.signOff(accountId, id, real(ALICE), '', entry)).toEqual({ undecided: 2 });
    // An excluded row needs no decision.
    await db
      .updateTable('review_rows')
      .set({ excluded: '{"reason":"","by":"x","at":""}' })
      .where('review_id', '=', id)
      .where('row_index', '=', 2)
      .execute();
    expect(await signOff.signOff(accountId, id, real(ALICE), '', entry)).toEqual({ undecided: 1 });
    expect(await signOff.approve(accountId, id, real(BOB), entry)).toBe('not_signed_off');
    expect(await signOff.signOff(accountId, id, real(ALICE), 'Row 2 is with the valuer', entry)).toBe(true);
    expect(await signOff.signOff(accountId, id, real(BOB), 'again', entry)).toBe('signed_off');
    expect(await signOff.signOffOf(accountId, id)).toMatchObject({
      by: ALICE,
      reason: 'Row 2 is with the valuer',
      approved: null,
    });

    expect(await signOff.approve(accountId, id, real(ALICE), entry)).toBe('same_key');
    expect(await signOff.approve(accountId, id, real(BOB), entry)).toBe(true);
    expect(await signOff.approve(accountId, id, real(BOB), entry)).toBe('approved');
    const summary = await new SqlReviewStore(db).summary(accountId, id);
    expect(summary?.signOff).toMatchObject({ by: ALICE, approved: { by: BOB } });

    expect(
      await decisions.decide(accountId, id, [1], { decision: 'reject', note: '', by: BOB }, entry),
    ).toEqual({
      changed: [1],
      withdrewSignOff: true,
    });
    expect(await signOff.signOffOf(accountId, id)).toBeNull();
    expect(await signOff.signOffOf('another-account', id)).toBeUndefined();
    expect(kinds).toEqual([
      'review_signed_off',
      'review_approved',
      'review_row_decided#1',
      'review_sign_off_withdrawn',
    ]);
    // Every row not excluded is decided now: no reason needed.
    expect(await signOff.signOff(accountId, id, real(BOB), '')).toBe(true);
    expect((await signOff.signOffOf(accountId, id))?.reason).toBeNull();
  });

  it('is not signed off while its run is unfinished', async () => {
    const { db } = backend.database;
    const accountId = account();
    const id = await seeded(backend.database, accountId, 1);
    await db.updateTable('review_runs').set({ finished_at: null }).where('review_id', '=', id).execute();
    expect(await new SqlReviewSignOff(db).signOff(accountId, id, real(ALICE), 'because')).toBe(
      'not_finished',
    );
  });
  /*
   * Raced (on PostgreSQL, two connections of the pool; SQLite takes one writer at a time): Alice clears a row's
   * decision while Bob signs the review off without a reason (every row was decided when he looked). Whichever
   * commits first, the review must not end signed off, without a reason, over an undecided row. Planted once on
   * PostgreSQL: with decide() reading the review instead of taking its row lock first (lockReview), every round
   * ended so (the sign-off counted the row decided; the clearing saw no sign-off to withdraw).
   */
  it('never leaves a review signed off without a reason over a decision cleared at the same moment', async () => {
    const { db } = backend.database;
    const broken: string[] = [];
    for (let round = 0; round < 6; round++) {
      const accountId = account();
      const id = await seeded(backend.database, accountId, 2);
      await new SqlRowDecisions(db).decide(accountId, id, [0, 1], {
        decision: 'accept',
        note: '',
        by: ALICE,
      });
      const [cleared, signed] = await Promise.all([
        new SqlRowDecisions(db).decide(accountId, id, [1], { decision: null, note: '', by: ALICE }),
        new SqlReviewSignOff(db).signOff(accountId, id, real(BOB), ''),
      ]);
      expect(typeof cleared === 'object' && cleared.changed).toEqual([1]);
      const signOff = await new SqlReviewSignOff(db).signOffOf(accountId, id);
      const row = await new SqlReviewStore(db).row(accountId, id, 1);
      if (signOff && signOff.reason === null && row?.decision === undefined)
        broken.push(`round ${round}: signed ${JSON.stringify(signed)}, row 1 undecided`);
    }
    expect(broken).toEqual([]);
  });
  // Two keys decide one row at the same moment: both decisions are kept, in the order they took the review's lock,
  // and the row holds the later. Planted once on PostgreSQL (decide() without lockReview): both read the same last
  // version and one failed on the history's primary key.
  it('keeps both of two decisions of one row made at the same moment, the later on the row', async () => {
    const { db } = backend.database;
    const problems: string[] = [];
    for (let round = 0; round < 4; round++) {
      const accountId = account();
      const id = await seeded(backend.database, accountId, 1);
      const outcomes = await Promise.allSettled([
        new SqlRowDecisions(db).decide(accountId, id, [0], { decision: 'accept', note: '', by: ALICE }),
        new SqlRowDecisions(db).decide(accountId, id, [0], { decision: 'reject', note: '', by: BOB }),
      ]);
      const history = (await new SqlRowDecisions(db).history(accountId, id, 0)) ?? [];
      const row = await new SqlReviewStore(db).row(accountId, id, 0);
      if (outcomes.some((o) => o.status === 'rejected')) problems.push(`round ${round}: a decision failed`);
      else if (history.length !== 2) problems.push(`round ${round}: ${history.length} kept`);
      else if (row?.decision?.by !== history[1]?.by)
        problems.push(`round ${round}: the row is not the later`);
    }
    expect(problems).toEqual([]);
  });
});
