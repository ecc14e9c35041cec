import { afterEach, describe, expect, it, vi } from 'vitest';
import type { ReviewRowResult, ReviewSummary } from '../../../../contract/index.ts';
import { ApiRequestError } from '../../../lib/api-client.ts';
import type { StreamEvent } from '../../../lib/event-stream.ts';
import { LiveReview } from './live-review.ts';

const counts = (done: number) => ({ total: 2, done, matched: done, notFound: 0, ambiguous: 0, failed: 0 });
const summary = (done: number): ReviewSummary => ({
  id: 'rv_1',
  name: 'Two',
  kind: 'paste',
  origin: null,
  createdBy: 'ab12cd34',
  createdAt: '2026-11-25T10:00:00.000Z',
  status: done === 2 ? 'done' : 'running',
  columns: [],
  totalRows: 2,
  receivedRows: 2,
  skippedBlank: 0,
  runs: [
    {
      number: 1,
      startedAt: '2026-11-25T10:00:00.000Z',
      finishedAt: done === 2 ? '2026-11-25T10:00:05.000Z' : null,
      counts: counts(done),
    },
  ],
});
/** summary(`base`) grown to a run of `total` rows, `done` of them answered. */
const sized = (base: number, total: number, done: number): ReviewSummary => ({
  ...summary(base),
  totalRows: total,
  receivedRows: total,
  runs: [{ ...(summary(base).runs[0] as ReviewSummary['runs'][number]), counts: { ...counts(done), total } }],
});
const row = (index: number, outcome: ReviewRowResult['outcome'], seq: number): ReviewRowResult => ({
  index,
  input: `${index + 1} Main St`,
  outcome,
  seq,
});

afterEach(() => vi.useRealTimers());

describe('LiveReview', () => {
  it('never says a run is done above a row still shown pending: rows sent before the summary show with it', async () => {
    vi.useFakeTimers();
    const events: StreamEvent[] = [
      { event: 'rows', data: JSON.stringify({ rows: [row(1, 'matched', 2)] }), id: '2' },
      { event: 'summary', data: JSON.stringify(summary(2)), id: '2' },
    ];
    let seen: { status: string | undefined; outcomes: string[] } | null = null;
    const live = new LiveReview('rv_1', {
      getReview: async () => summary(1),
      getRowsPage: async () => ({ rows: [row(0, 'matched', 1), row(1, 'pending', 0)], nextCursor: null }),
      events: async function* () {
        for (const e of events) yield e;
        await new Promise(() => {}); // the stream stays open
      },
      notifyMs: 250,
    });
    live.subscribe(() => {
      const s = live.getSnapshot();
      if (s.summary?.status === 'done' && !seen)
        seen = { status: s.summary.status, outcomes: s.rows.map((r) => r.outcome) };
    });
    void live.start();
    await vi.advanceTimersByTimeAsync(250);
    // The moment the summary said done, both rows were already answered.
    expect(seen).toEqual({ status: 'done', outcomes: ['matched', 'matched'] });
    live.stop();
  });

  it('a fast review’s rows and summaries reach the page in one redraw per 250 ms, not one per event', async () => {
    vi.useFakeTimers();
    const total = 400;
    const many = (done: number): ReviewSummary => ({
      ...sized(0, total, done),
      status: done === total ? 'done' : 'running',
    });
    const live = new LiveReview('rv_1', {
      getReview: async () => many(0),
      getRowsPage: async () => ({
        rows: Array.from({ length: total }, (_, i) => row(i, 'pending', 0)),
        nextCursor: null,
      }),
      events: async function* () {
        // Two rows and a summary every 5 ms: 400 events in a second.
        for (let done = 2; done <= total; done += 2) {
          yield {
            event: 'rows',
            data: JSON.stringify({
              rows: [row(done - 2, 'matched', done - 1), row(done - 1, 'matched', done)],
            }),
            id: String(done),
          };
          yield { event: 'summary', data: JSON.stringify(many(done)), id: String(done) };
          await new Promise((resolve) => setTimeout(resolve, 5));
        }
        await new Promise(() => {});
      },
    });
    let redraws = 0;
    live.subscribe(() => {
      redraws += 1;
    });
    void live.start();
    await vi.advanceTimersByTimeAsync(1_300);
    const s = live.getSnapshot();
    expect(s.summary?.status).toBe('done');
    expect(s.rows.filter((r) => r.outcome === 'matched')).toHaveLength(total);
    // A handful of redraws (the first page, being live, then one per 250 ms), never one per event.
    expect(redraws).toBeLessThanOrEqual(8);
    live.stop();
  });

  it('a row fixed on this page shows at once, and rows answered meanwhile still come after a reconnection', async () => {
    vi.useFakeTimers();
    const asked: string[] = [];
    let connection = 0;
    const live = new LiveReview('rv_1', {
      getReview: async () => summary(1),
      getRowsPage: async () => ({ rows: [row(0, 'matched', 1), row(1, 'pending', 0)], nextCursor: null }),
      events: async function* (_id, lastEventId) {
        asked.push(lastEventId);
        connection += 1;
        if (connection === 1) throw new Error('connection dropped');
        yield { event: 'rows', data: JSON.stringify({ rows: [row(1, 'matched', 2)] }), id: '2' };
        await new Promise(() => {});
      },
      retryMs: 1_000,
      sleep: (ms) => new Promise((resolve) => setTimeout(resolve, ms)),
    });
    void live.start();
    await vi.advanceTimersByTimeAsync(0);
    expect(asked).toEqual(['1']);
    // While the stream is down, the reviewer fixes row 0 (the server gave it seq 3).
    live.applyRows([
      {
        ...row(0, 'matched', 3),
        fix: { address: '1 Elm St', how: 'edited', by: 'ab12cd34', at: '2026-11-25T10:01:00.000Z' },
      },
    ]);
    expect(live.getSnapshot().rows[0]?.fix?.address).toBe('1 Elm St');
    await vi.advanceTimersByTimeAsync(1_000);
    // The stream resumes from what it had seen, so row 1's answer (seq 2) is not skipped.
    expect(asked).toEqual(['1', '1']);
    await vi.advanceTimersByTimeAsync(300);
    expect(live.getSnapshot().rows.map((r) => r.outcome)).toEqual(['matched', 'matched']);
    live.stop();
  });

  it('an older answer of a row never replaces a newer one', async () => {
    vi.useFakeTimers();
    const live = new LiveReview('rv_1', {
      getReview: async () => summary(2),
      getRowsPage: async () => ({ rows: [row(0, 'ambiguous', 1), row(1, 'matched', 2)], nextCursor: null }),
      events: async function* () {
        // A colleague's fix (seq 5) arrives first; this page's own, older answer (seq 4) after it.
        yield {
          event: 'rows',
          data: JSON.stringify({ rows: [{ ...row(0, 'matched', 5), input: 'theirs' }] }),
          id: '5',
        };
        await new Promise(() => {});
      },
    });
    void live.start();
    await vi.advanceTimersByTimeAsync(300);
    live.applyRows([{ ...row(0, 'matched', 4), input: 'mine' }]);
    expect(live.getSnapshot().rows[0]?.input).toBe('theirs');
    live.stop();
  });

  it('reconnects a dropped stream after 1 s, then 2 s, then 4 s, and is not live meanwhile', async () => {
    vi.useFakeTimers();
    const connectedAt: number[] = [];
    const start = Date.now();
    const live = new LiveReview('rv_1', {
      getReview: async () => summary(1),
      getRowsPage: async () => ({ rows: [row(0, 'matched', 1), row(1, 'pending', 0)], nextCursor: null }),
      // biome-ignore lint/correctness/useYield: a stream that drops before its first event
      events: async function* () {
        connectedAt.push(Date.now() - start);
        throw new Error('connection dropped');
      },
      // The production waits and sleep (no retryMs, no sleep given).
    });
    void live.start();
    await vi.advanceTimersByTimeAsync(0);
    expect(connectedAt).toEqual([0]);
    expect(live.getSnapshot()).toMatchObject({ state: 'ready', live: false });
    for (const [wait, connections] of [
      [1_000, 2],
      [2_000, 3],
      [4_000, 4],
    ] as const) {
      await vi.advanceTimersByTimeAsync(wait - 1);
      expect(connectedAt).toHaveLength(connections - 1);
      await vi.advanceTimersByTimeAsync(1);
      expect(connectedAt).toHaveLength(connections);
    }
    expect(connectedAt).toEqual([0, 1_000, 3_000, 7_000]);
    live.stop();
  });

  it('ends in error on a 401 from the event stream (the session ended), and does not connect again', async () => {
    vi.useFakeTimers();
    let connections = 0;
    const live = new LiveReview('rv_1', {
      getReview: async () => summary(1),
      getRowsPage: async () => ({ rows: [row(0, 'matched', 1), row(1, 'pending', 0)], nextCursor: null }),
      // biome-ignore lint/correctness/useYield: the server refuses the stream before any event
      events: async function* () {
        connections += 1;
        throw new ApiRequestError(401, 'unauthenticated', 'Your session has ended. Sign in again.');
      },
    });
    void live.start();
    await vi.advanceTimersByTimeAsync(0);
    expect(live.getSnapshot()).toMatchObject({ state: 'error', live: false });
    await vi.advanceTimersByTimeAsync(120_000);
    expect(connections).toBe(1);
    expect(live.getSnapshot().state).toBe('error');
    live.stop();
  });

  it('keeps the server’s rows as they are, but for a CSV row’s own cells (only the export shows them)', async () => {
    vi.useFakeTimers();
    const csvRow: ReviewRowResult = { ...row(0, 'matched', 1), cells: ['L1', '1 Main St'], match: null };
    const plain = row(1, 'pending', 0);
    const live = new LiveReview('rv_1', {
      getReview: async () => summary(1),
      getRowsPage: async () => ({ rows: [csvRow, plain], nextCursor: null }),
      events: async function* () {
        yield {
          event: 'rows',
          data: JSON.stringify({ rows: [{ ...plain, cells: ['L2'], seq: 2 }] }),
          id: '2',
        };
        await new Promise(() => {}); // the stream stays open
      },
      notifyMs: 250,
    });
    void live.start();
    await vi.advanceTimersByTimeAsync(0);
    const [first, second] = live.getSnapshot().rows;
    const { cells: _cells, ...withoutCells } = csvRow;
    expect(first).toEqual(withoutCells);
    // A row without cells is kept as it came, not copied.
    expect(second).toBe(plain);
    await vi.advanceTimersByTimeAsync(250);
    expect(live.getSnapshot().rows.map((r) => [r.seq, 'cells' in r])).toEqual([
      [1, false],
      [2, false],
    ]);
    live.stop();
  });

  it('shows a run’s summary with its first rows, never without them (opening, and at Check again)', async () => {
    vi.useFakeTimers();
    const pages: ((rows: ReviewRowResult[]) => void)[] = [];
    const second: ReviewSummary = {
      ...summary(2),
      status: 'running',
      runs: [
        ...summary(2).runs,
        { number: 2, startedAt: '2026-11-25T11:00:00.000Z', finishedAt: null, counts: counts(0) },
      ],
    };
    const seen: { run: number | undefined; rows: string[] }[] = [];
    const live = new LiveReview('rv_1', {
      getReview: async () => summary(2),
      getRowsPage: () => new Promise((resolve) => pages.push((rows) => resolve({ rows, nextCursor: null }))),
      events: async function* () {
        await new Promise((resolve) => setTimeout(resolve, 1_000));
        yield { event: 'summary', data: JSON.stringify(second), id: '3' }; // a colleague's Check again
        await new Promise(() => {});
      },
    });
    live.subscribe(() => {
      const s = live.getSnapshot();
      seen.push({ run: s.summary?.runs.at(-1)?.number, rows: s.rows.map((r) => r.outcome) });
    });
    void live.start();
    await vi.advanceTimersByTimeAsync(0);
    // The summary is in, its first page not yet: nothing of the review is shown.
    expect(live.getSnapshot()).toMatchObject({ state: 'loading', summary: null, rows: [] });
    pages[0]?.([row(0, 'matched', 1), row(1, 'matched', 2)]);
    await vi.advanceTimersByTimeAsync(1_000);
    // Run 2 began; until its first page is in, run 1 stays as it was.
    expect(live.getSnapshot().summary?.runs.at(-1)?.number).toBe(1);
    pages[1]?.([row(0, 'pending', 0), row(1, 'pending', 0)]);
    await vi.advanceTimersByTimeAsync(0);
    expect(seen.filter((s) => s.run !== undefined)).toEqual(
      expect.arrayContaining([
        { run: 1, rows: ['matched', 'matched'] },
        { run: 2, rows: ['pending', 'pending'] },
      ]),
    );
    // Never a summary shown over no rows, nor run 2's over run 1's answers.
    expect(seen.filter((s) => s.run !== undefined && s.rows.length === 0)).toEqual([]);
    expect(seen.filter((s) => s.run === 2 && s.rows.includes('matched'))).toEqual([]);
    live.stop();
  });

  it('at a colleague’s Check again, never draws the old run’s summary above no rows while the new run’s page comes', async () => {
    vi.useFakeTimers();
    const second: ReviewSummary = {
      ...summary(2),
      status: 'running',
      runs: [
        ...summary(2).runs,
        { number: 2, startedAt: '2026-11-25T11:00:00.000Z', finishedAt: null, counts: counts(1) },
      ],
    };
    const live = new LiveReview('rv_1', {
      getReview: async () => summary(2),
      getRowsPage: async (_id, run) => {
        if (run === 1) return { rows: [row(0, 'matched', 1), row(1, 'matched', 2)], nextCursor: null };
        await new Promise((resolve) => setTimeout(resolve, 400)); // the new run's first page: a slow round trip
        return { rows: [row(0, 'matched', 3), row(1, 'pending', 0)], nextCursor: null };
      },
      events: async function* () {
        await new Promise((resolve) => setTimeout(resolve, 1_000));
        // One poll of the server: the new run's rows, then its summary.
        yield { event: 'rows', data: JSON.stringify({ rows: [row(0, 'matched', 3)] }), id: '3' };
        yield { event: 'summary', data: JSON.stringify(second), id: '3' };
        await new Promise(() => {});
      },
      notifyMs: 250,
    });
    const seen: string[] = [];
    live.subscribe(() => {
      const s = live.getSnapshot();
      seen.push(`run ${s.summary?.runs.at(-1)?.number ?? '-'}: ${s.rows.map((r) => r.outcome).join(' ')}`);
    });
    void live.start();
    await vi.advanceTimersByTimeAsync(2_000);
    expect([...new Set(seen)]).toEqual(['run 1: matched matched', 'run 2: matched pending']);
    live.stop();
  });

  it('resumes the stream from where the review stood at its first page, so a row answered meanwhile is not missed', async () => {
    vi.useFakeTimers();
    const total = 150;
    const big = sized(1, total, 100);
    const since: string[] = [];
    const live = new LiveReview('rv_1', {
      getReview: async () => big,
      getRowsPage: async (_id, _run, cursor) =>
        cursor === null
          ? // Read when the review stood at 100: row 0 still waits.
            {
              rows: Array.from({ length: 100 }, (_, i) => row(i, i === 0 ? 'pending' : 'matched', i)),
              nextCursor: '99',
              lastSeq: 100,
            }
          : // Read after row 0 (sequence 101) and the rest (up to 150) were answered.
            {
              rows: Array.from({ length: 50 }, (_, i) => row(100 + i, 'matched', 102 + i)),
              nextCursor: null,
            },
      events: async function* (_id, after) {
        since.push(after);
        // The server sends what was answered after the position asked for.
        if (Number(after) < 101)
          yield { event: 'rows', data: JSON.stringify({ rows: [row(0, 'matched', 101)] }), id: '101' };
        await new Promise(() => {});
      },
      notifyMs: 250,
    });
    void live.start();
    await vi.advanceTimersByTimeAsync(1_000);
    expect(since).toEqual(['100']);
    expect(live.getSnapshot().rows[0]?.outcome).toBe('matched');
    live.stop();
  });

  it('reads the rest of a big run two pages at a time, from row indexes, and shows every row once', async () => {
    vi.useFakeTimers();
    const total = 12_150;
    const big = sized(2, total, total);
    const asked: (string | null)[] = [];
    let inFlight = 0;
    let most = 0;
    const live = new LiveReview('rv_1', {
      getReview: async () => big,
      // The server's pages: the rows after the cursor (a row index), each answered 50 ms after it was asked.
      getRowsPage: (_id, _run, cursor, _signal, limit) => {
        asked.push(cursor);
        most = Math.max(most, ++inFlight);
        const from = cursor === null ? 0 : Number(cursor) + 1;
        const rows = Array.from({ length: Math.max(0, Math.min(limit, total - from)) }, (_, i) =>
          row(from + i, 'matched', from + i + 1),
        );
        const nextCursor = from + rows.length < total ? String(from + rows.length - 1) : null;
        return new Promise((resolve) =>
          setTimeout(() => {
            inFlight--;
            resolve({ rows, nextCursor });
          }, 50),
        );
      },
      events: async function* () {
        await new Promise(() => {});
      },
    });
    void live.start();
    await vi.advanceTimersByTimeAsync(50);
    expect(live.getSnapshot()).toMatchObject({ state: 'ready', loaded: 100 });
    await vi.advanceTimersByTimeAsync(100);
    expect(asked).toEqual([null, '99', '5099', '10099']);
    expect(most).toBe(2);
    const s = live.getSnapshot();
    expect(s.loaded).toBe(total);
    expect(s.rows.map((r) => r.index)).toEqual(Array.from({ length: total }, (_, i) => i));
    live.stop();
  });
});
