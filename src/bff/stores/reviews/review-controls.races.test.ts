import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ReviewInputRow } from '../../../contract/index.ts';
import { type Database, openDatabase } from '../../db/database.ts';
import type { RowResult } from '../../reviews/look-up-row.ts';
import { PostgresServer, postgresAvailable } from '../../test-support/postgres-process.ts';
import { SqlReviewQueue } from './queue.ts';
import type { ReviewAction } from './review-controls.ts';
import { SqlReviewStore } from './review-store.ts';

/*
 * Pause, Resume and Cancel raced on one real PostgreSQL, from two replicas' pools, round after round: against
 * each other, and against workers completing rows and putting rows back. The review row's lock (review-controls.ts)
 * and the trigger's FOR SHARE read of the run (migration 0005) are what keep these right.
 */

const ROUNDS = 10;
const answered: RowResult = { outcome: 'not_found', cached: false, retrievedAt: '2026-11-24T10:00:00.000Z' };
const rows = (n: number): ReviewInputRow[] =>
  Array.from({ length: n }, (_, i) => ({ address: `${i} Main St` }));
const kindOf = (outcome: PromiseSettledResult<unknown>) =>
  outcome.status === 'rejected'
    ? `threw ${String((outcome.reason as Error)?.message)}`
    : typeof outcome.value === 'object' && outcome.value !== null
      ? 'summary'
      : String(outcome.value);

describe.skipIf(!postgresAvailable())('review controls raced on PostgreSQL', { timeout: 60_000 }, () => {
  let server: PostgresServer;
  let replicas: Database[] = [];
  let round = 0;
  const stores = () => replicas.map((d) => new SqlReviewStore(d.db));
  const queues = () => replicas.map((d) => new SqlReviewQueue(d.db, d.dialect));
  const pick = <T>(list: T[], i: number) => list[i % list.length] as T;

  beforeAll(async () => {
    server = await PostgresServer.start();
    replicas = await Promise.all([0, 1].map(() => openDatabase({ url: server.url, dir: '' })));
  }, 60_000);
  afterAll(async () => {
    await Promise.all(replicas.map((d) => d.close()));
    await server?.destroy();
  });

  async function running(total: number) {
    const accountId = `acct-controls-race-${++round}`;
    const [store] = stores();
    const review = await store!.create(accountId, 'fp', {
      clientToken: `tok-${accountId}`,
      name: 'Race',
      kind: 'paste',
      columns: [],
      totalRows: total,
    });
    await store!.addChunk(accountId, review.id, { index: 0, firstRow: 0, rows: rows(total), last: true });
    return { accountId, id: review.id };
  }
  const results = (id: string) =>
    replicas[0]!.db
      .selectFrom('review_results')
      .select(['row_index', 'state', 'seq'])
      .where('review_id', '=', id)
      .orderBy('row_index')
      .execute();

  it.each([
    ['pause', [] as ReviewAction[], 'paused'],
    ['resume', ['pause'] as ReviewAction[], 'not_paused'],
    ['cancel', [] as ReviewAction[], 'cancelled'],
  ] as const)('six %s at once: one does it, the others are told why not', async (action, before, why) => {
    for (let r = 0; r < ROUNDS; r++) {
      const { accountId, id } = await running(4);
      for (const first of before) await stores()[0]!.control(accountId, id, first);
      const outcomes = await Promise.allSettled(
        Array.from({ length: 6 }, (_, i) => pick(stores(), i).control(accountId, id, action)),
      );
      expect
        .soft(outcomes.map(kindOf).sort(), `round ${r}`)
        .toEqual(['summary', ...Array(5).fill(why)].sort());
    }
  });

  it('pause, resume and cancel at once: the run ends cancelled with no row left to ask', async () => {
    for (let r = 0; r < ROUNDS; r++) {
      const { accountId, id } = await running(6);
      const actions: ReviewAction[] = ['pause', 'resume', 'cancel', 'pause', 'resume'];
      const outcomes = await Promise.allSettled(
        actions.map((action, i) => pick(stores(), i).control(accountId, id, action)),
      );
      expect
        .soft(
          outcomes.filter((o) => kindOf(o).startsWith('threw')),
          `round ${r}`,
        )
        .toEqual([]);
      expect.soft((await stores()[0]!.summary(accountId, id))?.status, `round ${r}`).toBe('cancelled');
      expect
        .soft(new Set((await results(id)).map((x) => x.state)), `round ${r}`)
        .toEqual(new Set(['cancelled']));
    }
  });

  it('a pause while workers complete rows and put rows back: nothing is left to ask until it is resumed', async () => {
    for (let r = 0; r < ROUNDS; r++) {
      const { accountId, id } = await running(30);
      const qs = queues();
      const leased = (
        await Promise.all([0, 1, 2, 3].map((w) => pick(qs, w).lease(`w${w}`, [accountId], 5, 30_000)))
      ).map((batch, w) => batch.map((row) => ({ row, w })));
      const taken = leased.flat();
      // Half of what was leased is answered, the other half put back due at once (a rate-limit wait), as a pause
      // goes in on one replica.
      const work = taken.map(({ row, w }, i) =>
        i % 2 === 0 ? pick(qs, w).complete(`w${w}`, row, answered) : pick(qs, w).retryLater(`w${w}`, row, 0),
      );
      const paused = pick(stores(), r).control(accountId, id, 'pause');
      await Promise.all([...work, paused]);
      const states = (await results(id)).map((x) => x.state);
      expect
        .soft(
          states.filter((s) => s === 'pending' || s === 'leased'),
          `round ${r}`,
        )
        .toEqual([]);
      expect.soft(await pick(qs, r).lease('late', [accountId], 100, 30_000), `round ${r}`).toEqual([]);
      const summary = await stores()[0]!.summary(accountId, id);
      const done = states.filter((s) => s === 'done').length;
      expect.soft(summary?.runs[0]?.counts.done, `round ${r}`).toBe(done);
      expect.soft(done, `round ${r}`).toBe(Math.ceil(taken.length / 2));
      await stores()[1]!.control(accountId, id, 'resume');
      const rest = await pick(qs, r + 1).lease('after', [accountId], 100, 30_000);
      expect.soft(rest.length, `round ${r}`).toBe(30 - done);
    }
  });

  it('a cancel while workers complete rows: every answer and every not-asked row has a sequence number of its own', async () => {
    for (let r = 0; r < ROUNDS; r++) {
      const { accountId, id } = await running(20);
      const qs = queues();
      const taken = (
        await Promise.all([0, 1, 2, 3].map((w) => pick(qs, w).lease(`w${w}`, [accountId], 3, 30_000)))
      ).flatMap((batch, w) => batch.map((row) => ({ row, w })));
      const work = taken.map(({ row, w }) => pick(qs, w).complete(`w${w}`, row, answered));
      const cancelled = pick(stores(), r).control(accountId, id, 'cancel');
      await Promise.all([...work, cancelled]);
      const after = await results(id);
      const seqs = after.map((x) => Number(x.seq));
      expect.soft(new Set(seqs).size, `round ${r}: a sequence number given twice`).toBe(20);
      expect.soft(after.filter((x) => x.state === 'done').length, `round ${r}`).toBe(taken.length);
      expect.soft(after.filter((x) => x.state === 'cancelled').length, `round ${r}`).toBe(20 - taken.length);
      const summary = await stores()[0]!.summary(accountId, id);
      expect
        .soft(summary, `round ${r}`)
        .toMatchObject({ status: 'cancelled', runs: [{ counts: { done: taken.length } }] });
    }
  });

  it('the last chunk of an upload and its cancel at once: one run, whichever came first, nothing thrown', async () => {
    for (let r = 0; r < ROUNDS * 2; r++) {
      const accountId = `acct-controls-race-${++round}`;
      const [store] = stores();
      const review = await store!.create(accountId, 'fp', {
        clientToken: `tok-${accountId}`,
        name: 'Race',
        kind: 'paste',
        columns: [],
        totalRows: 4,
      });
      await store!.addChunk(accountId, review.id, { index: 0, firstRow: 0, rows: rows(3), last: false });
      const [chunk, cancel] = await Promise.allSettled([
        pick(stores(), r).addChunk(accountId, review.id, {
          index: 1,
          firstRow: 3,
          rows: [{ address: 'Last St' }],
          last: true,
        }),
        pick(stores(), r + 1).control(accountId, review.id, 'cancel'),
      ]);
      const outcome = `${kindOf(chunk)} / ${kindOf(cancel)}`;
      // The chunk first: all 4 in, run 1 cancelled over them. The cancel first: the chunk is refused, 3 rows.
      const rowsInRun = outcome === 'summary / summary' ? 4 : 3;
      expect.soft(['summary / summary', 'cancelled / summary'], `round ${r}`).toContain(outcome);
      expect.soft(await stores()[0]!.summary(accountId, review.id), `round ${r}`).toMatchObject({
        status: 'cancelled',
        runs: [{ counts: { total: rowsInRun, done: 0 } }],
      });
      expect
        .soft(
          (await results(review.id)).map((x) => x.state),
          `round ${r}`,
        )
        .toEqual(Array(rowsInRun).fill('cancelled'));
    }
  });
});
