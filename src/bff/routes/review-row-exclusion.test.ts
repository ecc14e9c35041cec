import Papa from 'papaparse';
import { describe, expect, it } from 'vitest';
import { ApiErrorBody, ReviewRowResult, ReviewSummary } from '../../contract/index.ts';
import { hashKey, keyFingerprint } from '../stores/sessions/types.ts';
import { fileRows, finished, rowsOf, summaryOf, uploadReview } from '../test-support/review-api.ts';
import { type Harness, reviewDatabase } from '../test-support/review-database.ts';

/*
 * PUT / DELETE /api/reviews/:id/rows/:index/exclusion (issue 27): a reviewer excludes a row from a review later
 * ("Thanks!" that slipped in, an office address among the collateral). The row keeps its place and its answer,
 * marked, in every view and in the export; a row not asked yet is never asked (nor in Check again); including it
 * again undoes all of that; each is in the audit trail.
 */

const db = reviewDatabase('row-exclusion');

const MATCHED = '1100 Congress Ave, Austin, TX 78701';
const NOWHERE = '99999 Nowhere Lane, Atlantis, ZZ';

/** A review of a file with one address column, every row in, not started. */
const review = (h: Harness, addresses: string[]) =>
  uploadReview(h, fileRows(addresses), { kind: 'csv', columns: ['Address'] });
const exclude = (h: Harness, id: string, index: number | string, body: unknown = {}) =>
  h.call(`/api/reviews/${id}/rows/${index}/exclusion`, { method: 'PUT', body });
const include = (h: Harness, id: string, index: number | string) =>
  h.call(`/api/reviews/${id}/rows/${index}/exclusion`, { method: 'DELETE' });
async function rowOf(res: Response) {
  expect(res.status, await res.clone().text()).toBe(200);
  return ReviewRowResult.parse(await res.json());
}
async function refusal(res: Response) {
  return { status: res.status, ...ApiErrorBody.parse(await res.json()).error };
}
/** Lookups the upstream was asked of this address. */
const asked = (h: Harness, address: string) =>
  h.upstreamRequests.filter((u) => [...u.searchParams.values()].includes(address)).length;
async function csvOf(h: Harness, id: string, run?: number) {
  const res = await h.call(`/api/reviews/${id}/export.csv${run ? `?run=${run}` : ''}`);
  expect(res.status).toBe(200);
  const parsed = Papa.parse<Record<string, string>>((await res.text()).replace(/^\ufeff/, ''), {
    header: true,
    skipEmptyLines: true,
  });
  expect(parsed.errors).toEqual([]);
  return parsed.data;
}
const fingerprint = (key: string) => keyFingerprint(hashKey(key));

describe('excluding a row from a review later', () => {
  it('keeps an answered row’s place and answer, marked, in the rows, the export and the trail; Include again undoes it', async () => {
    const h = db.make();
    await h.signIn('pi_demo_professional_2');
    const id = await review(h, [MATCHED, 'Thanks!', NOWHERE]);
    h.reviews?.worker.start();
    const before = await finished(h, id);
    const answered = await rowsOf(h, id);

    const marked = await rowOf(await exclude(h, id, 1, { reason: '  Not an address: a sign-off  ' }));
    expect(marked).toMatchObject({
      index: 1,
      input: 'Thanks!',
      sourceRow: 3,
      outcome: answered[1]?.outcome,
      excluded: { reason: 'Not an address: a sign-off', by: fingerprint('pi_demo_professional_2') },
    });
    expect(Date.parse(marked.excluded?.at ?? '')).not.toBeNaN();
    expect(marked.retrievedAt).toBe(answered[1]?.retrievedAt);
    // Every view reads the same; the run's counts are the service's answers, untouched.
    const rows = await rowsOf(h, id);
    expect(rows.map((r) => Boolean(r.excluded))).toEqual([false, true, false]);
    expect((await summaryOf(h, id)).runs[0]?.counts).toEqual(before.runs[0]?.counts);

    // The export keeps the line, marked beside its outcome, and says why, by whom and when at the end.
    const csv = await csvOf(h, id);
    expect(csv.map((r) => r.proplens_source_row)).toEqual(['2', '3', '4']);
    expect(csv.map((r) => r.proplens_excluded)).toEqual(['false', 'true', 'false']);
    expect(Object.keys(csv[0] ?? {}).indexOf('proplens_excluded')).toBe(
      Object.keys(csv[0] ?? {}).indexOf('proplens_outcome') + 1,
    );
    expect(csv[1]).toMatchObject({
      proplens_excluded_reason: 'Not an address: a sign-off',
      proplens_excluded_by: fingerprint('pi_demo_professional_2'),
    });

    const back = await rowOf(await include(h, id, 1));
    expect(back.excluded).toBeUndefined();
    expect(back.outcome).toBe(marked.outcome);
    const after = await csvOf(h, id);
    expect(Object.keys(after[0] ?? {})).not.toContain('proplens_excluded');

    const trail = await db.database.db
      .selectFrom('audit_entries')
      .select(['kind', 'query', 'row_index', 'key_fingerprint', 'outcome'])
      .where('review_id', '=', id)
      .where('kind', 'in', ['review_row_excluded', 'review_row_included'])
      .orderBy('id')
      .execute();
    expect(trail).toEqual([
      {
        kind: 'review_row_excluded',
        query: 'Not an address: a sign-off',
        row_index: 1,
        key_fingerprint: fingerprint('pi_demo_professional_2'),
        outcome: 'ok',
      },
      {
        kind: 'review_row_included',
        query: null,
        row_index: 1,
        key_fingerprint: fingerprint('pi_demo_professional_2'),
        outcome: 'ok',
      },
    ]);
  });

  it('never looks up a row excluded before it was asked, and asks it once included again', async () => {
    const h = db.make({ cacheTtlMs: 0 });
    await h.signIn();
    const id = await review(h, [MATCHED, NOWHERE]);
    // The worker has not started: both rows wait. Excluding one takes it out of the run.
    const out = await rowOf(await exclude(h, id, 1));
    expect(out).toMatchObject({ outcome: 'not_asked', excluded: { reason: '' } });
    expect((await summaryOf(h, id)).runs[0]?.counts).toMatchObject({ total: 2, done: 1 });

    h.reviews?.worker.start();
    await finished(h, id);
    expect(asked(h, NOWHERE)).toBe(0);
    expect(asked(h, MATCHED)).toBe(1);
    expect((await rowsOf(h, id)).map((r) => r.outcome)).toEqual(['matched', 'not_asked']);

    // Included again: the finished run runs again for it, and it is asked.
    const back = await rowOf(await include(h, id, 1));
    expect(back).toMatchObject({ outcome: 'pending' });
    expect((await summaryOf(h, id)).status).toBe('running');
    await finished(h, id);
    expect(asked(h, NOWHERE)).toBe(1);
    const rows = await rowsOf(h, id);
    expect(rows.map((r) => r.outcome)).toEqual(['matched', 'not_found']);
    expect((await summaryOf(h, id)).runs[0]?.counts).toMatchObject({ total: 2, done: 2, notFound: 1 });
  });

  it('finishes the run when the last row waiting is excluded', async () => {
    const h = db.make();
    await h.signIn();
    const id = await review(h, [NOWHERE]);
    await rowOf(await exclude(h, id, 0, { reason: 'Office' }));
    const s = await summaryOf(h, id);
    expect(s.status).toBe('done');
    expect(s.runs[0]?.counts).toMatchObject({ total: 1, done: 1 });
  });

  it('leaves excluded rows out of Check again: not asked, counted done, still marked', async () => {
    const h = db.make({ cacheTtlMs: 0 });
    await h.signIn();
    const id = await review(h, [MATCHED, NOWHERE]);
    h.reviews?.worker.start();
    await finished(h, id);
    await rowOf(await exclude(h, id, 1, { reason: 'Sold' }));
    const again = await h.call(`/api/reviews/${id}/runs`, { method: 'POST' });
    expect(again.status, await again.clone().text()).toBe(201);
    expect(ReviewSummary.parse(await again.json()).runs[1]?.counts).toMatchObject({ total: 2, done: 1 });
    await finished(h, id, 2);
    expect(asked(h, NOWHERE)).toBe(1);
    expect(asked(h, MATCHED)).toBe(2);
    const rows = await rowsOf(h, id, 2);
    expect(rows[1]).toMatchObject({ outcome: 'not_asked', excluded: { reason: 'Sold' } });
    expect(rows[1]?.previous).toBeUndefined();
    // The first run's answer of the row stands, for anyone who reads that run.
    expect((await rowsOf(h, id, 1))[1]).toMatchObject({ outcome: 'not_found', excluded: { reason: 'Sold' } });
    const csv = await csvOf(h, id, 2);
    expect(csv[1]).toMatchObject({ proplens_outcome: 'not_asked', proplens_excluded: 'true' });
  });

  it('refuses what it cannot do, in words, and changes nothing', async () => {
    const h = db.make();
    await h.signIn();
    const id = await review(h, [NOWHERE]);
    expect(await refusal(await exclude(h, id, 1))).toMatchObject({
      status: 404,
      message: 'This review has no such row.',
    });
    expect(await refusal(await exclude(h, id, 'x'))).toMatchObject({ status: 404 });
    expect(await refusal(await exclude(h, 'nope', 0))).toMatchObject({
      status: 404,
      message: 'There is no such review in this account.',
    });
    expect(await refusal(await exclude(h, id, 0, { reason: 'x'.repeat(501) }))).toMatchObject({
      status: 400,
      message: 'A reason is at most 500 characters.',
    });
    expect(await refusal(await exclude(h, id, 0, { reason: 'a\u0000b' }))).toMatchObject({ status: 400 });
    // Another account's review is not there.
    await h.signIn('pi_demo_enterprise');
    expect(await refusal(await exclude(h, id, 0))).toMatchObject({ status: 404 });
    await h.signIn();
    expect((await rowsOf(h, id))[0]?.excluded).toBeUndefined();
    // A row of an upload not finished is refused until it is in.
    const made = await h.call('/api/reviews', {
      method: 'POST',
      body: { clientToken: 'upload-not-done-1', name: 'Half', kind: 'paste', columns: [], totalRows: 3 },
    });
    const half = ReviewSummary.parse(await made.json()).id;
    expect(await refusal(await exclude(h, half, 2))).toMatchObject({ status: 409 });
  });
});
