import { afterEach, describe, expect, it } from 'vitest';
import { ReviewListResponse, ReviewSummary, SessionResponse } from '../../contract/index.ts';
import { DEMO_KEYS } from '../../reference/accounts.ts';
import { createHarness, PRO_KEY } from '../test-support/harness.ts';
import { tempDatabaseEach } from '../test-support/temp-database.ts';

type Harness = ReturnType<typeof createHarness>;

// A database of its own for each test: the demo account's reviews start empty every time.
const temp = tempDatabaseEach('session-demo');
let harness: Harness | undefined;
afterEach(async () => {
  await harness?.reviews?.worker.stop();
  harness = undefined;
});

const make = () => {
  harness = createHarness({ database: temp.database, demoKeys: [...DEMO_KEYS] });
  return harness;
};

/** One browser of the demo: its own cookie, so two visitors can take turns on one BFF. */
async function visitor(h: Harness, key = 'pi_demo_professional') {
  h.cookie = '';
  const session = SessionResponse.parse(await (await h.signIn(key)).json());
  return { session, cookie: h.cookie };
}

async function startReview(h: Harness, name: string) {
  const res = await h.call('/api/reviews', {
    method: 'POST',
    body: {
      clientToken: `t${Math.random().toString(36).slice(2, 14)}`,
      name,
      kind: 'paste',
      columns: ['address'],
      totalRows: 1,
    },
  });
  expect(res.status).toBe(201);
  return ReviewSummary.parse(await res.json());
}

const reviewNames = async (h: Harness) =>
  ReviewListResponse.parse(await (await h.call('/api/reviews')).json())
    .reviews.map((r) => r.name)
    .sort();

describe('a demo visitor signs out', () => {
  it('removes only the reviews that visitor started; another visitor’s, in the same account, stay', async () => {
    const h = make();
    const a = await visitor(h);
    await startReview(h, 'A one');
    await startReview(h, 'A two');
    const b = await visitor(h);
    expect(b.session.accountId).toBe(a.session.accountId);
    await startReview(h, 'B one');
    expect(await reviewNames(h)).toEqual(['A one', 'A two', 'B one']);

    h.cookie = a.cookie;
    expect((await h.call('/api/session', { method: 'DELETE' })).status).toBe(204);

    h.cookie = b.cookie;
    expect(await reviewNames(h)).toEqual(['B one']);
  });

  it('names each visitor’s key by the fingerprint its reviews carry, never by the key', async () => {
    const h = make();
    const a = await visitor(h);
    const mine = await startReview(h, 'A one');
    const b = await visitor(h);
    expect(a.session.keyFingerprint).toMatch(/^[0-9a-f]{8}$/);
    expect(a.session.keyFingerprint).toBe(mine.createdBy);
    expect(b.session.keyFingerprint).not.toBe(a.session.keyFingerprint);
    // Who am I says the same as the sign-in.
    const again = SessionResponse.parse(await (await h.call('/api/session')).json());
    expect(again.keyFingerprint).toBe(b.session.keyFingerprint);
    expect(JSON.stringify([a.session, b.session])).not.toContain('pi_demo_professional');
  });

  it('keeps the reviews of a key that is not a demo key: its sign-out removes nothing', async () => {
    const h = createHarness({ database: temp.database });
    harness = h;
    h.cookie = '';
    await h.signIn(PRO_KEY);
    await startReview(h, 'Evidence');
    const cookie = h.cookie;
    expect((await h.call('/api/session', { method: 'DELETE' })).status).toBe(204);
    h.cookie = '';
    await h.signIn(PRO_KEY);
    expect(await reviewNames(h)).toEqual(['Evidence']);
    expect(cookie).not.toBe(h.cookie);
  });
});
