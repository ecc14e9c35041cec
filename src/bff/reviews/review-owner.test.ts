import { describe, expect, it, vi } from 'vitest';
import { type ReviewInputRow, ReviewSummary, SearchResponse, SessionResponse } from '../../contract/index.ts';
import { type Harness, reviewDatabase } from '../test-support/review-database.ts';

/*
 * Who did what (issue 27): a review's lookups go on the key of the person who started it when that key is signed
 * in, even when a colleague's session is the more recent; when only a colleague's is, the review says whose key
 * carries it, and every entry names the review's owner besides the key that made the lookup.
 */

const reviews = reviewDatabase('review-owner');
const OWNER = 'pi_demo_professional';
const COLLEAGUE = 'pi_demo_professional_2';

async function as(h: Harness, key: string) {
  h.cookie = '';
  const session = SessionResponse.parse(await (await h.signIn(key)).json());
  return { cookie: h.cookie, fingerprint: session.keyFingerprint as string };
}

async function startReview(h: Harness, rows: ReviewInputRow[], clientToken: string) {
  const created = await h.call('/api/reviews', {
    method: 'POST',
    body: { clientToken, name: 'Owned', kind: 'paste', columns: [], totalRows: rows.length },
  });
  const { id } = ReviewSummary.parse(await created.json());
  await h.call(`/api/reviews/${id}/chunks`, {
    method: 'PUT',
    body: { index: 0, firstRow: 0, rows, last: true },
  });
  return id;
}

const summary = async (h: Harness, id: string) =>
  ReviewSummary.parse(await (await h.call(`/api/reviews/${id}`)).json());

async function entriesOf(id: string) {
  return reviews.database.db
    .selectFrom('audit_entries')
    .select(['key_fingerprint', 'review_owner'])
    .where('review_id', '=', id)
    .execute();
}

describe('whose key a review runs on', () => {
  it('goes on its owner’s key while it is signed in, though a colleague signed in later', async () => {
    const h = reviews.make();
    const owner = await as(h, OWNER);
    const page = SearchResponse.parse(await (await h.call('/api/properties/search?q=oak')).json());
    const rows = [...new Set(page.items.map((p) => p.address))].slice(0, 4).map((address) => ({ address }));
    const id = await startReview(h, rows, 'owner-1a2b3c4d');
    await as(h, COLLEAGUE);
    h.reviews?.worker.start();
    await vi.waitFor(async () => expect((await summary(h, id)).status).toBe('done'), { timeout: 10_000 });
    const entries = await entriesOf(id);
    expect(entries).toHaveLength(4);
    expect(
      entries.every((e) => e.key_fingerprint === owner.fingerprint && e.review_owner === owner.fingerprint),
    ).toBe(true);
    expect((await summary(h, id)).carriedBy).toBeNull();
  });

  it('says whose key carries it while the owner is signed out, and names the owner in every entry', async () => {
    const h = reviews.make();
    const owner = await as(h, OWNER);
    const page = SearchResponse.parse(await (await h.call('/api/properties/search?q=main')).json());
    const rows = [...new Set(page.items.map((p) => p.address))].slice(0, 4).map((address) => ({ address }));
    const id = await startReview(h, rows, 'owner-5e6f7a8b');
    await h.call('/api/session', { method: 'DELETE' });
    const colleague = await as(h, COLLEAGUE);
    h.reviews?.worker.start();
    await vi.waitFor(async () => expect((await summary(h, id)).status).toBe('done'), { timeout: 10_000 });
    expect((await summary(h, id)).carriedBy).toBe(colleague.fingerprint);
    const entries = await entriesOf(id);
    expect(entries).toHaveLength(4);
    for (const e of entries)
      expect(e).toEqual({ key_fingerprint: colleague.fingerprint, review_owner: owner.fingerprint });
    // The Activity API says it too.
    const activity = (await (await h.call(`/api/activity?limit=50`)).json()) as {
      entries: { reviewId: string | null; reviewOwner?: string | null }[];
    };
    expect(
      activity.entries.filter((e) => e.reviewId === id).every((e) => e.reviewOwner === owner.fingerprint),
    ).toBe(true);
  });
});
