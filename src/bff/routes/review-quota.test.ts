import { describe, expect, it } from 'vitest';
import { ApiErrorBody, ReviewSummary } from '../../contract/index.ts';
import { reviewDatabase } from '../test-support/review-database.ts';

/* REVIEW_MAX_PENDING_ROWS: an account's backlog is bounded, with a refusal that says what to do. */
const db = reviewDatabase('review-quota');
// A database of its own for Check again: the demo has two accounts with API access, and the first test fills both.
const again = reviewDatabase('review-quota-again');

describe('rows waiting per account', () => {
  it('refuses a review that would pass the bound (409 quota_exceeded), counting uploads and unfinished runs', async () => {
    const h = db.make({ reviewMaxPendingRows: 10 });
    expect((await h.signIn('pi_demo_enterprise')).status).toBe(200);
    const create = (clientToken: string, totalRows: number) =>
      h.call('/api/reviews', {
        method: 'POST',
        body: { clientToken, name: clientToken, kind: 'paste', columns: [], totalRows },
      });
    // 6 rows still uploading.
    const first = ReviewSummary.parse(await (await create('review-quota-1', 6)).json());
    const refused = await create('review-quota-2', 5);
    expect(refused.status).toBe(409);
    const { error } = ApiErrorBody.parse(await refused.json());
    expect(error.code).toBe('quota_exceeded');
    expect(error.message).toMatch(/has 6 rows waiting to be looked up, and keeps at most 10/);
    expect((await create('review-quota-3', 4)).status).toBe(201);
    // Every row in: the run counts what is not yet done, the same 6.
    await h.call(`/api/reviews/${first.id}/chunks`, {
      method: 'PUT',
      body: {
        index: 0,
        firstRow: 0,
        rows: Array.from({ length: 6 }, (_, i) => ({ address: `${i + 1} Quota Way, Nowhere, ZZ` })),
        last: true,
      },
    });
    expect((await create('review-quota-4', 1)).status).toBe(409);
    // Another account has its own bound.
    expect((await h.signIn('pi_demo_professional')).status).toBe(200);
    expect((await create('review-quota-5', 10)).status).toBe(201);
  });

  it('Check again counts its rows against the bound as a create does; the refusal says what frees rows', async () => {
    const h = again.make({ reviewMaxPendingRows: 10 });
    expect((await h.signIn('pi_demo_professional_2')).status).toBe(200);
    const create = (clientToken: string, totalRows: number) =>
      h.call('/api/reviews', {
        method: 'POST',
        body: { clientToken, name: clientToken, kind: 'paste', columns: [], totalRows },
      });
    /** A review of `rows` rows, every row in, then cancelled: finished, nothing waiting. */
    const finished = async (clientToken: string, rows: number) => {
      const { id } = ReviewSummary.parse(await (await create(clientToken, rows)).json());
      await h.call(`/api/reviews/${id}/chunks`, {
        method: 'PUT',
        body: {
          index: 0,
          firstRow: 0,
          rows: Array.from({ length: rows }, (_, i) => ({ address: `${i + 1} Again Way, Nowhere, ZZ` })),
          last: true,
        },
      });
      expect((await h.call(`/api/reviews/${id}/cancel`, { method: 'POST' })).status).toBe(200);
      return id;
    };
    const checkAgain = (id: string) => h.call(`/api/reviews/${id}/runs`, { method: 'POST' });
    const [six, five] = [await finished('quota-again-6', 6), await finished('quota-again-5', 5)];
    expect((await checkAgain(six)).status).toBe(201);
    const refused = await checkAgain(five);
    expect(refused.status).toBe(409);
    expect(ApiErrorBody.parse(await refused.json()).error).toMatchObject({
      code: 'quota_exceeded',
      message:
        'This account has 6 rows waiting to be looked up, and keeps at most 10: 5 more rows would pass that. ' +
        'Let a review finish, or cancel or delete one (an upload not finished too), then try again.',
    });
    // Refused, nothing changed: the review still has its one run.
    const kept = ReviewSummary.parse(await (await h.call(`/api/reviews/${five}`)).json());
    expect(kept).toMatchObject({ status: 'cancelled', runs: [{}] });
    // One row: said in the singular. Cancelling the upload of 4 rows frees them.
    expect((await create('quota-again-4', 4)).status).toBe(201);
    const one = await create('quota-again-1', 1);
    expect(ApiErrorBody.parse(await one.json()).error.message).toMatch(
      /has 10 rows waiting .* at most 10: 1 more row would pass that/,
    );
    // Another account has its own bound, and its Check again is not counted against this one.
    h.cookie = '';
    expect((await h.signIn('pi_demo_enterprise')).status).toBe(200);
    expect((await create('quota-again-other', 10)).status).toBe(201);
  });
});
