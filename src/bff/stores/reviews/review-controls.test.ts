import { describe, expect, it } from 'vitest';
import type { ReviewInputRow } from '../../../contract/index.ts';
import type { RowResult } from '../../reviews/look-up-row.ts';
import { databaseBackends } from '../../test-support/database-backends.ts';
import { pendingRows } from './pending-rows.ts';
import { SqlReviewQueue } from './queue.ts';
import { SqlReviewStore } from './review-store.ts';

/*
 * Pause, Resume and Cancel of a review's latest run, on both databases: what the worker may lease after each,
 * what becomes of rows being asked at that moment, and what each refuses. Races are in review-controls.races.test.ts.
 */

const answered: RowResult = { outcome: 'not_found', cached: false, retrievedAt: '2026-11-24T10:00:00.000Z' };
const rows = (n: number): ReviewInputRow[] =>
  Array.from({ length: n }, (_, i) => ({ address: `${i} Main St` }));

describe.each(databaseBackends('review-controls'))('review controls on $name', (backend) => {
  let now = Date.parse('2026-11-24T10:00:00Z');
  const clock = () => now;
  const store = () => new SqlReviewStore(backend.database.db, clock);
  const queue = () =>
    new SqlReviewQueue(backend.database.db, backend.database.dialect, clock, backend.database.sqlite);
  let n = 0;

  /** A review of `total` rows of a new account, every row in: run 1 running. */
  async function running(total: number) {
    const accountId = `acct-controls-${++n}`;
    const review = await store().create(accountId, 'fp', {
      clientToken: `tok-controls-${n}`,
      name: 'Loans',
      kind: 'paste',
      columns: [],
      totalRows: total,
    });
    await store().addChunk(accountId, review.id, { index: 0, firstRow: 0, rows: rows(total), last: true });
    return { accountId, id: review.id };
  }
  const states = async (id: string, run = 1) =>
    (
      await backend.database.db
        .selectFrom('review_results')
        .select(['row_index', 'state'])
        .where('review_id', '=', id)
        .where('run', '=', run)
        .orderBy('row_index')
        .execute()
    ).map((r) => r.state);

  it('pause: the worker leases no row of it; rows being asked finish and count; resume hands out the rest', async () => {
    const { accountId, id } = await running(5);
    const q = queue();
    const asked = await q.lease('w', [accountId], 2, 30_000);
    expect(await store().control(accountId, id, 'pause')).toMatchObject({ status: 'paused' });
    expect(await states(id)).toEqual(['leased', 'leased', 'paused', 'paused', 'paused']);
    expect(await q.lease('w', [accountId], 10, 30_000)).toEqual([]);
    for (const row of asked) expect(await q.complete('w', row, answered)).toBe(true);
    expect(await store().summary(accountId, id)).toMatchObject({
      status: 'paused',
      runs: [{ finishedAt: null, counts: { done: 2, total: 5 } }],
    });
    // Paused rows show as waiting, not as answered.
    const page = await store().rows(accountId, id, { limit: 10 });
    expect(page?.rows.map((r) => r.outcome)).toEqual([
      'not_found',
      'not_found',
      'pending',
      'pending',
      'pending',
    ]);

    expect(await store().control(accountId, id, 'resume')).toMatchObject({ status: 'running' });
    const rest = await q.lease('w', [accountId], 10, 30_000);
    expect(rest.map((r) => r.index).sort()).toEqual([2, 3, 4]);
    for (const row of rest) await q.complete('w', row, answered);
    expect(await store().summary(accountId, id)).toMatchObject({
      status: 'done',
      runs: [{ counts: { done: 5 } }],
    });
  });

  it('a row put back to wait while its run is paused or cancelled is not asked until resumed, or ever', async () => {
    const paused = await running(2);
    const q = queue();
    const [row] = await q.lease('w', [paused.accountId], 1, 30_000);
    await store().control(paused.accountId, paused.id, 'pause');
    // The rate limit sends it back, due at once: still it waits for the resume.
    await q.retryLater('w', row!, now);
    expect(await states(paused.id)).toEqual(['paused', 'paused']);
    expect(await q.lease('w', [paused.accountId], 10, 30_000)).toEqual([]);
    await store().control(paused.accountId, paused.id, 'resume');
    const again = await q.lease('w', [paused.accountId], 10, 30_000);
    expect(again.map((r) => [r.index, r.attempts]).sort()).toEqual([
      [0, 1],
      [1, 0],
    ]);

    const cancelled = await running(2);
    const [taken] = await q.lease('w', [cancelled.accountId], 1, 30_000);
    await store().control(cancelled.accountId, cancelled.id, 'cancel');
    await q.retryLater('w', taken!, now);
    expect(await states(cancelled.id)).toEqual(['cancelled', 'cancelled']);
    expect(await q.lease('w', [cancelled.accountId], 10, 30_000)).toEqual([]);
    // Outside a paused or cancelled run, a row put back is pending as before.
    const plain = await running(1);
    const [mine] = await q.lease('w', [plain.accountId], 1, 30_000);
    await q.retryLater('w', mine!, now);
    expect(await states(plain.id)).toEqual(['pending']);
  });

  it('a row put back after the cancel is cancelled where live views hear of it (rows since the cancel)', async () => {
    const q = queue();
    // Given back (its account waits on its rate limit), asked again later (a retryable failure), and a dead
    // replica's lease that ran out: each put back after the cancel, each told to a view that read the cancel.
    for (const putBack of ['release', 'retryLater', 'expired'] as const) {
      const { accountId, id } = await running(3);
      const [row] = await q.lease(putBack === 'expired' ? 'dead' : 'w', [accountId], 1, 30_000);
      await store().control(accountId, id, 'cancel');
      const seen = (await store().rows(accountId, id, { limit: 10, sinceSeq: 0 }))?.rows ?? [];
      // The view hears of the two rows the cancel numbered; the one being asked is not news yet.
      expect(
        seen.map((r) => [r.index, r.outcome]),
        putBack,
      ).toEqual([0, 1, 2].filter((i) => i !== row!.index).map((i) => [i, 'not_asked']));
      const cursor = Math.max(...seen.map((r) => r.seq));
      if (putBack === 'release') await q.release('w', [row!]);
      if (putBack === 'retryLater') await q.retryLater('w', row!, now);
      if (putBack === 'expired') {
        now += 31_000;
        // Another account's lease takes back the leases that ran out, whoever held them.
        await q.lease('w', [`acct-nobody-${putBack}`], 1, 30_000);
      }
      expect(await states(id), putBack).toEqual(['cancelled', 'cancelled', 'cancelled']);
      const told = (await store().rows(accountId, id, { limit: 10, sinceSeq: cursor }))?.rows ?? [];
      expect(
        told.map((r) => [r.index, r.outcome]),
        putBack,
      ).toEqual([[row!.index, 'not_asked']]);
    }
  });

  it('a row whose lease ran out (its replica died) is paused with the rest, not handed out again', async () => {
    const { accountId, id } = await running(2);
    const q = queue();
    await q.lease('dead', [accountId], 1, 30_000);
    now += 31_000;
    await store().control(accountId, id, 'pause');
    expect(await states(id)).toEqual(['paused', 'paused']);
    expect(await q.lease('w', [accountId], 10, 30_000)).toEqual([]);
  });

  it('cancel: keeps every answer so far, marks the rest not asked, finishes the run, and Check again starts over', async () => {
    const { accountId, id } = await running(4);
    const q = queue();
    const [first, second] = await q.lease('w', [accountId], 2, 30_000);
    await q.complete('w', first!, answered);
    await store().control(accountId, id, 'pause');
    const cancelled = await store().control(accountId, id, 'cancel');
    expect(cancelled).toMatchObject({ status: 'cancelled', runs: [{ counts: { total: 4, done: 1 } }] });
    expect(typeof cancelled === 'object' && cancelled.runs[0]?.finishedAt).toBeTruthy();
    expect(await q.lease('w', [accountId], 10, 30_000)).toEqual([]);
    // The row being asked when it was cancelled keeps its answer.
    expect(await q.complete('w', second!, answered)).toBe(true);
    const page = await store().rows(accountId, id, { limit: 10 });
    expect(page?.rows.map((r) => r.outcome)).toEqual(['not_found', 'not_found', 'not_asked', 'not_asked']);
    // Each row's news has a sequence number of its own, so a live view following "rows since N" hears of all.
    const seqs = page?.rows.map((r) => r.seq) ?? [];
    expect(new Set(seqs).size).toBe(4);
    const since = await store().rows(accountId, id, { limit: 10, sinceSeq: seqs[0] as number });
    expect(since?.rows.map((r) => r.index).sort()).toEqual([1, 2, 3]);
    expect(await store().summary(accountId, id)).toMatchObject({
      status: 'cancelled',
      runs: [{ counts: { done: 2 } }],
    });

    const again = await store().checkAgain(accountId, id);
    expect(again).toMatchObject({ status: 'running', runs: [{ number: 1 }, { number: 2 }] });
    expect(await states(id, 2)).toEqual(['pending', 'pending', 'pending', 'pending']);
  });

  it('refuses what the run’s state does not allow, and another account’s review is not there', async () => {
    const s = store();
    const uploading = await s.create('acct-controls-up', 'fp', {
      clientToken: 'tok-controls-up',
      name: 'Half in',
      kind: 'paste',
      columns: [],
      totalRows: 3,
    });
    await s.addChunk('acct-controls-up', uploading.id, { index: 0, firstRow: 0, rows: rows(1), last: false });
    for (const action of ['pause', 'resume'] as const)
      expect(await s.control('acct-controls-up', uploading.id, action)).toBe('uploading');

    const { accountId, id } = await running(1);
    expect(await s.control('acct-someone-else', id, 'pause')).toBe('not_found');
    expect(await s.control(accountId, 'rv_nope', 'pause')).toBe('not_found');
    expect(await s.control(accountId, id, 'resume')).toBe('not_paused');
    await s.control(accountId, id, 'pause');
    expect(await s.control(accountId, id, 'pause')).toBe('paused');
    await s.control(accountId, id, 'cancel');
    for (const action of ['pause', 'resume', 'cancel'] as const)
      expect(await s.control(accountId, id, action)).toBe('cancelled');

    const done = await running(1);
    const q = queue();
    for (const row of await q.lease('w', [done.accountId], 1, 30_000)) await q.complete('w', row, answered);
    for (const action of ['pause', 'resume', 'cancel'] as const)
      expect(await s.control(done.accountId, done.id, action)).toBe('finished');
  });

  it('cancel ends an upload not finished: its rows received not asked, no more rows taken, none waiting', async () => {
    const s = store();
    const accountId = 'acct-controls-abandoned';
    const upload = await s.create(accountId, 'fp', {
      clientToken: 'tok-controls-abandoned',
      name: 'Tab closed',
      kind: 'paste',
      columns: [],
      totalRows: 40,
    });
    await s.addChunk(accountId, upload.id, { index: 0, firstRow: 0, rows: rows(3), last: false });
    expect(await pendingRows(backend.database.db, accountId)).toBe(40);
    const cancelled = await s.control(accountId, upload.id, 'cancel');
    expect(cancelled).toMatchObject({
      status: 'cancelled',
      totalRows: 40,
      receivedRows: 3,
      runs: [{ number: 1, counts: { total: 3, done: 0 } }],
    });
    expect(await states(upload.id)).toEqual(['cancelled', 'cancelled', 'cancelled']);
    expect(await pendingRows(backend.database.db, accountId)).toBe(0);
    // Live views hear of each row: every one numbered.
    const page = await s.rows(accountId, upload.id, { run: 1, limit: 10, sinceSeq: 0 });
    expect(page?.rows.map((r) => r.outcome)).toEqual(['not_asked', 'not_asked', 'not_asked']);
    expect(
      await s.addChunk(accountId, upload.id, { index: 1, firstRow: 3, rows: rows(2), last: false }),
    ).toBe('cancelled');
    expect(await s.control(accountId, upload.id, 'cancel')).toBe('cancelled');
    // Check again asks the rows received: a run of 3 that finishes.
    expect(await s.checkAgain(accountId, upload.id)).toMatchObject({
      status: 'running',
      runs: [{}, { number: 2, counts: { total: 3 } }],
    });
    expect(await pendingRows(backend.database.db, accountId)).toBe(3);

    // Cancelled before its first chunk: nothing to ask, and Check again finishes at once.
    const empty = await s.create(accountId, 'fp', {
      clientToken: 'tok-controls-empty',
      name: 'Nothing in',
      kind: 'paste',
      columns: [],
      totalRows: 5,
    });
    expect(await s.control(accountId, empty.id, 'cancel')).toMatchObject({
      status: 'cancelled',
      receivedRows: 0,
      runs: [{ counts: { total: 0 } }],
    });
    expect(await s.checkAgain(accountId, empty.id)).toMatchObject({ status: 'done', runs: [{}, {}] });
  });
});
