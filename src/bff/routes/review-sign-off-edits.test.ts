import { describe, expect, it } from 'vitest';
import { AuditResponse, ReviewSummary } from '../../contract/index.ts';
import { finishedReview, rowsOf, summaryOf } from '../test-support/review-api.ts';
import { type Harness, reviewDatabase } from '../test-support/review-database.ts';

/*
 * A sign-off and its approval are of the review as it stood (issue 30). Hostile review F4: a row fixed or
 * excluded after the approval left "Signed off … Approved" standing on changed answers. Either change now
 * withdraws them, with an entry of the audit trail by the key that made it.
 */

const reviews = reviewDatabase('sign-off-edits');

/** Ambiguous in the reference (a Main Street in many towns), and an address that is no property. */
const AMBIGUOUS = '100 Main St';
const NOWHERE = '99999 Nowhere Lane, Atlantis, ZZ';

async function signedOff(h: Harness): Promise<string> {
  await h.signIn();
  const review = await finishedReview(h, [AMBIGUOUS, NOWHERE], { name: 'Signed' });
  const decided = await h.call(`/api/reviews/${review.id}/decisions`, {
    method: 'POST',
    body: { rows: [0, 1], decision: 'reject' },
  });
  expect(decided.status, await decided.clone().text()).toBe(200);
  const signed = await h.call(`/api/reviews/${review.id}/sign-off`, { method: 'POST', body: {} });
  expect(signed.status, await signed.clone().text()).toBe(200);
  expect(ReviewSummary.parse(await signed.json()).signOff).toBeTruthy();
  return review.id;
}

async function withdrawals(h: Harness, id: string) {
  const trail = AuditResponse.parse(await (await h.call('/api/activity?limit=50')).json());
  return trail.entries
    .filter((e) => e.kind === 'review_sign_off_withdrawn' && e.reviewId === id)
    .map((e) => e.query);
}

describe('a signed-off review changed in place', () => {
  it('a row fixed after the sign-off withdraws it, audited', async () => {
    const h = reviews.make();
    const id = await signedOff(h);
    const [row] = await rowsOf(h, id);
    const chosen = row?.candidates?.[0];
    if (!chosen) throw new Error('the ambiguous row has no candidates');
    const res = await h.call(`/api/reviews/${id}/rows/0/fix`, {
      method: 'POST',
      body: { address: chosen.address, candidateId: chosen.id },
    });
    expect(res.status, await res.clone().text()).toBe(200);
    expect((await summaryOf(h, id)).signOff ?? null).toBeNull();
    expect(await withdrawals(h, id)).toEqual(['Row 1 fixed after the sign-off']);
  });

  it('a row excluded after the sign-off withdraws it, audited; a fix that found nothing changes nothing', async () => {
    const h = reviews.make();
    const id = await signedOff(h);
    const nothing = await h.call(`/api/reviews/${id}/rows/1/fix`, {
      method: 'POST',
      body: { address: NOWHERE },
    });
    expect(nothing.status).toBe(200);
    expect((await summaryOf(h, id)).signOff).toBeTruthy();
    const res = await h.call(`/api/reviews/${id}/rows/1/exclusion`, {
      method: 'PUT',
      body: { reason: 'Not collateral' },
    });
    expect(res.status, await res.clone().text()).toBe(200);
    expect((await summaryOf(h, id)).signOff ?? null).toBeNull();
    expect(await withdrawals(h, id)).toEqual(['Row 2 excluded after the sign-off']);
  });
});
