import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { ReviewSummary, SessionResponse } from '../../contract/index.ts';
import { readBffConfig } from '../env.ts';
import { createStores, type Stores } from '../stores/create-stores.ts';
import { fakeUpstream } from '../test-support/harness.ts';
import { reviewDatabase } from '../test-support/review-database.ts';
import { RedisServer, redisServerAvailable } from '../test-support/test-redis.ts';

/*
 * A key the service refuses (401) while the review worker lends it: every session holding it ends at once (one
 * owner, sessions.refuseKey, on memory and on Redis alike), so the key is asked with once, never re-lent on
 * every poll, and a view left open says the review waits for a sign-in.
 */

const reviews = reviewDatabase('refused-key');
const KEY = 'pi_revoked_key_1';

/** An upstream that takes the key at sign-in, then refuses it on every lookup. */
function revokedUpstream() {
  const lookups: URL[] = [];
  const base = fakeUpstream(() => ({}));
  return {
    lookups,
    fetch: async (request: Request) => {
      const url = new URL(request.url);
      if (url.pathname.endsWith('/auth/me')) return base(request);
      lookups.push(url);
      return new Response(JSON.stringify({ error: { code: 'invalid_key', message: 'Key revoked.' } }), {
        status: 401,
        headers: { 'content-type': 'application/json' },
      });
    },
  };
}

/** Two browsers signed in with the same key, and a one-row review started by the first. */
async function twoBrowsersAndAReview(stores?: Stores) {
  const upstream = revokedUpstream();
  const h = reviews.make({ fetch: upstream.fetch, ...(stores ? { stores } : {}) });
  const { accountId } = SessionResponse.parse(await (await h.signIn(KEY)).json());
  const first = h.cookie;
  h.cookie = '';
  await h.signIn(KEY);
  const second = h.cookie;
  h.cookie = first;
  const created = await h.call('/api/reviews', {
    method: 'POST',
    body: { clientToken: `t${Date.now()}x`, name: 'Revoked', kind: 'paste', columns: [], totalRows: 1 },
  });
  const review = ReviewSummary.parse(await created.json());
  await h.call(`/api/reviews/${review.id}/chunks`, {
    method: 'PUT',
    body: { index: 0, firstRow: 0, rows: [{ address: '1 Main St, Austin, TX' }], last: true },
  });
  return { h, upstream, accountId, first, second, review };
}

async function refusedOnce(stores?: Stores) {
  const { h, upstream, accountId, first, second } = await twoBrowsersAndAReview(stores);
  expect(await h.sessions.sessionFor(accountId)).toBeDefined();
  h.reviews?.worker.start();
  // Once no session of the account is left, the worker leases none of its rows: nothing more is asked.
  await vi.waitFor(
    async () => {
      expect(await h.sessions.sessionFor(accountId)).toBeUndefined();
      expect(await h.sessions.liveAccounts()).not.toContain(accountId);
    },
    { timeout: 4_000, interval: 20 },
  );
  expect(upstream.lookups).toHaveLength(1);
  for (const cookie of [first, second])
    expect((await h.call('/api/session', { headers: { cookie } })).status).toBe(401);
}

describe('a key the service refuses while a review runs', () => {
  it('ends every session holding it, asked with once (memory sessions)', () => refusedOnce());

  it('leaves an open view of the review saying it waits for a sign-in, not running for ever', async () => {
    const { h, review } = await twoBrowsersAndAReview();
    const stop = new AbortController();
    const res = await h.call(`/api/reviews/${review.id}/events`, { signal: stop.signal });
    const reader = (res.body as ReadableStream<Uint8Array>).getReader();
    const decoder = new TextDecoder();
    let events = '';
    const statuses = () => [...events.matchAll(/"status":"(\w+)"/g)].map((m) => m[1]);
    const reading = (async () => {
      for (;;) {
        const { value, done } = await reader.read();
        if (done) return;
        events += decoder.decode(value);
      }
    })().catch(() => {});
    await vi.waitFor(() => expect(statuses()).toContain('running'), { timeout: 4_000, interval: 20 });
    h.reviews?.worker.start();
    await vi.waitFor(() => expect(statuses().at(-1)).toBe('waiting'), { timeout: 4_000, interval: 20 });
    stop.abort();
    await reader.cancel().catch(() => {});
    await reading;
  });
});

describe.skipIf(!redisServerAvailable())('a key the service refuses, on Redis sessions', () => {
  let server: RedisServer;
  let stores: Stores;
  beforeAll(async () => {
    server = await RedisServer.start();
    stores = createStores(
      readBffConfig({ REDIS_URL: server.url, SESSION_SECRET: 's'.repeat(40), LOG_LEVEL: 'silent' }),
    );
    await stores.redis?.waitUntilReady();
  });
  afterAll(async () => {
    await stores?.close();
    await server?.stop();
  });

  it('ends every session holding it, lent by ref or signed in by cookie, asked with once (audit D02)', () =>
    refusedOnce(stores));
});
