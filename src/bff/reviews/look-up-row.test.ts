import { describe, expect, it, vi } from 'vitest';
import {
  describeMatch,
  FixRowResponse,
  type ReviewRowResult,
  ReviewRowsResponse,
  ReviewSummary,
} from '../../contract/index.ts';
import { type Harness, reviewDatabase } from '../test-support/review-database.ts';

const reviews = reviewDatabase('look-up-row');

const token = () => `t${Math.random().toString(36).slice(2, 14)}`;

/** A finished review of these addresses (one row each), worked by the harness's own worker. */
async function reviewOf(h: Harness, addresses: string[]): Promise<ReviewSummary> {
  const created = await h.call('/api/reviews', {
    method: 'POST',
    body: { clientToken: token(), name: 'Matches', kind: 'paste', columns: [], totalRows: addresses.length },
  });
  const review = ReviewSummary.parse(await created.json());
  await h.call(`/api/reviews/${review.id}/chunks`, {
    method: 'PUT',
    body: { index: 0, firstRow: 0, rows: addresses.map((address) => ({ address })), last: true },
  });
  h.reviews?.worker.start();
  return vi.waitFor(
    async () => {
      const s = ReviewSummary.parse(await (await h.call(`/api/reviews/${review.id}`)).json());
      expect(s.runs[0]?.finishedAt).toBeTruthy();
      return s;
    },
    { timeout: 10_000, interval: 20 },
  );
}

const rowsOf = async (h: Harness, id: string): Promise<ReviewRowResult[]> =>
  ReviewRowsResponse.parse(await (await h.call(`/api/reviews/${id}/rows`)).json()).rows;

/** How a row's record matched, as the browser reads it: absent, as given (null), or what changed. */
const matchOf = (r: ReviewRowResult | undefined) =>
  r?.match === undefined ? 'absent' : r.match === null ? 'as given' : describeMatch(r.match);

describe('a review row with a record says how it matched (the browser never works it out)', () => {
  it('as given, corrected, and after a fix: the explanation comes with every record', async () => {
    const h = reviews.make();
    await h.signIn();
    const review = await reviewOf(h, [
      '1100 Congress Ave, Austin, TX 78701',
      '1100 Congres Ave, Austn, TX',
      '100 Main St',
    ]);
    const rows = await rowsOf(h, review.id);
    expect(rows.map((r) => [r.outcome, matchOf(r)])).toEqual([
      ['matched', 'as given'],
      ['matched', 'corrected: Congres → Congress, Austn → Austin; added: ZIP 78701'],
      ['ambiguous', 'absent'],
    ]);

    // "Use this one" on the ambiguous row: its new record comes explained too, in the answer and the rows API.
    const chosen = rows[2]?.candidates?.[0];
    if (!chosen) throw new Error('the ambiguous row has no candidates');
    const res = await h.call(`/api/reviews/${review.id}/rows/2/fix`, {
      method: 'POST',
      body: { address: chosen.address, candidateId: chosen.id },
    });
    const answer = FixRowResponse.parse(await res.json());
    expect(answer.fixed).toBe(true);
    expect(matchOf(answer.row)).toBe('as given');
    expect(matchOf((await rowsOf(h, review.id))[2])).toBe('as given');
  });
});
