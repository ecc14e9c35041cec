import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { setImmediate } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import { describe, expect, it, vi } from 'vitest';
import { ApiErrorBody, ReviewSummary, SessionResponse } from '../contract/index.ts';
import { fakeUpstream } from './test-support/harness.ts';
import { type Harness, reviewDatabase } from './test-support/review-database.ts';

/*
 * "This key was refused" has one owner (refused-keys.ts): whichever way a lookup came (a search, a review row,
 * several browsers sharing one upstream call), the service's one 401 ends the key's sessions exactly once, and
 * each lookup has exactly one audit entry, `refused`. A caller that handled the refusal itself would end them a
 * second time or not at all, or write a second entry.
 */

const reviews = reviewDatabase('refused-keys');

/** An upstream that takes the key at sign-in and refuses it on every lookup, each answer once `gate` opens. */
function revokedUpstream(gate: Promise<void> = Promise.resolve()) {
  const lookups: URL[] = [];
  const signIn = fakeUpstream(() => ({}));
  return {
    lookups,
    fetch: async (request: Request) => {
      const url = new URL(request.url);
      if (url.pathname.endsWith('/auth/me')) return signIn(request);
      lookups.push(url);
      await gate;
      return new Response(JSON.stringify({ error: { code: 'invalid_key', message: 'Key revoked.' } }), {
        status: 401,
        headers: { 'content-type': 'application/json' },
      });
    },
  };
}

let keys = 0;

/**
 * Two browsers signed in with a key of their own (its account's trail its own in the shared database), the
 * first's cookie in use, and every time the key's sessions were ended.
 */
async function twoBrowsers(gate?: Promise<void>) {
  const key = `pi_revoked_key_${++keys}`;
  const upstream = revokedUpstream(gate);
  const h = reviews.make({ fetch: upstream.fetch });
  const ended = vi.spyOn(h.sessions, 'refuseKey');
  const { accountId } = SessionResponse.parse(await (await h.signIn(key)).json());
  const first = h.cookie;
  h.cookie = '';
  await h.signIn(key);
  const second = h.cookie;
  h.cookie = first;
  return { h, upstream, ended, accountId, cookies: [first, second] };
}

/** The account's lookup entries (sign-ins left out), oldest first, as [kind, outcome]. */
async function lookupEntries(h: Harness, accountId: string) {
  const entries = (await h.auditTrail?.store.page(accountId, {}, null, 100)) ?? [];
  return entries
    .filter((e) => e.kind !== 'sign_in')
    .map((e) => [e.kind, e.outcome])
    .reverse();
}

async function signedOut(h: Harness, cookies: string[]) {
  for (const cookie of cookies)
    expect((await h.call('/api/session', { headers: { cookie } })).status).toBe(401);
}

describe('a key the service refuses', () => {
  it('a search answered 401: the key’s sessions end once, one entry, and the browser is told', async () => {
    const { h, ended, accountId, cookies } = await twoBrowsers();
    const res = await h.call('/api/properties/search?q=Main');
    expect(res.status).toBe(401);
    expect(ApiErrorBody.parse(await res.json()).error).toMatchObject({
      code: 'unauthenticated',
      message: 'Your API key is no longer accepted. Sign in again with a current key.',
    });
    expect(ended).toHaveBeenCalledTimes(1);
    expect(await lookupEntries(h, accountId)).toEqual([['search', 'refused']]);
    await signedOut(h, cookies);
  });

  it('a review row answered 401: the key’s sessions end once, one entry, and the row is not answered', async () => {
    const { h, upstream, ended, accountId, cookies } = await twoBrowsers();
    const created = await h.call('/api/reviews', {
      method: 'POST',
      body: { clientToken: `t${Date.now()}r`, name: 'Revoked', kind: 'paste', columns: [], totalRows: 1 },
    });
    const review = ReviewSummary.parse(await created.json());
    await h.call(`/api/reviews/${review.id}/chunks`, {
      method: 'PUT',
      body: { index: 0, firstRow: 0, rows: [{ address: '1 Main St, Austin, TX' }], last: true },
    });
    h.reviews?.worker.start();
    // The row waits for a sign-in of its account: given back with no outcome, none of its attempts spent; its
    // entry is committed alone (no answer of the service's is kept with it).
    const rowOf = () =>
      reviews.database.db
        .selectFrom('review_results')
        .select(['state', 'outcome', 'attempts'])
        .where('review_id', '=', review.id)
        .execute();
    await vi.waitFor(
      async () => {
        expect(await rowOf()).toEqual([{ state: 'pending', outcome: null, attempts: 0 }]);
        expect(await lookupEntries(h, accountId)).toHaveLength(1);
      },
      { timeout: 4_000, interval: 20 },
    );
    await h.reviews?.worker.stop();
    expect(upstream.lookups).toHaveLength(1);
    expect(ended).toHaveBeenCalledTimes(1);
    expect(await lookupEntries(h, accountId)).toEqual([['review_row', 'refused']]);
    await signedOut(h, cookies);
  });

  it('8 searches sharing one upstream call answered 401: the sessions end once, 8 entries', async () => {
    let open = () => {};
    const gate = new Promise<void>((resolve) => {
      open = resolve;
    });
    const { h, upstream, ended, accountId, cookies } = await twoBrowsers(gate);
    const asked = vi.spyOn(h.stores.cache, 'get');
    const answers = Array.from({ length: 8 }, (_, i) =>
      h.call('/api/properties/search?q=Main', { headers: { cookie: cookies[i % 2] as string } }),
    );
    // Every search has looked in the cache and joined the one call in flight before the service answers.
    await vi.waitFor(() => expect(asked).toHaveBeenCalledTimes(8), { timeout: 4_000, interval: 5 });
    await setImmediate();
    open();
    expect((await Promise.all(answers)).map((r) => r.status)).toEqual(Array(8).fill(401));
    expect(upstream.lookups).toHaveLength(1);
    expect(ended).toHaveBeenCalledTimes(1);
    expect(await lookupEntries(h, accountId)).toEqual(Array(8).fill(['search', 'refused']));
    await signedOut(h, cookies);
  });
});

describe('the owner of a refused key', () => {
  it('is the one caller of sessions.refuseKey in the BFF (a caller ending sessions itself bypasses it)', () => {
    const root = fileURLToPath(new URL('.', import.meta.url));
    const callers = readdirSync(root, { recursive: true, encoding: 'utf8' })
      .filter((f) => f.endsWith('.ts') && !f.endsWith('.test.ts') && !f.includes('test-support'))
      .filter((f) => /\.refuseKey\(/.test(readFileSync(join(root, f), 'utf8')));
    expect(callers).toEqual(['refused-keys.ts']);
  });
});
