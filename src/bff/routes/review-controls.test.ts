import { sql } from 'kysely';
import { describe, expect, it, vi } from 'vitest';
import {
  ApiErrorBody,
  type ReviewInputRow,
  ReviewRowsResponse,
  ReviewSummary,
} from '../../contract/index.ts';
import { SqlReviewQueue } from '../stores/reviews/queue.ts';
import { hashKey, keyFingerprint } from '../stores/sessions/types.ts';
import { type Harness, reviewDatabase } from '../test-support/review-database.ts';

/*
 * POST /api/reviews/:id/pause, /resume and /cancel as the browser sends them: any key of the account, nobody
 * else; 409 with what to do in a state that does not allow it; an audit entry committed with the action.
 */

const db = reviewDatabase('review-controls');
let clicks = 0;

async function review(h: Harness, total: number, name = 'Loans') {
  const made = await h.call('/api/reviews', {
    method: 'POST',
    body: {
      clientToken: `controls-${++clicks}-${Date.now()}`,
      name,
      kind: 'paste',
      columns: [],
      totalRows: total,
    },
  });
  const { id } = ReviewSummary.parse(await made.json());
  const rows: ReviewInputRow[] = Array.from({ length: total }, (_, i) => ({
    address: `${i + 1} Nowhere Ln, ZZ`,
  }));
  const all = await h.call(`/api/reviews/${id}/chunks`, {
    method: 'PUT',
    body: { index: 0, firstRow: 0, rows, last: true },
  });
  expect(all.status).toBe(200);
  return id;
}
const act = (h: Harness, id: string, action: 'pause' | 'resume' | 'cancel') =>
  h.call(`/api/reviews/${id}/${action}`, { method: 'POST' });
async function summaryOf(res: Response) {
  expect(res.status, await res.clone().text()).toBe(200);
  return ReviewSummary.parse(await res.json());
}
async function refusal(res: Response) {
  return { status: res.status, ...ApiErrorBody.parse(await res.json()).error };
}
async function entries(reviewId: string) {
  return db.database.db
    .selectFrom('audit_entries')
    .select(['kind', 'outcome', 'key_fingerprint', 'query', 'review_id'])
    .where('review_id', '=', reviewId)
    .orderBy('id')
    .execute();
}
const fingerprint = (key: string) => keyFingerprint(hashKey(key));

describe('pause, resume and cancel a review', () => {
  it('any key of the account may, each is on record with who did it; another account gets 404', async () => {
    const h = db.make();
    await h.signIn('pi_demo_professional');
    const first = h.cookie;
    const id = await review(h, 3, 'Shared loans');
    h.cookie = '';
    await h.signIn('pi_demo_professional_2');
    const second = h.cookie;
    expect(await summaryOf(await act(h, id, 'pause'))).toMatchObject({ id, status: 'paused' });
    h.cookie = first;
    expect(await summaryOf(await act(h, id, 'resume'))).toMatchObject({ status: 'running' });
    h.cookie = second;
    expect(await summaryOf(await act(h, id, 'cancel'))).toMatchObject({ status: 'cancelled' });
    expect((await summaryOf(await h.call(`/api/reviews/${id}`))).status).toBe('cancelled');
    const page = ReviewRowsResponse.parse(await (await h.call(`/api/reviews/${id}/rows`)).json());
    expect(page.rows.map((r) => r.outcome)).toEqual(['not_asked', 'not_asked', 'not_asked']);

    const [one, two] = [fingerprint('pi_demo_professional'), fingerprint('pi_demo_professional_2')];
    expect(await entries(id)).toEqual([
      { kind: 'review_paused', outcome: 'ok', key_fingerprint: two, query: 'Shared loans', review_id: id },
      { kind: 'review_resumed', outcome: 'ok', key_fingerprint: one, query: 'Shared loans', review_id: id },
      { kind: 'review_cancelled', outcome: 'ok', key_fingerprint: two, query: 'Shared loans', review_id: id },
    ]);

    h.cookie = '';
    await h.signIn('pi_demo_enterprise');
    for (const action of ['pause', 'resume', 'cancel'] as const)
      expect(await refusal(await act(h, id, action))).toMatchObject({ status: 404, code: 'not_found' });
    expect(await entries(id)).toHaveLength(3);
    h.cookie = '';
    expect(await refusal(await act(h, id, 'pause'))).toMatchObject({ status: 401, code: 'unauthenticated' });
  });

  it('refuses what the review’s state does not allow with 409 and what to do, recording nothing', async () => {
    const h = db.make();
    await h.signIn();
    const id = await review(h, 2);
    expect(await refusal(await act(h, id, 'resume'))).toMatchObject({
      status: 409,
      code: 'conflict',
      message: 'This review is not paused: there is nothing to resume.',
    });
    await summaryOf(await act(h, id, 'pause'));
    expect(await refusal(await act(h, id, 'pause'))).toMatchObject({
      status: 409,
      message: 'This review is paused already.',
    });
    await summaryOf(await act(h, id, 'cancel'));
    for (const action of ['pause', 'resume', 'cancel'] as const)
      expect(await refusal(await act(h, id, action))).toMatchObject({
        status: 409,
        message: `This review was cancelled: there is nothing to ${action}. Check it again to start a new run.`,
      });
    expect((await entries(id)).map((e) => e.kind)).toEqual(['review_paused', 'review_cancelled']);

    const made = await h.call('/api/reviews', {
      method: 'POST',
      body: {
        clientToken: `controls-up-${Date.now()}`,
        name: 'Half',
        kind: 'paste',
        columns: [],
        totalRows: 2,
      },
    });
    const uploading = ReviewSummary.parse(await made.json()).id;
    expect(await refusal(await act(h, uploading, 'pause'))).toMatchObject({
      status: 409,
      message: 'This review is still uploading: it can be paused once every row is in, or cancelled now.',
    });
    // Check again after a cancel starts a new run over every row.
    const again = await h.call(`/api/reviews/${id}/runs`, { method: 'POST' });
    expect(again.status).toBe(201);
    expect(ReviewSummary.parse(await again.json())).toMatchObject({ status: 'running', runs: [{}, {}] });
  });

  it('a paused review is not worked; resumed, it finishes', async () => {
    const h = db.make({ rateLimit: { requests: 10_000, seconds: 60 } });
    // An account of its own: the other tests' reviews on this database are not this worker's to answer.
    await h.signIn('pi_demo_enterprise');
    const id = await review(h, 3);
    await summaryOf(await act(h, id, 'pause'));
    const asked = h.upstreamRequests.length;
    h.reviews?.worker.start();
    // The worker's passes come and go (every 20 ms here); no row of the paused review is leased.
    const lease = vi.spyOn(SqlReviewQueue.prototype, 'lease');
    await vi.waitFor(() => expect(lease.mock.calls.length).toBeGreaterThan(3), {
      timeout: 5_000,
      interval: 10,
    });
    lease.mockRestore();
    expect(h.upstreamRequests.slice(asked).map(String)).toEqual([]);
    expect(await summaryOf(await h.call(`/api/reviews/${id}`))).toMatchObject({
      status: 'paused',
      runs: [{ counts: { done: 0 } }],
    });
    await summaryOf(await act(h, id, 'resume'));
    await vi.waitFor(
      async () => expect((await summaryOf(await h.call(`/api/reviews/${id}`))).status).toBe('done'),
      { timeout: 10_000, interval: 20 },
    );
  }, 20_000);

  it('an action stands only with its audit entry, committed in its own transaction: a failed entry, 503 and nothing done', async () => {
    const h = db.make();
    await h.signIn();
    const id = await review(h, 2, 'Unrecorded');
    // The entry's insert fails (as a full disk or a lost connection would), inside the action's transaction.
    await sql`create trigger refuse_review_entries before insert on audit_entries
      when new.kind like 'review_%' begin select raise(abort, 'no room'); end`.execute(db.database.db);
    try {
      for (const action of ['pause', 'cancel'] as const)
        expect(await refusal(await act(h, id, action))).toMatchObject({
          status: 503,
          code: 'audit_unavailable',
        });
      expect((await summaryOf(await h.call(`/api/reviews/${id}`))).status).toBe('running');
      expect(await entries(id)).toEqual([]);
    } finally {
      await sql`drop trigger refuse_review_entries`.execute(db.database.db);
    }
    // The same click again, once the trail takes entries: done, and on record once.
    expect((await summaryOf(await act(h, id, 'pause'))).status).toBe('paused');
    expect((await entries(id)).map((e) => e.kind)).toEqual(['review_paused']);
    // Found on the Activity page by the review's name, as the writer's entries are by their text.
    const found = await h.call('/api/activity?q=unrecorded');
    expect(await found.text()).toContain('"review_paused"');
  });

  it('cancel ends an upload not finished (a tab closed mid-way): its rows received not asked, no more taken', async () => {
    const h = db.make();
    await h.signIn();
    const made = await h.call('/api/reviews', {
      method: 'POST',
      body: {
        clientToken: `controls-abandoned-${Date.now()}`,
        name: 'Tab closed',
        kind: 'paste',
        columns: [],
        totalRows: 40,
      },
    });
    const { id } = ReviewSummary.parse(await made.json());
    const chunk = (index: number, firstRow: number) =>
      h.call(`/api/reviews/${id}/chunks`, {
        method: 'PUT',
        body: { index, firstRow, rows: [{ address: `${firstRow} Gone Ln, ZZ` }], last: false },
      });
    expect((await chunk(0, 0)).status).toBe(200);
    expect(await summaryOf(await act(h, id, 'cancel'))).toMatchObject({
      status: 'cancelled',
      totalRows: 40,
      receivedRows: 1,
    });
    expect(await refusal(await chunk(1, 1))).toMatchObject({
      status: 409,
      message: 'This upload was cancelled: it takes no more rows. Start a new review.',
    });
    const page = ReviewRowsResponse.parse(await (await h.call(`/api/reviews/${id}/rows`)).json());
    expect(page.rows.map((r) => r.outcome)).toEqual(['not_asked']);
    expect((await entries(id)).map((e) => e.kind)).toEqual(['review_cancelled']);
  });
});
