import { Hono } from 'hono';
import type { ReviewSummary } from '../../contract/index.ts';
import { type Audit, reviewActionEntry } from '../audit/audit.ts';
import type { AppContext, AppEnv } from '../context.ts';
import { inDatabase } from '../db/database.ts';
import { ApiError } from '../errors.ts';
import { requireSession } from '../middleware/session.ts';
import type { DurableReviews } from '../reviews/durable-reviews.ts';
import type { ActionRefusal, ReviewAction } from '../stores/reviews/review-controls.ts';
import type { Session, SessionStore } from '../stores/sessions/types.ts';

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
  return app;
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
