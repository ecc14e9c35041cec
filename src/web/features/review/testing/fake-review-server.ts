import type {
  CreateReviewRequest,
  LookupOutcome,
  ReviewChunkRequest,
  ReviewInputRow,
  ReviewRowResult,
  ReviewSummary,
} from '../../../../contract/index.ts';
import { apiError, type Handler, json } from '../../../test/utils.tsx';

/** A row's answer as the fake keeps it. */
type Result = Pick<ReviewRowResult, 'property' | 'candidates' | 'error' | 'cached' | 'retrievedAt'> & {
  outcome: LookupOutcome;
};

/** How the fake answers a row: matched, not found, ambiguous or failed, as the real worker would. */
export type Answer = (address: string) => Result;

interface FakeReview {
  summary: ReviewSummary;
  account: string;
  token: string;
  rows: (ReviewInputRow & { result?: Result; seq: number })[];
  chunks: Set<number>;
  /** Previous run's results by row, once checked again. */
  previous: (Result | undefined)[];
}

const counts = (rows: FakeReview['rows']) => ({
  total: rows.length,
  done: rows.filter((r) => r.result).length,
  matched: rows.filter((r) => r.result?.outcome === 'matched').length,
  notFound: rows.filter((r) => r.result?.outcome === 'not_found').length,
  ambiguous: rows.filter((r) => r.result?.outcome === 'ambiguous').length,
  failed: rows.filter((r) => r.result?.outcome === 'failed').length,
});

/**
 * A stand-in for the BFF's /api/reviews in component tests: keeps reviews per account (the `account()` of
 * the moment), takes chunks once, and answers rows with `answer` when the upload completes (or when the test
 * calls `work()`, with `manual`). Its events stream says the summary and the rows, then ends.
 */
export function fakeReviewServer(options: { account: () => string; answer: Answer; manual?: boolean }) {
  const reviews = new Map<string, FakeReview>();
  let seq = 0;
  let nextId = 1;
  const failNextChunks = { count: 0 };
  const find = (id: string) => {
    const review = reviews.get(id);
    return review && review.account === options.account() ? review : undefined;
  };
  const refresh = (review: FakeReview) => {
    const run = review.summary.runs.at(-1);
    if (run) {
      run.counts = counts(review.rows);
      if (run.counts.done === run.counts.total && !run.finishedAt) run.finishedAt = new Date().toISOString();
    }
    review.summary.status =
      review.summary.receivedRows < review.summary.totalRows
        ? 'uploading'
        : run?.finishedAt
          ? 'done'
          : 'running';
  };
  const work = (id?: string) => {
    for (const review of reviews.values()) {
      if (id && review.summary.id !== id) continue;
      if (review.summary.status !== 'running') continue;
      for (const row of review.rows) {
        if (row.result) continue;
        row.result = { ...options.answer(row.address), cached: false, retrievedAt: new Date().toISOString() };
        row.seq = ++seq;
      }
      refresh(review);
    }
  };
  const rowOut = (review: FakeReview, i: number, withCells = true): ReviewRowResult => {
    const row = review.rows[i] as FakeReview['rows'][number];
    const r = row.result;
    const before = review.previous[i];
    const changed =
      before &&
      r &&
      (before.property?.confidence !== r.property?.confidence || before.property?.id !== r.property?.id);
    return {
      index: i,
      input: row.address,
      ...(row.cells && withCells ? { cells: row.cells } : {}),
      outcome: r?.outcome ?? 'pending',
      ...(r?.property ? { property: r.property } : {}),
      ...(r?.error ? { error: r.error } : {}),
      ...(r?.candidates ? { candidates: r.candidates } : {}),
      ...(r?.retrievedAt ? { retrievedAt: r.retrievedAt } : {}),
      ...(r ? { cached: false } : {}),
      ...(changed && before
        ? {
            previous: {
              outcome: before.outcome,
              propertyId: before.property?.id ?? null,
              source: before.property?.source ?? null,
              confidence: before.property?.confidence ?? null,
              lastVerified: before.property?.lastVerified ?? null,
            },
          }
        : {}),
      seq: row.seq,
    };
  };

  const routes: Record<string, Handler> = {
    'GET /api/reviews': () =>
      json({
        reviews: [...reviews.values()]
          .filter((r) => r.account === options.account())
          .map((r) => r.summary)
          .reverse(),
      }),
    'POST /api/reviews': ({ body }) => {
      const req = body as CreateReviewRequest;
      const same = [...reviews.values()].find(
        (r) => r.account === options.account() && r.token === req.clientToken,
      );
      if (same) return json(same.summary, 201);
      const id = `rv_${nextId++}`;
      const summary: ReviewSummary = {
        id,
        name: req.name,
        kind: req.kind,
        origin: req.origin ?? null,
        createdBy: '3f9a1c2e',
        createdAt: new Date().toISOString(),
        status: 'uploading',
        columns: req.columns,
        totalRows: req.totalRows,
        receivedRows: 0,
        skippedBlank: req.skippedBlank ?? 0,
        runs: [],
      };
      reviews.set(id, {
        summary,
        account: options.account(),
        token: req.clientToken,
        rows: [],
        chunks: new Set(),
        previous: [],
      });
      return json(summary, 201);
    },
  };

  /** Routes with an id: matched by the test's fakeApi through `handle`. */
  const handle: Handler = async (req) => {
    const m = /^\/api\/reviews\/([^/]+)(\/[a-z]+)?$/.exec(req.url.pathname);
    const review = m?.[1] ? find(decodeURIComponent(m[1])) : undefined;
    if (!review) return apiError(404, 'not_found', 'There is no such review in this account.');
    const sub = m?.[2] ?? '';
    if (req.method === 'PUT' && sub === '/chunks') {
      if (failNextChunks.count > 0) {
        failNextChunks.count--;
        return apiError(503, 'store_unavailable', 'PropLens is briefly unavailable.');
      }
      const chunk = req.body as ReviewChunkRequest;
      if (!review.chunks.has(chunk.index)) {
        review.chunks.add(chunk.index);
        chunk.rows.forEach((row, i) => {
          review.rows[chunk.firstRow + i] = { ...row, seq: 0 };
        });
        review.summary.receivedRows = review.rows.filter(Boolean).length;
        if (review.summary.receivedRows === review.summary.totalRows) {
          review.summary.runs = [
            { number: 1, startedAt: new Date().toISOString(), finishedAt: null, counts: counts(review.rows) },
          ];
        }
        refresh(review);
        if (!options.manual) work(review.summary.id);
      }
      return json(review.summary);
    }
    // The file a review was read from, kept for its evidence packet (the BFF answers what it stored).
    if (req.method === 'PUT' && sub === '/source') return json({ name: req.url.searchParams.get('name') });
    if (req.method === 'GET' && sub === '') return json(review.summary);
    if (req.method === 'GET' && sub === '/rows')
      return json({
        // cells=0, as the page asks: without each row's own cells, as the BFF leaves them out.
        rows: review.rows.map((_, i) => rowOut(review, i, req.url.searchParams.get('cells') !== '0')),
        nextCursor: null,
      });
    if (req.method === 'GET' && sub === '/events') {
      const text = `event: summary\ndata: ${JSON.stringify(review.summary)}\nid: ${seq}\n\n`;
      return new Response(text, { headers: { 'content-type': 'text/event-stream' } });
    }
    if (req.method === 'POST' && sub === '/runs') {
      if (review.summary.status !== 'done') return apiError(409, 'conflict', 'This review is still running.');
      review.previous = review.rows.map((r) => r.result);
      for (const row of review.rows) {
        delete row.result;
        row.seq = 0;
      }
      review.summary.runs.push({
        number: review.summary.runs.length + 1,
        startedAt: new Date().toISOString(),
        finishedAt: null,
        counts: counts(review.rows),
      });
      refresh(review);
      if (!options.manual) work(review.summary.id);
      return json(review.summary, 201);
    }
    if (req.method === 'DELETE' && sub === '') {
      reviews.delete(review.summary.id);
      return new Response(null, { status: 204 });
    }
    return apiError(405, 'method_not_allowed', 'No.');
  };

  return { routes, handle, reviews, work, failNextChunks };
}
