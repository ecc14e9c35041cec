import { sql } from 'kysely';
import { describe, expect, it } from 'vitest';
import type { ReviewInputRow } from '../../../contract/index.ts';
import type { Database } from '../../db/database.ts';
import type { RowResult } from '../../reviews/look-up-row.ts';
import type { LeasedRow } from '../../reviews/worker.ts';
import { auditEntry } from '../../test-support/audit-entry.ts';
import { databaseBackends } from '../../test-support/database-backends.ts';
import type { NewAuditEntry } from '../audit/audit-store.ts';
import { searchTextOf } from '../audit/search-text.ts';
import { SqlReviewQueue } from './queue.ts';
import { SqlReviewStore } from './review-store.ts';

/*
 * A review row's answer and the audit entry of the lookup that gave it are kept together or not at all (ADR 010,
 * addendum): a completion whose transaction fails leaves neither, a holder whose lease ran out leaves neither,
 * and the live holder leaves both, once. Raced: many completions at once, from several queues (on PostgreSQL,
 * several connections), round after round.
 */

const ROUNDS = 5;
const ROWS = 40;

const answer = (owner: string): RowResult => ({
  outcome: 'not_found',
  cached: false,
  retrievedAt: '2026-11-24T10:00:00.000Z',
  error: { code: 'not_found', message: `asked by ${owner}` },
});

/** The entry the worker's lookup holds for a row: `session_ref` names who asked. */
const entryOf = (owner: string, row: LeasedRow, at: number): NewAuditEntry =>
  auditEntry({
    at,
    account_id: row.accountId,
    key_fingerprint: 'fp',
    session_ref: owner,
    kind: 'review_row',
    query: row.address,
    outcome: 'not_found',
    review_id: row.reviewId,
    row_index: row.index,
  });

const rows = (n: number): ReviewInputRow[] =>
  Array.from({ length: n }, (_, i) => ({ address: `${i} Elm St` }));

describe.each(databaseBackends('audited-completions'))(
  'a review row answered and audited ($name)',
  (backend) => {
    let now = 1_700_000_000_000;
    let account = 0;
    /**
     * `n` queues, as `n` replicas would have. On SQLite, every other round through the statements prepared on the
     * file's own handle (as the server runs them), the other through Kysely (as when a transaction of its is open).
     */
    const queues = (n: number, round: number) => {
      const { db, dialect, sqlite } = backend.database;
      return Array.from(
        { length: n },
        () => new SqlReviewQueue(db, dialect, () => now, round % 2 === 0 ? sqlite : undefined),
      );
    };

    async function running(total: number): Promise<{ accountId: string; reviewId: string }> {
      const accountId = `acct-audited-${++account}`;
      const store = new SqlReviewStore(backend.database.db, () => now);
      const review = await store.create(accountId, 'fp', {
        clientToken: `tok-${accountId}`,
        name: 'Audited',
        kind: 'paste',
        columns: [],
        totalRows: total,
      });
      await store.addChunk(accountId, review.id, { index: 0, firstRow: 0, rows: rows(total), last: true });
      return { accountId, reviewId: review.id };
    }

    /** Per row: who its result came from (null: none), and who its entries name. */
    async function kept(reviewId: string) {
      const db = backend.database.db;
      const results = await db
        .selectFrom('review_results')
        .select(['row_index', 'state', 'result'])
        .where('review_id', '=', reviewId)
        .orderBy('row_index')
        .execute();
      const entries = await db
        .selectFrom('audit_entries')
        .select(['row_index', 'session_ref'])
        .where('review_id', '=', reviewId)
        .execute();
      return results.map((r) => ({
        row: r.row_index,
        answeredBy: r.state === 'done' ? (JSON.parse(r.result ?? '{}') as RowResult).error?.message : null,
        auditedBy: entries
          .filter((e) => e.row_index === r.row_index)
          .map((e) => `asked by ${e.session_ref}`)
          .sort(),
      }));
    }

    it('the live holder keeps the answer and its entry, once; a holder whose lease ran out keeps neither', async () => {
      for (let round = 0; round < ROUNDS; round++) {
        const { accountId, reviewId } = await running(ROWS);
        const [staleQueue, ...live] = queues(4, round);
        const stale = await staleQueue!.lease('stale', [accountId], ROWS, 10_000);
        expect(stale).toHaveLength(ROWS);
        now += 11_000; // the stale holder stalled past its lease: three live workers take the rows
        const taken: { row: LeasedRow; w: number }[] = [];
        for (const [w, q] of live.entries())
          for (const row of await q.lease(`live${w}`, [accountId], ROWS / 4, 30_000)) taken.push({ row, w });
        expect(taken).toHaveLength((3 * ROWS) / 4);
        // Everyone answers at once, the stale holder too (its lookups ended as the live ones did).
        const [staleTaken, liveTaken] = await Promise.all([
          Promise.all(
            stale.map((row) =>
              staleQueue!.complete('stale', row, answer('stale'), entryOf('stale', row, now)),
            ),
          ),
          Promise.all(
            taken.map(({ row, w }) =>
              live[w]!.complete(`live${w}`, row, answer(`live${w}`), entryOf(`live${w}`, row, now)),
            ),
          ),
        ]);
        expect(liveTaken.every(Boolean)).toBe(true);
        // Not one of the stale holder's: the rows no live worker took went back to pending when its lease ran out.
        expect(staleTaken.some(Boolean)).toBe(false);
        const byRow = await kept(reviewId);
        const liveRows = new Map(taken.map(({ row, w }) => [row.index, `asked by live${w}`]));
        for (const r of byRow) {
          const by = liveRows.get(r.row);
          expect(r, `round ${round}`).toEqual({
            row: r.row,
            answeredBy: by ?? null,
            auditedBy: by ? [by] : [],
          });
        }
      }
    });

    it('keeps the entry with its folded search text, so Activity finds the row by its address at once', async () => {
      // Both completion paths: the statements prepared on SQLite's handle (round 0) and Kysely's (round 1).
      for (const round of [0, 1]) {
        const { accountId, reviewId } = await running(1);
        const [queue] = queues(1, round);
        const [row] = await queue!.lease('live', [accountId], 1, 30_000);
        const entry = { ...entryOf('live', row!, now), query: 'ÉTÉ Straße 7, İzmir' };
        expect(await queue!.complete('live', row!, answer('live'), entry)).toBe(true);
        const kept = await backend.database.db
          .selectFrom('audit_entries')
          .select('search_text')
          .where('review_id', '=', reviewId)
          .executeTakeFirstOrThrow();
        expect(kept.search_text, `round ${round}`).toBe(searchTextOf(entry));
        expect(kept.search_text).toContain('été strasse 7');
      }
    });

    it('a completion whose transaction fails keeps neither the answer nor its entry', async () => {
      const db = backend.database.db;
      for (let round = 0; round < ROUNDS; round++) {
        const failing = await running(ROWS / 2);
        const fine = await running(ROWS / 2);
        const [q1, q2] = queues(2, round);
        const leased = [
          ...(await q1!.lease('w1', [failing.accountId], ROWS, 30_000)).map((row) => ({
            row,
            q: q1!,
            w: 'w1',
          })),
          ...(await q2!.lease('w2', [fine.accountId], ROWS, 30_000)).map((row) => ({ row, q: q2!, w: 'w2' })),
        ];
        // The database refuses the failing review's counts, the last write of its completion (a disk full, a
        // connection lost mid-transaction): everything of that transaction goes.
        await failOn(backend.database, failing.reviewId);
        try {
          const outcomes = await Promise.allSettled(
            leased.map(({ row, q, w }) => q.complete(w, row, answer(w), entryOf(w, row, now))),
          );
          for (const [i, o] of outcomes.entries()) {
            const { row } = leased[i]!;
            if (row.reviewId === failing.reviewId) expect(o.status).toBe('rejected');
            else expect(o).toEqual({ status: 'fulfilled', value: true });
          }
        } finally {
          await stopFailing(backend.database);
        }
        for (const r of await kept(failing.reviewId))
          expect(r).toEqual({ row: r.row, answeredBy: null, auditedBy: [] });
        for (const r of await kept(fine.reviewId))
          expect(r).toEqual({ row: r.row, answeredBy: 'asked by w2', auditedBy: ['asked by w2'] });
        // The failed rows are still leased: their lease runs out and they are asked again, audited then.
        const left = await db
          .selectFrom('review_results')
          .select('state')
          .where('review_id', '=', failing.reviewId)
          .execute();
        expect(left.every((r) => r.state === 'leased')).toBe(true);
      }
    });
  },
);

/** Makes every update of this review's run counts fail, until stopFailing. */
async function failOn(database: Database, reviewId: string): Promise<void> {
  const id = sql.lit(reviewId);
  if (database.dialect === 'sqlite') {
    await sql`create trigger fail_counts before update on review_runs when old.review_id = ${id}
      begin select raise(abort, 'the disk is full'); end`.execute(database.db);
    return;
  }
  await sql`create or replace function fail_counts() returns trigger language plpgsql as
    $$ begin raise exception 'the disk is full'; end $$`.execute(database.db);
  await sql`create trigger fail_counts before update on review_runs for each row
    when (old.review_id = ${id}) execute function fail_counts()`.execute(database.db);
}

async function stopFailing(database: Database): Promise<void> {
  if (database.dialect === 'sqlite') await sql`drop trigger fail_counts`.execute(database.db);
  else await sql`drop trigger fail_counts on review_runs`.execute(database.db);
}
