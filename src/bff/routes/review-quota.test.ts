import { describe, expect, it } from 'vitest';
import { ApiErrorBody, ReviewSummary } from '../../contract/index.ts';
import { reviewDatabase } from '../test-support/review-database.ts';

/* REVIEW_MAX_PENDING_ROWS: an account's backlog is bounded, with a refusal that says what to do. */
const db = reviewDatabase('review-quota');

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
});
