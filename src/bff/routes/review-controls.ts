import { Hono } from 'hono';
import { ExcludeRowRequest, type ReviewRowResult, type ReviewSummary } from '../../contract/index.ts';
import { type Audit, reviewActionEntry, rowExclusionEntry } from '../audit/audit.ts';
import type { AppContext, AppEnv } from '../context.ts';
import { inDatabase } from '../db/database.ts';
import { ApiError } from '../errors.ts';
import { jsonBody } from '../middleware/json-body.ts';
import { requireSession } from '../middleware/session.ts';
import type { DurableReviews } from '../reviews/durable-reviews.ts';
import type { ActionRefusal, ReviewAction } from '../stores/reviews/review-controls.ts';
import { keyFingerprint, type Session, type SessionStore } from '../stores/sessions/types.ts';

export interface ReviewControlDeps {
  reviews: DurableReviews;
  sessions: SessionStore;
  /** The audit trail's recorder; absent only where the trail is off (a bench measuring its cost). */
  audit?: Audit;
}

const KIND = {
  pause: 'review_paused',
  resume: 'review_resumed',
  cancel: 'review_cancelled',
} as const satisfies Record<ReviewAction, string>;

/** Why an action cannot be done now, in the reviewer's words (409), or that there is no such review (404). */
function refused(action: ReviewAction, why: Exclude<ActionRefusal, 'not_found'>): ApiError {
  const message = {
    uploading: 'This review is still uploading: it can be paused once every row is in, or cancelled now.',
    finished: `This review has finished: there is nothing to ${action}.`,
    cancelled: `This review was cancelled: there is nothing to ${action}. Check it again to start a new run.`,
    paused: 'This review is paused already.',
    not_paused: 'This review is not paused: there is nothing to resume.',
  }[why];
  return new ApiError(409, 'conflict', message);
}

/**
 * POST /api/reviews/:id/pause, /resume and /cancel: any key of the review's account may stop or restart its
 * latest run. A paused run's rows wait (the worker takes none); a cancelled run keeps every answer so far and
 * marks the rest never asked (an upload not finished can be cancelled too: its rows received are not asked).
 * Each is an entry of the audit trail, committed with the action in one transaction; live views on this
 * replica hear of it at once.
 */
export function reviewControlRoutes(deps: ReviewControlDeps) {
  const app = new Hono<AppEnv>();
  // Only on these paths: the reviews' other routes, mounted beside these, load the session themselves.
  for (const action of ['pause', 'resume', 'cancel'] as const) {
    app.post(`/:id/${action}`, requireSession(deps.sessions), (c) => control(c, deps, action));
  }
  app.put(
    '/:id/rows/:index/exclusion',
    requireSession(deps.sessions),
    jsonBody(ExcludeRowRequest, { maxBytes: 8 * 1024, tooLarge: 'Give a reason of at most 500 characters.' }),
    (c) => exclusion(c, deps, c.req.valid('json').reason ?? ''),
  );
  app.delete('/:id/rows/:index/exclusion', requireSession(deps.sessions), (c) => exclusion(c, deps, null));
  return app;
}

/**
 * PUT /api/reviews/:id/rows/:index/exclusion excludes a row from the review (a reason, optional, in the body);
 * DELETE includes it again. Any key of the account may; either is an entry of the audit trail, committed with it.
 * The row keeps its place and its answer; a row not asked yet is not asked at all (stores/reviews/row-exclusions.ts).
 * Answers the row as every view of the review now reads it.
 */
async function exclusion(c: AppContext, deps: ReviewControlDeps, reason: string | null) {
  const session = c.get('session');
  const reviewId = c.req.param('id') as string;
  const param = c.req.param('index') as string;
  if (!/^\d{1,9}$/.test(param)) throw new ApiError(404, 'not_found', 'This review has no such row.');
  const target = { reviewId, index: Number(param) };
  deps.audit?.assertWritable();
  const kind = reason === null ? 'review_row_included' : 'review_row_excluded';
  const entry = deps.audit
    ? (at: number) => rowExclusionEntry(session, kind, target, reason ?? '', at)
    : undefined;
  const marked = reason === null ? null : { reason, by: keyFingerprint(session.keyHash) };
  const answer = await inDatabase(() =>
    deps.reviews.store.excludeRow(session.accountId, target, marked, entry),
  );
  if (answer === 'not_found')
    throw new ApiError(404, 'not_found', 'There is no such review in this account.');
  if (answer === 'no_such_row') throw new ApiError(404, 'not_found', 'This review has no such row.');
  if (answer === 'not_uploaded')
    throw new ApiError(409, 'conflict', 'This row is not uploaded yet: exclude it once every row is in.');
  deps.reviews.announce(reviewId);
  if (answer.asked === 'put_back') deps.reviews.worker.notify();
  return c.json(answer.row satisfies ReviewRowResult);
}

async function control(c: AppContext, deps: ReviewControlDeps, action: ReviewAction) {
  const session = c.get('session');
  const id = c.req.param('id') as string;
  // No action the trail could not keep: refused before the review changes.
  deps.audit?.assertWritable();
  // The entry is inserted in the action's own transaction: the action stands only with it (503 otherwise).
  const entry = deps.audit ? actionEntry(session, KIND[action]) : undefined;
  const answer = await inDatabase(() => deps.reviews.store.control(session.accountId, id, action, entry));
  if (answer === 'not_found')
    throw new ApiError(404, 'not_found', 'There is no such review in this account.');
  if (typeof answer === 'string') throw refused(action, answer);
  deps.reviews.announce(id);
  if (action === 'resume') deps.reviews.worker.notify();
  return c.json(answer satisfies ReviewSummary);
}

/** The action's entry, for its own transaction to insert (audit.ts reviewActionEntry). */
function actionEntry(session: Session, kind: (typeof KIND)[ReviewAction]) {
  return (review: { id: string; name: string }, at: number) => reviewActionEntry(session, kind, review, at);
}
