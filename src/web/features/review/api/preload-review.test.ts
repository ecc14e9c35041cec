import { afterEach, describe, expect, it, vi } from 'vitest';
import type { ReviewRowResult } from '../../../../contract/index.ts';
import { fakeApi, json } from '../../../test/utils.tsx';
import { LiveReview } from '../run/live-review.ts';
import { makeSummary } from '../testing/stats.fixtures.ts';
import { preloadReview, takePreloadedReview } from './preload-review.ts';
import { getReview, getRowsPage } from './server-reviews.ts';

const run = (number: number, hour: number) => ({
  number,
  startedAt: `2026-11-25T${hour}:00:00.000Z`,
  finishedAt: `2026-11-25T${hour}:00:05.000Z`,
  counts: { total: 2, done: 2, matched: 2, notFound: 0, ambiguous: 0, failed: 0 },
});
// Two finished runs: the preload asks for the latest one's rows.
const summary = makeSummary({
  id: 'rv_1',
  name: 'Loan tape',
  totalRows: 2,
  receivedRows: 2,
  runs: [run(1, 10), run(2, 11)],
});
const row = (index: number): ReviewRowResult => ({
  index,
  input: `${index + 1} Main St`,
  outcome: 'matched',
  seq: index + 1,
});

/** The BFF's review and its rows; `refuse` answers 401 (the session ended) while true. */
function server() {
  const state = { refuse: false };
  const api = fakeApi({
    'GET /api/reviews/*': ({ url }) => {
      if (state.refuse) return json({ error: { code: 'unauthenticated', message: 'Sign in again.' } }, 401);
      return url.pathname.endsWith('/rows')
        ? json({ rows: [row(0), row(1)], nextCursor: null })
        : json(summary);
    },
  });
  const asked = () => api.calls.map((c) => `${c.url.pathname}${c.url.search}`);
  return { state, asked };
}

/** The review's page as use-live-review.ts makes it, with what the page preloaded. */
function view(id: string, now?: number) {
  return new LiveReview(id, {
    getReview,
    getRowsPage,
    events: async function* () {
      await new Promise(() => {}); // the stream stays open, quiet
    },
    opening: takePreloadedReview(id, now),
  });
}

afterEach(() => {
  vi.unstubAllGlobals();
  takePreloadedReview('');
});

describe('a review opened from its address', () => {
  it('is drawn from the summary and first rows asked as the page loaded, each asked once', async () => {
    const { asked } = server();
    preloadReview('rv_1');
    // Both asked before any view exists: the first page of the latest run.
    await vi.waitFor(() =>
      expect(asked()).toEqual([
        '/api/reviews/rv_1',
        '/api/reviews/rv_1/rows?run=2&limit=100&cells=0&attributes=0',
      ]),
    );
    const live = view('rv_1');
    void live.start();
    await vi.waitFor(() => expect(live.getSnapshot().rows).toHaveLength(2));
    expect(live.getSnapshot()).toMatchObject({ state: 'ready', summary: { name: 'Loan tape' }, loaded: 2 });
    expect(asked()).toHaveLength(2);
    live.stop();
  });

  it('asks again when the preload failed (the session had ended, and the reviewer signed in again)', async () => {
    const { state, asked } = server();
    state.refuse = true;
    preloadReview('rv_1');
    await vi.waitFor(() => expect(asked()).toEqual(['/api/reviews/rv_1']));
    state.refuse = false;
    const live = view('rv_1');
    void live.start();
    await vi.waitFor(() => expect(live.getSnapshot().rows).toHaveLength(2));
    expect(live.getSnapshot().state).toBe('ready');
    expect(asked()).toEqual([
      '/api/reviews/rv_1',
      '/api/reviews/rv_1',
      '/api/reviews/rv_1/rows?run=2&limit=100&cells=0&attributes=0',
    ]);
    live.stop();
  });

  it('is taken once, by its own review, and only within 10 s: later the rows may have moved on', () => {
    server();
    const at = Date.now();
    preloadReview('rv_1', at);
    expect(takePreloadedReview('rv_2', at)).toBeUndefined();
    // Another review's view took the slot: this one's preload is gone, not left to go stale.
    expect(takePreloadedReview('rv_1', at)).toBeUndefined();
    preloadReview('rv_1', at);
    expect(takePreloadedReview('rv_1', at + 10_001)).toBeUndefined();
    preloadReview('rv_1', at);
    expect(takePreloadedReview('rv_1', at + 10_000)).toBeDefined();
    expect(takePreloadedReview('rv_1', at + 10_000)).toBeUndefined();
  });
});
