import { createHash } from 'node:crypto';
import { Hono } from 'hono';
import {
  BulkDecisionRequest,
  type BulkDecisionResponse,
  DecideRowRequest,
  demoKeyOf,
  type ReviewRowResult,
  type ReviewSummary,
  type RowDecisionHistory,
  SignOffRequest,
} from '../../contract/index.ts';
import { type Audit, reviewEntry } from '../audit/audit.ts';
import type { AppContext, AppEnv } from '../context.ts';
import { inDatabase } from '../db/database.ts';
import { ApiError } from '../errors.ts';
import { jsonBody } from '../middleware/json-body.ts';
import { requireSession } from '../middleware/session.ts';
import type { DurableReviews } from '../reviews/durable-reviews.ts';
import {
  type ApprovalRefusal,
  type Signer,
  type SignOffRefusal,
  SqlReviewSignOff,
} from '../stores/reviews/review-sign-off.ts';
import {
  type DecisionEntry,
  type DecisionRefusal,
  type NewDecision,
  SqlRowDecisions,
} from '../stores/reviews/row-decisions.ts';
import { keyFingerprint, type Session, type SessionStore } from '../stores/sessions/types.ts';

export interface ReviewDecisionDeps {
  reviews: DurableReviews;
  sessions: SessionStore;
  /** The audit trail's recorder; absent only where the trail is off (a bench measuring its cost). */
  audit?: Audit;
  now?: () => number;
}

interface Stores {
  decisions: SqlRowDecisions;
  signOff: SqlReviewSignOff;
}

/**
 * A reviewer's decisions on a review's rows, and its sign-off and approval (issue 30). Any key of the account
 * may decide; a second key approves what one signed off. Each change is an entry of the audit trail, committed
 * with it in one transaction; live views on this replica hear of it at once.
 *
 * PUT / DELETE /:id/rows/:index/decision    a row's decision ({decision, note?}), or cleared
 * GET          /:id/rows/:index/decisions   the row's decisions, oldest first
 * POST         /:id/decisions               one decision for many rows ({rows, decision, note?}), all or none
 * POST         /:id/sign-off                ({reason?}: required while rows are undecided)
 * POST         /:id/approve
 */
export function reviewDecisionRoutes(deps: ReviewDecisionDeps) {
  const { db } = deps.reviews.database;
  const stores = {
    decisions: new SqlRowDecisions(db, deps.now),
    signOff: new SqlReviewSignOff(db, deps.now),
  };
  const app = new Hono<AppEnv>();
  const session = requireSession(deps.sessions);
  const noteTooLarge = { maxBytes: 16 * 1024, tooLarge: 'Give a note of at most 2,000 characters.' };
  app.put('/:id/rows/:index/decision', session, jsonBody(DecideRowRequest, noteTooLarge), (c) => {
    const { decision, note } = c.req.valid('json');
    return decideRow(c, deps, stores, { decision, note: note ?? '' });
  });
  app.delete('/:id/rows/:index/decision', session, (c) =>
    decideRow(c, deps, stores, { decision: null, note: '' }),
  );
  app.get('/:id/rows/:index/decisions', session, async (c) => {
    const history = await inDatabase(() =>
      stores.decisions.history(c.get('session').accountId, c.req.param('id'), rowIndex(c)),
    );
    if (!history) throw noReview();
    return c.json({ history } satisfies RowDecisionHistory);
  });
  const bulkTooLarge = { maxBytes: 128 * 1024, tooLarge: 'At most 5,000 rows at once.' };
  app.post('/:id/decisions', session, jsonBody(BulkDecisionRequest, bulkTooLarge), (c) =>
    decideMany(c, deps, stores, c.req.valid('json')),
  );
  app.post('/:id/sign-off', session, jsonBody(SignOffRequest, noteTooLarge), (c) =>
    signOff(c, deps, stores, c.req.valid('json').reason ?? ''),
  );
  app.post('/:id/approve', session, (c) => approve(c, deps, stores));
  return app;
}

const noReview = () => new ApiError(404, 'not_found', 'There is no such review in this account.');

function rowIndex(c: AppContext): number {
  const param = c.req.param('index') as string;
  if (!/^\d{1,9}$/.test(param)) throw new ApiError(404, 'not_found', 'This review has no such row.');
  return Number(param);
}

function decisionRefused(why: DecisionRefusal): ApiError {
  if (why === 'not_found') return noReview();
  if (why === 'no_such_row') return new ApiError(404, 'not_found', 'This review has no such row.');
  return new ApiError(409, 'conflict', 'This row is not uploaded yet: decide it once every row is in.');
}

/** Each entry names the session's key, the review and (for a decision) the row. */
function entryFor(session: Session, reviewId: string): DecisionEntry {
  return (kind, row, query, at) => reviewEntry(session, kind, reviewId, query, row, at);
}

/**
 * A public demo visitor (a demo key as one sign-in uses it, contract/api.ts demoVisitorKey): where they signed
 * in from (the session's client: an IPv4 address or an IPv6 /64), hashed. Strangers share the demo account and
 * both its keys, so only the same visitor's other key approves their sign-off: the colleague in a second browser
 * of one machine is the same visitor, a stranger elsewhere is not. Without a known client the visitor is their
 * key alone (who then approves nothing of theirs). Null for a real account's key.
 */
export function demoVisitor(session: Session): string | null {
  if (demoKeyOf(session.apiKey) === null) return null;
  const from = session.client ? `client:${session.client}` : `key:${session.keyHash}`;
  return createHash('sha256').update(`proplens demo visitor\n${from}`).digest('hex').slice(0, 32);
}

/** The session's writer: who the change is by, and its entries (none where the trail is off). */
function writer(c: AppContext, deps: ReviewDecisionDeps) {
  const session = c.get('session');
  const reviewId = c.req.param('id') as string;
  // No change the trail could not keep: refused before the review changes.
  deps.audit?.assertWritable();
  return {
    accountId: session.accountId,
    reviewId,
    by: keyFingerprint(session.keyHash),
    signer: { by: keyFingerprint(session.keyHash), visitor: demoVisitor(session) } satisfies Signer,
    entry: deps.audit ? entryFor(session, reviewId) : undefined,
  };
}

async function decideRow(
  c: AppContext,
  deps: ReviewDecisionDeps,
  stores: Stores,
  decision: Omit<NewDecision, 'by'>,
) {
  const index = rowIndex(c);
  const w = writer(c, deps);
  const written = await inDatabase(() =>
    stores.decisions.decide(w.accountId, w.reviewId, [index], { ...decision, by: w.by }, w.entry),
  );
  if (typeof written === 'string') throw decisionRefused(written);
  deps.reviews.announce(w.reviewId);
  const row = await inDatabase(() => deps.reviews.store.row(w.accountId, w.reviewId, index));
  if (!row) throw noReview();
  return c.json(row satisfies ReviewRowResult);
}

async function decideMany(
  c: AppContext,
  deps: ReviewDecisionDeps,
  stores: Stores,
  { rows, decision, note }: BulkDecisionRequest,
) {
  const w = writer(c, deps);
  const written = await inDatabase(() =>
    stores.decisions.decide(w.accountId, w.reviewId, rows, { decision, note: note ?? '', by: w.by }, w.entry),
  );
  if (typeof written === 'string') throw decisionRefused(written);
  deps.reviews.announce(w.reviewId);
  return c.json({ decided: written.changed.length } satisfies BulkDecisionResponse);
}

function signOffRefused(why: Exclude<SignOffRefusal, 'not_found'>): ApiError {
  if (why === 'not_finished')
    return new ApiError(
      409,
      'conflict',
      'This review is still running: sign it off once every row has its answer.',
    );
  if (why === 'signed_off') return new ApiError(409, 'conflict', 'This review is signed off already.');
  const rows = why.undecided === 1 ? '1 row has' : `${why.undecided.toLocaleString('en-US')} rows have`;
  return new ApiError(
    400,
    'bad_request',
    `${rows} no decision yet: decide ${why.undecided === 1 ? 'it' : 'them'}, or give a reason for signing off without.`,
  );
}

async function signOff(c: AppContext, deps: ReviewDecisionDeps, stores: Stores, reason: string) {
  const w = writer(c, deps);
  const done = await inDatabase(() =>
    stores.signOff.signOff(w.accountId, w.reviewId, w.signer, reason, w.entry),
  );
  if (done === 'not_found') throw noReview();
  if (done !== true) throw signOffRefused(done);
  return summaryAfter(c, deps, w);
}

function approvalRefused(why: Exclude<ApprovalRefusal, 'not_found'>): ApiError {
  if (why === 'same_key')
    return new ApiError(
      409,
      'conflict',
      'You signed this review off: another key of the account approves it, so two people have looked.',
    );
  if (why === 'approved') return new ApiError(409, 'conflict', 'This review is approved already.');
  if (why === 'other_visitor')
    return new ApiError(
      409,
      'conflict',
      'Another visitor of the public demo signed this review off: on the demo, you approve only a sign-off of your own visit (sign off with one demo key, approve with the other).',
    );
  return new ApiError(
    409,
    'conflict',
    'This review is not signed off: it is approved after someone signs it off.',
  );
}

async function approve(c: AppContext, deps: ReviewDecisionDeps, stores: Stores) {
  const w = writer(c, deps);
  const done = await inDatabase(() => stores.signOff.approve(w.accountId, w.reviewId, w.signer, w.entry));
  if (done === 'not_found') throw noReview();
  if (done !== true) throw approvalRefused(done);
  return summaryAfter(c, deps, w);
}

/** The review as every view now reads it (its live views hear of the change). */
async function summaryAfter(
  c: AppContext,
  deps: ReviewDecisionDeps,
  w: { accountId: string; reviewId: string },
) {
  deps.reviews.announce(w.reviewId);
  const summary = await inDatabase(() => deps.reviews.store.summary(w.accountId, w.reviewId));
  if (!summary) throw noReview();
  return c.json(summary satisfies ReviewSummary);
}
