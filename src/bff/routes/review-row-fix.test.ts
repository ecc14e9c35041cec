import { describe, expect, it, vi } from 'vitest';
import { ApiErrorBody, FixRowResponse, ReviewSummary } from '../../contract/index.ts';
import {
  checkAgain,
  clientToken,
  finished,
  finishedReview,
  rowsOf,
  summaryOf,
} from '../test-support/review-api.ts';
import { type Harness, reviewDatabase } from '../test-support/review-database.ts';

const reviews = reviewDatabase('row-fix');
const make = reviews.make;

/** Ambiguous in the reference: a Main Street in many towns, no town given. */
const AMBIGUOUS = '100 Main St';
const NOWHERE = '99999 Nowhere Lane, Atlantis, ZZ';

/** A finished review of these addresses (one row each), worked by the harness's own worker. */
const reviewOf = (h: Harness, addresses: string[]) => finishedReview(h, addresses, { name: 'Fixes' });
const fix = (h: Harness, id: string, index: number, body: unknown) =>
  h.call(`/api/reviews/${id}/rows/${index}/fix`, { method: 'POST', body });

describe('POST /api/reviews/:id/rows/:index/fix (a row fixed without leaving the review)', () => {
  it('"Use this one": the candidate’s record becomes the row’s answer, and the counts move with it', async () => {
    const h = make();
    await h.signIn();
    const review = await reviewOf(h, [AMBIGUOUS, NOWHERE]);
    expect(review.runs[0]?.counts).toMatchObject({ ambiguous: 1, notFound: 1, matched: 0 });
    const [row] = await rowsOf(h, review.id);
    const chosen = row?.candidates?.[1];
    if (!row || !chosen) throw new Error('the ambiguous row has no candidates');

    const announced = vi.spyOn(h.reviews as NonNullable<typeof h.reviews>, 'announce');
    const res = await fix(h, review.id, 0, { address: chosen.address, candidateId: chosen.id });
    expect(res.status, await res.clone().text()).toBe(200);
    // Live views on this replica are woken at once rather than at their next poll.
    expect(announced).toHaveBeenCalledWith(review.id);
    const answer = FixRowResponse.parse(await res.json());
    expect(answer.fixed).toBe(true);
    expect(answer.row).toMatchObject({ index: 0, input: AMBIGUOUS, outcome: 'matched' });
    expect(answer.row.property?.id).toBe(chosen.id);
    expect(answer.row.fix).toMatchObject({ address: chosen.address, how: 'candidate' });
    expect(answer.row.fix?.by).toMatch(/^[0-9a-f]{8}$/);

    // Every view reads the same: the row, and the run's counts (one ambiguous fewer, one match more).
    const [stored] = await rowsOf(h, review.id);
    expect(stored).toMatchObject({ outcome: 'matched', fix: { how: 'candidate' } });
    expect(stored?.property?.id).toBe(chosen.id);
    expect((await summaryOf(h, review.id)).runs[0]?.counts).toMatchObject({
      total: 2,
      done: 2,
      ambiguous: 0,
      notFound: 1,
      matched: 1,
    });
  });

  it('an edited address that finds nothing changes nothing, and says what it found', async () => {
    const h = make();
    await h.signIn();
    const review = await reviewOf(h, [NOWHERE]);
    const res = await fix(h, review.id, 0, { address: '1 Nowhere Lane, Atlantis, ZZ' });
    expect(res.status).toBe(200);
    const answer = FixRowResponse.parse(await res.json());
    expect(answer).toMatchObject({ fixed: false, attempt: { outcome: 'not_found' } });
    expect(answer.row).toMatchObject({ outcome: 'not_found', input: NOWHERE });
    expect(answer.row.fix).toBeUndefined();
    const [stored] = await rowsOf(h, review.id);
    expect(stored?.fix).toBeUndefined();
    expect((await summaryOf(h, review.id)).runs[0]?.counts).toMatchObject({ notFound: 1, matched: 0 });
  });

  it('an edited address that finds several offers them, and keeps the row as it was', async () => {
    const h = make();
    await h.signIn();
    const review = await reviewOf(h, [NOWHERE]);
    const answer = FixRowResponse.parse(await (await fix(h, review.id, 0, { address: AMBIGUOUS })).json());
    expect(answer).toMatchObject({ fixed: false, attempt: { outcome: 'ambiguous' } });
    expect(answer.attempt?.candidates?.length).toBeGreaterThan(1);
    expect((await rowsOf(h, review.id))[0]?.outcome).toBe('not_found');
  });

  it('a candidate whose address now finds another property is not used', async () => {
    const h = make();
    await h.signIn();
    const review = await reviewOf(h, [AMBIGUOUS]);
    const candidates = (await rowsOf(h, review.id))[0]?.candidates ?? [];
    const [first, second] = candidates;
    if (!first || !second) throw new Error('expected two candidates');
    const answer = FixRowResponse.parse(
      await (await fix(h, review.id, 0, { address: first.address, candidateId: second.id })).json(),
    );
    expect(answer.fixed).toBe(false);
    expect(answer.attempt?.error?.code).toBe('conflict');
    expect(answer.attempt?.candidates?.map((c) => c.id)).toEqual([first.id]);
    expect((await rowsOf(h, review.id))[0]?.outcome).toBe('ambiguous');
    expect((await summaryOf(h, review.id)).runs[0]?.counts).toMatchObject({ ambiguous: 1, matched: 0 });
  });

  it('"Check again" looks up the fixed address, not the input', async () => {
    const h = make();
    await h.signIn();
    const review = await reviewOf(h, [AMBIGUOUS]);
    const chosen = (await rowsOf(h, review.id))[0]?.candidates?.[0];
    if (!chosen) throw new Error('no candidate');
    await fix(h, review.id, 0, { address: chosen.address, candidateId: chosen.id });
    await checkAgain(h, review.id);
    await finished(h, review.id, 2);
    const [again] = await rowsOf(h, review.id, 2);
    expect(again).toMatchObject({ outcome: 'matched', input: AMBIGUOUS, fix: { address: chosen.address } });
    expect(again?.property?.id).toBe(chosen.id);
  });

  it('"Check again" asks a fixed row and a row already asking its address once, not twice (finding R29)', async () => {
    let resolves = 0;
    let reference: Harness['reference'] | undefined;
    // No cache and one row at a time: only the review's sharing of one lookup between rows can save the second.
    const h = make({
      cacheTtlMs: 0,
      reviewConcurrency: 1,
      fetch: async (request) => {
        if (new URL(request.url).pathname.endsWith('/resolve')) resolves++;
        return (reference as Harness['reference']).fetch(request);
      },
    });
    reference = h.reference;
    await h.signIn();
    const first = await reviewOf(h, [AMBIGUOUS]);
    const chosen = (await rowsOf(h, first.id))[0]?.candidates?.[0];
    if (!chosen) throw new Error('no candidate');
    const review = await reviewOf(h, [AMBIGUOUS, chosen.address]);
    // Fixed by typing the address (a candidate picked is looked up by its id, not by address).
    expect((await fix(h, review.id, 0, { address: chosen.address })).status).toBe(200);
    resolves = 0;
    await checkAgain(h, review.id);
    await finished(h, review.id, 2);
    const again = await rowsOf(h, review.id, 2);
    expect(again.map((r) => r.property?.id)).toEqual([chosen.id, chosen.id]);
    // One lookup, the other row shares it (as Activity then says: one entry not from the cache).
    expect(again.map((r) => r.cached)).toEqual([false, true]);
    expect(resolves).toBe(1);
  });

  it('a lookup that cannot be made (rate limit) answers its error and changes nothing', async () => {
    let refuse = false;
    let reference: Harness['reference'] | undefined;
    const h = make({
      fetch: async (request) =>
        refuse && new URL(request.url).pathname.endsWith('/resolve')
          ? new Response('{}', {
              status: 429,
              headers: { 'X-RateLimit-Reset': String(Math.ceil(Date.now() / 1000) + 3600) },
            })
          : (reference as Harness['reference']).fetch(request),
    });
    reference = h.reference;
    await h.signIn();
    const review = await reviewOf(h, [NOWHERE]);
    refuse = true;
    const res = await fix(h, review.id, 0, { address: AMBIGUOUS });
    expect(res.status).toBe(429);
    expect(ApiErrorBody.parse(await res.json()).error.code).toBe('rate_limited');
    expect((await rowsOf(h, review.id))[0]).toMatchObject({ outcome: 'not_found' });
    expect((await rowsOf(h, review.id))[0]?.fix).toBeUndefined();
  });

  it('puts every fix’s lookup on the audit trail, kept or not, before it answers', async () => {
    const h = make();
    await h.signIn();
    const review = await reviewOf(h, [AMBIGUOUS, NOWHERE]);
    const [first, second] = (await rowsOf(h, review.id))[0]?.candidates ?? [];
    if (!first || !second) throw new Error('expected two candidates');
    const lookups = async () =>
      (
        await reviews.database.db
          .selectFrom('audit_entries')
          .select(['kind', 'outcome', 'row_index', 'property_id', 'query'])
          .where('review_id', '=', review.id)
          .where('kind', '=', 'review_fix')
          .orderBy('id')
          .execute()
      ).map((e) => [e.row_index, e.outcome, e.property_id]);
    // Nothing found: said to the reviewer, the row as it was (committed alone).
    expect((await fix(h, review.id, 1, { address: NOWHERE })).status).toBe(200);
    // A candidate whose address finds another property: not used (alone).
    expect((await fix(h, review.id, 0, { address: first.address, candidateId: second.id })).status).toBe(200);
    // The row's write refused (the review deleted meanwhile), and failed (the database away): alone, both.
    const store = h.reviews?.store as NonNullable<Harness['reviews']>['store'];
    const spy = vi.spyOn(store, 'fixRow').mockResolvedValueOnce('not_found');
    expect((await fix(h, review.id, 0, { address: first.address, candidateId: first.id })).status).toBe(404);
    spy.mockRejectedValueOnce(new Error('disk I/O error'));
    expect((await fix(h, review.id, 0, { address: first.address, candidateId: first.id })).status).toBe(500);
    spy.mockRestore();
    // Kept: in the fix's own transaction.
    expect((await fix(h, review.id, 0, { address: first.address, candidateId: first.id })).status).toBe(200);
    expect(await lookups()).toEqual([
      [1, 'not_found', null],
      [0, 'matched', first.id],
      [0, 'matched', first.id],
      [0, 'matched', first.id],
      [0, 'matched', first.id],
    ]);
  });

  it('refuses another account, rows that are not there or not answered, and bad input', async () => {
    const h = make();
    await h.signIn();
    const review = await reviewOf(h, [NOWHERE]);
    expect((await fix(h, review.id, 0, {})).status).toBe(400);
    expect((await fix(h, review.id, 0, { address: '   ' })).status).toBe(400);
    expect((await fix(h, review.id, 1, { address: AMBIGUOUS })).status).toBe(404);
    expect((await fix(h, review.id, -1, { address: AMBIGUOUS })).status).toBe(404);
    expect((await fix(h, 'rv_nope', 0, { address: AMBIGUOUS })).status).toBe(404);

    // Rows still uploading have no answer yet; neither do rows the worker has not reached.
    await h.reviews?.worker.stop();
    const created = await h.call('/api/reviews', {
      method: 'POST',
      body: { clientToken: clientToken(), name: 'Still going', kind: 'paste', columns: [], totalRows: 2 },
    });
    const pending = ReviewSummary.parse(await created.json());
    expect((await fix(h, pending.id, 0, { address: AMBIGUOUS })).status).toBe(409);
    await h.call(`/api/reviews/${pending.id}/chunks`, {
      method: 'PUT',
      body: { index: 0, firstRow: 0, rows: [{ address: NOWHERE }, { address: NOWHERE }], last: true },
    });
    const waiting = await fix(h, pending.id, 1, { address: AMBIGUOUS });
    expect(waiting.status).toBe(409);
    expect(ApiErrorBody.parse(await waiting.json()).error.message).toMatch(/still being looked up/);

    h.cookie = '';
    await h.signIn('pi_demo_enterprise');
    const other = await fix(h, review.id, 0, { address: AMBIGUOUS });
    expect(other.status).toBe(404);
    expect(ApiErrorBody.parse(await other.json()).error.code).toBe('not_found');
  });

  it('a live view hears of the fix at once', async () => {
    const h = make();
    await h.signIn();
    const review = await reviewOf(h, [AMBIGUOUS]);
    const chosen = (await rowsOf(h, review.id))[0]?.candidates?.[0];
    if (!chosen) throw new Error('no candidate');
    const controller = new AbortController();
    const res = await h.call(`/api/reviews/${review.id}/events`, {
      signal: controller.signal,
      headers: { 'Last-Event-ID': '1' },
    });
    const reader = res.body?.getReader();
    if (!reader) throw new Error('no body');
    const decoder = new TextDecoder();
    let text = '';
    while (!/event: summary/.test(text)) text += decoder.decode((await reader.read()).value);
    await fix(h, review.id, 0, { address: chosen.address, candidateId: chosen.id });
    while (!/"fix":\{/.test(text)) {
      const { value, done } = await reader.read();
      if (done) break;
      text += decoder.decode(value);
    }
    controller.abort();
    expect(text).toMatch(/event: rows\ndata: \{"rows":\[\{"index":0,"input":"100 Main St","fix":\{/);
  });
});
