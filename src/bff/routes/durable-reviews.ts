import { Hono } from 'hono';
import { type SSEStreamingApi, streamSSE } from 'hono/streaming';
import type * as z from 'zod/mini';
import {
  CreateReviewRequest,
  FixRowRequest,
  type FixRowResponse,
  ReviewChunkRequest,
  ReviewEventsQuery,
  type ReviewListResponse,
  ReviewRowsQuery,
  type ReviewRowsResponse,
  type ReviewSummary,
} from '../../contract/index.ts';
import type { AppContext, AppEnv } from '../context.ts';
import { inDatabase } from '../db/database.ts';
import { ApiError } from '../errors.ts';
import type { Lookups } from '../lookups.ts';
import { jsonBody } from '../middleware/json-body.ts';
import { requireSession } from '../middleware/session.ts';
import { clientGroup } from '../middleware/sign-in-limit.ts';
import type { DurableReviews } from '../reviews/durable-reviews.ts';
import { fixReviewRow } from '../reviews/fix-row.ts';
import { StreamSlots } from '../reviews/stream-slots.ts';
import { keyFingerprint, type SessionStore } from '../stores/sessions/types.ts';

export interface DurableReviewRouteDeps {
  reviews: DurableReviews;
  sessions: SessionStore;
  /** For rows fixed in place (looked up at once, in the interactive lane). */
  lookups: Lookups;
  /** How often a live view asks the database for rows answered on other replicas. */
  eventPollMs?: number;
  /** Open event streams by session and account (default: this route's own, at the standard limits). */
  streams?: StreamSlots;
  /** REVIEW_MAX_PENDING_ROWS: rows an account may have waiting to be looked up (default 500,000). */
  maxPendingRows?: number;
  /** TRUST_PROXY: whose address a live view counts against when the account's views are all taken. */
  trustProxy?: boolean;
}

const TOO_LARGE = 'Send at most 2,000 rows (about 1 MB) in one chunk.';
/** A quiet event stream says something this often (proxies cut idle connections). */
const KEEP_ALIVE_MS = 25_000;

/**
 * A running review with no live session of its account to lend a key is waiting for a sign-in (the worker takes
 * its rows again at the account's next sign-in). Seen by a view left open: its event stream outlives a session
 * that ended elsewhere, timed out or held a key the service refused.
 */
async function withWaiting(
  sessions: SessionStore,
  accountId: string,
  reviews: ReviewSummary[],
): Promise<ReviewSummary[]> {
  if (!reviews.some((r) => r.status === 'running')) return reviews;
  const live = (await sessions.liveAccounts()).includes(accountId);
  return live ? reviews : reviews.map((r) => (r.status === 'running' ? { ...r, status: 'waiting' } : r));
}
const maxPending = (deps: DurableReviewRouteDeps) => deps.maxPendingRows ?? 500_000;
const notFound = () => new ApiError(404, 'not_found', 'There is no such review in this account.');

async function parsed<T>(schema: z.ZodMiniType<T>, body: unknown): Promise<T> {
  const result = schema.safeParse(body);
  if (!result.success)
    throw new ApiError(400, 'bad_request', result.error.issues[0]?.message ?? 'Bad request.');
  return result.data;
}

/**
 * /api/reviews: reviews kept on the server, shared by every session of the account. Rows come in chunks; once
 * all are in, the worker answers them in the background; live views follow by server-sent events.
 */
export function durableReviewRoutes(deps: DurableReviewRouteDeps) {
  const app = new Hono<AppEnv>();
  app.use('*', requireSession(deps.sessions));
  app.get('/', (c) => listReviews(c, deps));
  app.post(
    '/',
    jsonBody(CreateReviewRequest, {
      maxBytes: 64 * 1024,
      tooLarge: 'A new review’s name, origin and columns are at most 64 KB; its rows follow in chunks.',
    }),
    (c) => createReview(c, deps, c.req.valid('json')),
  );
  app.put('/:id/chunks', jsonBody(ReviewChunkRequest, { maxBytes: 1536 * 1024, tooLarge: TOO_LARGE }), (c) =>
    addChunk(c, deps, c.req.valid('json')),
  );
  app.get('/:id', (c) => showReview(c, deps));
  app.get('/:id/rows', (c) => rowsPage(c, deps));
  app.post(
    '/:id/rows/:index/fix',
    jsonBody(FixRowRequest, { maxBytes: 8 * 1024, tooLarge: 'Send one address.' }),
    (c) => fixRoute(c, deps, c.req.valid('json')),
  );
  app.post('/:id/runs', (c) => checkAgain(c, deps));
  app.delete('/:id', (c) => deleteReview(c, deps));
  const streams = deps.streams ?? new StreamSlots();
  app.get('/:id/events', (c) => followReview(c, deps, streams));
  return app;
}

/** GET /api/reviews: the account's reviews. */
async function listReviews(c: AppContext, deps: DurableReviewRouteDeps) {
  const accountId = c.get('session').accountId;
  const reviews = await withWaiting(
    deps.sessions,
    accountId,
    await inDatabase(() => deps.reviews.store.list(accountId)),
  );
  return c.json({ reviews } satisfies ReviewListResponse);
}

/** POST /api/reviews: a new review, waiting for its rows. */
async function createReview(c: AppContext, deps: DurableReviewRouteDeps, request: CreateReviewRequest) {
  const session = c.get('session');
  // Refused (409 quota_exceeded) when its rows would take the account past its bound: one account's
  // backlog is bounded, counted and written in one step per account (pending-rows.ts).
  const summary = await inDatabase(() =>
    deps.reviews.store.create(session.accountId, keyFingerprint(session.keyHash), request, maxPending(deps)),
  );
  return c.json(summary satisfies ReviewSummary, 201);
}

/** PUT /api/reviews/:id/chunks: a chunk of the review's rows. */
async function addChunk(c: AppContext, deps: DurableReviewRouteDeps, chunk: ReviewChunkRequest) {
  const answer = await inDatabase(() =>
    deps.reviews.store.addChunk(c.get('session').accountId, c.req.param('id') as string, chunk),
  );
  return c.json(chunkTaken(answer, deps.reviews.worker) satisfies ReviewSummary);
}

/** GET /api/reviews/:id: the review's summary. */
async function showReview(c: AppContext, deps: DurableReviewRouteDeps) {
  const accountId = c.get('session').accountId;
  const summary = await inDatabase(() => deps.reviews.store.summary(accountId, c.req.param('id') as string));
  if (!summary) throw notFound();
  const [shown] = await withWaiting(deps.sessions, accountId, [summary]);
  return c.json(shown satisfies ReviewSummary | undefined);
}

/** POST /api/reviews/:id/runs: Check again, a new run of every row. */
async function checkAgain(c: AppContext, deps: DurableReviewRouteDeps) {
  // Its rows count against the bound as a new review's do.
  const answer = await inDatabase(() =>
    deps.reviews.store.checkAgain(c.get('session').accountId, c.req.param('id') as string, maxPending(deps)),
  );
  if (!answer) throw notFound();
  if (answer === 'busy')
    throw new ApiError(409, 'conflict', 'This review is still running: check it again once it has finished.');
  deps.reviews.worker.notify();
  return c.json(answer satisfies ReviewSummary, 201);
}

/** DELETE /api/reviews/:id: the review and its rows, gone. */
async function deleteReview(c: AppContext, deps: DurableReviewRouteDeps) {
  const id = c.req.param('id') as string;
  const gone = await inDatabase(() => deps.reviews.store.delete(c.get('session').accountId, id));
  if (!gone) throw notFound();
  // This replica's open streams of it say so now, not at their next poll.
  deps.reviews.announce(id);
  return c.body(null, 204);
}

type ChunkAnswer = Awaited<ReturnType<DurableReviews['store']['addChunk']>>;

/** The review once a chunk is in, or why the chunk was refused; the worker is told when all rows are in. */
function chunkTaken(answer: ChunkAnswer, worker: DurableReviews['worker']): ReviewSummary {
  if (answer === 'not_found') throw notFound();
  if (answer === 'not_uploading')
    throw new ApiError(409, 'conflict', 'Every row of this review is in already.');
  if (answer === 'cancelled')
    throw new ApiError(
      409,
      'conflict',
      'This upload was cancelled: it takes no more rows. Start a new review.',
    );
  if (answer === 'out_of_range')
    throw new ApiError(400, 'bad_request', 'That chunk goes past the review’s row count.');
  if (answer.status === 'running') worker.notify();
  return answer;
}

/** POST /api/reviews/:id/rows/:index/fix: one row looked up again now, kept when it finds one property. */
async function fixRoute(c: AppContext, deps: DurableReviewRouteDeps, request: FixRowRequest) {
  const index = c.req.param('index') as string;
  if (!/^\d{1,9}$/.test(index)) throw new ApiError(404, 'not_found', 'This review has no such row.');
  const answer = await fixReviewRow(
    { reviews: deps.reviews, lookups: deps.lookups },
    c.get('session'),
    { reviewId: c.req.param('id') as string, index: Number(index) },
    request,
  );
  return c.json(answer satisfies FixRowResponse);
}

/** GET /api/reviews/:id/rows: a page of one run's rows in row order, with the cursor of the next page. */
async function rowsPage(c: AppContext, deps: DurableReviewRouteDeps) {
  const query = await parsed(ReviewRowsQuery, c.req.query());
  const after = query.cursor === undefined ? -1 : Number(query.cursor);
  const limit = query.limit ?? 1_000;
  const page = await inDatabase(() =>
    deps.reviews.store.rows(c.get('session').accountId, c.req.param('id') as string, {
      ...(query.run ? { run: query.run } : {}),
      after,
      limit,
      cells: query.cells !== '0',
      attributes: query.attributes !== '0',
    }),
  );
  if (!page) throw notFound();
  const lastIndex = page.rows.at(-1)?.index;
  const nextCursor = page.last || lastIndex === undefined ? null : String(lastIndex);
  // Encoded once: a page of 5,000 rows is 3 MB of JSON, and as a string it was measured (Content-Length) and
  // then encoded again as it was written, a fifth of the server's time for a review's pages (issue 26).
  const body = Buffer.from(
    JSON.stringify({ rows: page.rows, nextCursor, lastSeq: page.lastSeq } satisfies ReviewRowsResponse),
  );
  return c.body(body, 200, { 'Content-Type': 'application/json' });
}

/** Where a review's event stream stands: the last row sequence sent, the last summary sent, when it last spoke. */
interface StreamState {
  seq: number;
  sent: string;
  quietSince: number;
  /** The `rows` events' rows as the rows page gives them (`cells=0`, `attributes=0`: the review page's). */
  cells: boolean;
  attributes: boolean;
}

/**
 * GET /api/reviews/:id/events: the review as server-sent events, resumable from Last-Event-ID. Rows answered
 * since the last event (`rows`; `cells=0` and `attributes=0` as on the rows page), the summary when it changes (`summary`), `deleted` when the review is gone,
 * and a keep-alive comment when quiet. Woken at once by this replica's worker; other replicas' answers show
 * at the next poll.
 */
async function followReview(c: AppContext, deps: DurableReviewRouteDeps, streams: StreamSlots) {
  const { store } = deps.reviews;
  const accountId = c.get('session').accountId;
  const id = c.req.param('id') as string;
  const query = await parsed(ReviewEventsQuery, c.req.query());
  const first = await inDatabase(() => store.summary(accountId, id));
  if (!first) throw notFound();
  const resumeFrom = Number(c.req.header('last-event-id') ?? Number.NaN);
  // When the account's views are all taken, the client holding the most gives its oldest up (StreamSlots).
  let end = () => {};
  const release = streams.take(c.get('sessionId'), accountId, clientGroup(c, deps.trustProxy ?? false), () =>
    end(),
  );
  return streamSSE(c, async (out) => {
    const state: StreamState = {
      seq: Number.isInteger(resumeFrom) && resumeFrom >= 0 ? resumeFrom : 0,
      sent: '',
      quietSince: Date.now(),
      cells: query.cells !== '0',
      attributes: query.attributes !== '0',
    };
    let wake: (() => void) | null = null;
    const stop = deps.reviews.onProgress((reviewId) => {
      if (reviewId === id) wake?.();
    });
    out.onAbort(() => wake?.());
    end = () => {
      out.abort();
      wake?.();
    };
    try {
      while (!out.aborted && !out.closed) {
        const more = await sendNews(out, store, accountId, id, state, deps.sessions);
        if (more === 'deleted') return;
        if (more) continue;
        await new Promise<void>((resolve) => {
          const timer = setTimeout(done, deps.eventPollMs ?? 1_000);
          function done() {
            clearTimeout(timer);
            wake = null;
            resolve();
          }
          wake = done;
        });
      }
    } finally {
      stop();
      release();
    }
  });
}

/**
 * Sends what is new since `state`; true when more rows wait to be sent at once. The database away: nothing
 * new is said and the stream looks again; the view keeps what it has.
 */
async function sendNews(
  out: SSEStreamingApi,
  store: DurableReviews['store'],
  accountId: string,
  id: string,
  state: StreamState,
  sessions: SessionStore,
): Promise<boolean | 'deleted'> {
  const summary = await store.summary(accountId, id).catch(() => null);
  if (summary === undefined) {
    await out.writeSSE({ event: 'deleted', data: '{}' });
    return 'deleted';
  }
  if (!summary) return false;
  const run = summary.runs.at(-1)?.number ?? 1;
  const page = await store
    .rows(accountId, id, {
      run,
      limit: 1_000,
      sinceSeq: state.seq,
      cells: state.cells,
      attributes: state.attributes,
    })
    .catch(() => null);
  if (page && page.rows.length > 0) {
    state.seq = Math.max(state.seq, ...page.rows.map((r) => r.seq));
    await out.writeSSE({ event: 'rows', data: JSON.stringify({ rows: page.rows }), id: String(state.seq) });
    // More rows wait: they go first, so the summary never says "done" above rows not yet sent.
    if (!page.last) return true;
  }
  const [shown] = await withWaiting(sessions, accountId, [summary]).catch(() => [summary]);
  const text = JSON.stringify(shown);
  if (text !== state.sent) {
    state.sent = text;
    await out.writeSSE({ event: 'summary', data: text, id: String(state.seq) });
    state.quietSince = Date.now();
  } else if (Date.now() - state.quietSince > KEEP_ALIVE_MS) {
    // A comment now and then, so proxies do not cut a quiet stream as idle.
    await out.write(': keep-alive\n\n');
    state.quietSince = Date.now();
  }
  return Boolean(page && !page.last);
}
