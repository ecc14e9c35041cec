import Papa from 'papaparse';
import { describe, expect, it, vi } from 'vitest';
import {
  ApiErrorBody,
  AuditResponse,
  BulkDecisionResponse,
  ReviewRowResult,
  ReviewRowsResponse,
  ReviewSummary,
  RowDecisionHistory,
} from '../../contract/index.ts';
import { DEMO_KEYS } from '../../reference/accounts.ts';
import { hashKey, keyFingerprint } from '../stores/sessions/types.ts';
import { type Harness, reviewDatabase } from '../test-support/review-database.ts';

/*
 * Decisions on rows and sign-off over HTTP (issue 30): a reviewer accepts, rejects or flags each row (singly or
 * many at once), signs the review off, and a colleague's key approves it; every step is in the Activity trail,
 * the export carries the decisions with the keys' names, and what cannot be done is refused in words.
 */

const db = reviewDatabase('review-decisions');
const DANA = 'pi_demo_professional';
const BOB = 'pi_demo_professional_2';
const fingerprint = (key: string) => keyFingerprint(hashKey(key));

async function finishedReview(h: Harness, addresses: string[]): Promise<string> {
  const made = await h.call('/api/reviews', {
    method: 'POST',
    body: {
      clientToken: `t${Math.random().toString(36).slice(2, 14)}`,
      name: 'Collateral',
      kind: 'paste',
      columns: [],
      totalRows: addresses.length,
    },
  });
  const { id } = ReviewSummary.parse(await made.json());
  const rows = addresses.map((address, i) => ({ address, sourceRow: i + 1 }));
  await h.call(`/api/reviews/${id}/chunks`, {
    method: 'PUT',
    body: { index: 0, firstRow: 0, rows, last: true },
  });
  h.reviews?.worker.start();
  await vi.waitFor(
    async () => {
      const s = ReviewSummary.parse(await (await h.call(`/api/reviews/${id}`)).json());
      expect(s.runs[0]?.finishedAt).toBeTruthy();
    },
    { timeout: 10_000, interval: 20 },
  );
  return id;
}

/** Signs in with `key` (and a name), keeping each key's cookie to switch between them. */
async function as(h: Harness, key: string, name?: string): Promise<string> {
  h.cookie = '';
  const res = await h.call('/api/session', {
    method: 'POST',
    body: { apiKey: key, ...(name ? { name } : {}) },
  });
  expect(res.status).toBe(200);
  return h.cookie;
}
const decide = (h: Harness, id: string, index: number | string, body: unknown) =>
  h.call(`/api/reviews/${id}/rows/${index}/decision`, { method: 'PUT', body });
async function ok<T>(res: Response, schema: { parse(v: unknown): T }): Promise<T> {
  expect(res.status, await res.clone().text()).toBe(200);
  return schema.parse(await res.json());
}
async function refusal(res: Response) {
  return { status: res.status, message: ApiErrorBody.parse(await res.json()).error.message };
}
async function csvOf(h: Harness, id: string) {
  const text = (await (await h.call(`/api/reviews/${id}/export.csv`)).text()).replace(/^\ufeff/, '');
  return Papa.parse<Record<string, string>>(text, { header: true, skipEmptyLines: true }).data;
}

describe('decisions on rows, sign-off and approval', () => {
  it('decides rows singly and many at once, keeps each row’s history, and exports them with the keys’ names', async () => {
    const h = db.make();
    const bob = await as(h, BOB, 'Bob Brown');
    const dana = await as(h, DANA, 'Dana Ortiz');
    const id = await finishedReview(h, ['1 Main St', '2 Main St', '3 Main St', '4 Main St']);

    const row = await ok(
      await decide(h, id, 0, { decision: 'accept', note: '  Checked deed  ' }),
      ReviewRowResult,
    );
    expect(row.decision).toMatchObject({ decision: 'accept', note: 'Checked deed', by: fingerprint(DANA) });
    h.cookie = bob;
    await ok(await decide(h, id, 0, { decision: 'follow_up', note: 'Site visit' }), ReviewRowResult);
    const history = await ok(await h.call(`/api/reviews/${id}/rows/0/decisions`), RowDecisionHistory);
    expect(history.history.map((s) => [s.decision, s.note, s.by])).toEqual([
      ['accept', 'Checked deed', fingerprint(DANA)],
      ['follow_up', 'Site visit', fingerprint(BOB)],
    ]);

    const bulk = await h.call(`/api/reviews/${id}/decisions`, {
      method: 'POST',
      body: { rows: [1, 2, 3], decision: 'reject' },
    });
    expect(await ok(bulk, BulkDecisionResponse)).toEqual({ decided: 3 });
    await ok(await h.call(`/api/reviews/${id}/rows/3/decision`, { method: 'DELETE' }), ReviewRowResult);
    const rows = await ok(await h.call(`/api/reviews/${id}/rows`), ReviewRowsResponse);
    expect(rows.rows.map((r) => r.decision?.decision ?? null)).toEqual([
      'follow_up',
      'reject',
      'reject',
      null,
    ]);

    h.cookie = dana;
    const csv = await csvOf(h, id);
    expect(csv[0]).toMatchObject({
      started_by: fingerprint(DANA),
      started_by_name: 'Dana Ortiz',
      decision: 'follow_up',
      decision_note: 'Site visit',
      decided_by: fingerprint(BOB),
      decided_by_name: 'Bob Brown',
    });
    expect(Date.parse(csv[0]?.decided_at ?? '')).not.toBeNaN();
    expect(csv.map((r) => r.decision)).toEqual(['follow_up', 'reject', 'reject', '']);

    // One entry a row changed, by its key, in the trail.
    const trail = await ok(await h.call('/api/activity?limit=50'), AuditResponse);
    const decided = trail.entries.filter((e) => e.kind === 'review_row_decided' && e.reviewId === id);
    expect(decided.map((e) => [e.row, e.query, e.keyFingerprint]).reverse()).toEqual([
      [0, 'accept: Checked deed', fingerprint(DANA)],
      [0, 'follow_up: Site visit', fingerprint(BOB)],
      [1, 'reject', fingerprint(BOB)],
      [2, 'reject', fingerprint(BOB)],
      [3, 'reject', fingerprint(BOB)],
      [3, 'cleared', fingerprint(BOB)],
    ]);
  });

  it('signs off (all decided, or with a reason) and is approved by a colleague’s key, not the one that signed', async () => {
    const h = db.make();
    const bob = await as(h, BOB);
    const dana = await as(h, DANA);
    const id = await finishedReview(h, ['1 Main St', '2 Main St']);
    await ok(await decide(h, id, 0, { decision: 'accept' }), ReviewRowResult);
    const signOff = (body: unknown) => h.call(`/api/reviews/${id}/sign-off`, { method: 'POST', body });
    const approve = () => h.call(`/api/reviews/${id}/approve`, { method: 'POST' });

    expect(await refusal(await signOff({}))).toEqual({
      status: 400,
      message: '1 row has no decision yet: decide it, or give a reason for signing off without.',
    });
    expect((await refusal(await approve())).status).toBe(409);
    const signed = await ok(await signOff({ reason: 'Row 2 waits for the valuer' }), ReviewSummary);
    expect(signed.signOff).toMatchObject({
      by: fingerprint(DANA),
      reason: 'Row 2 waits for the valuer',
      approved: null,
    });
    expect(await refusal(await approve())).toEqual({
      status: 409,
      message:
        'You signed this review off: another key of the account approves it, so two people have looked.',
    });
    h.cookie = bob;
    const approved = await ok(await approve(), ReviewSummary);
    expect(approved.signOff?.approved).toMatchObject({ by: fingerprint(BOB) });
    expect((await refusal(await approve())).message).toBe('This review is approved already.');
    const facts = JSON.parse(await (await h.call(`/api/reviews/${id}/export.json`)).text()).review;
    expect(facts.signOff).toMatchObject({
      by: fingerprint(DANA),
      run: 1,
      approved: { by: fingerprint(BOB) },
    });

    // A decision after the sign-off withdraws it and its approval: what was signed is no longer what is.
    h.cookie = dana;
    await ok(await decide(h, id, 1, { decision: 'reject' }), ReviewRowResult);
    const after = ReviewSummary.parse(await (await h.call(`/api/reviews/${id}`)).json());
    expect(after.signOff ?? null).toBeNull();
    const trail = await ok(await h.call('/api/activity?limit=50'), AuditResponse);
    expect(
      trail.entries
        .filter((e) => e.reviewId === id && e.kind !== 'review_row_decided' && e.kind !== 'review_row')
        .map((e) => [e.kind, e.keyFingerprint])
        .reverse(),
    ).toEqual([
      ['review_signed_off', fingerprint(DANA)],
      ['review_approved', fingerprint(BOB)],
      ['review_sign_off_withdrawn', fingerprint(DANA)],
    ]);
  });

  it('refuses what it cannot do, in words, and changes nothing', async () => {
    const h = db.make();
    await as(h, DANA);
    const id = await finishedReview(h, ['1 Main St']);
    expect((await refusal(await decide(h, id, 0, { decision: 'maybe' }))).status).toBe(400);
    expect(await refusal(await decide(h, id, 0, { decision: 'accept', note: 'x'.repeat(2_001) }))).toEqual({
      status: 400,
      message: 'A note is at most 2,000 characters.',
    });
    expect(await refusal(await decide(h, id, 1, { decision: 'accept' }))).toEqual({
      status: 404,
      message: 'This review has no such row.',
    });
    expect((await refusal(await decide(h, 'rv_nope', 0, { decision: 'accept' }))).status).toBe(404);
    const bulk = await h.call(`/api/reviews/${id}/decisions`, {
      method: 'POST',
      body: { rows: [0, 5], decision: 'accept' },
    });
    expect((await refusal(bulk)).status).toBe(404);
    expect(
      (await ok(await h.call(`/api/reviews/${id}/rows/0/decisions`), RowDecisionHistory)).history,
    ).toEqual([]);
    h.cookie = '';
    expect((await decide(h, id, 0, { decision: 'accept' })).status).toBe(401);
  });

  // Strangers share the public demo account and both its keys. Planted once: without the visitor check, the
  // stranger's approval was taken (200).
  it('lets a demo visitor approve only their own sign-off (their other key, from where they signed in)', async () => {
    const h = db.make({ demoKeys: [...DEMO_KEYS], trustProxy: true });
    const from = (address: string) => ({ 'X-Forwarded-For': address });
    const signIn = async (key: string, address: string) => {
      h.cookie = '';
      const res = await h.call('/api/session', {
        method: 'POST',
        body: { apiKey: key },
        headers: from(address),
      });
      expect(res.status).toBe(200);
      return h.cookie;
    };
    await signIn(DANA, '203.0.113.5');
    const id = await finishedReview(h, ['1 Main St']);
    await ok(await decide(h, id, 0, { decision: 'accept' }), ReviewRowResult);
    const signed = await h.call(`/api/reviews/${id}/sign-off`, {
      method: 'POST',
      body: {},
      headers: from('203.0.113.5'),
    });
    expect((await ok(signed, ReviewSummary)).signOff).toMatchObject({ run: 1, approved: null });
    const approve = (address: string) =>
      h.call(`/api/reviews/${id}/approve`, { method: 'POST', headers: from(address) });

    await signIn(BOB, '198.51.100.7');
    expect(await refusal(await approve('198.51.100.7'))).toEqual({
      status: 409,
      message:
        'Another visitor of the public demo signed this review off: on the demo, you approve only a sign-off of your own visit (sign off with one demo key, approve with the other).',
    });
    await signIn(BOB, '203.0.113.5');
    const approved = await ok(await approve('203.0.113.5'), ReviewSummary);
    expect(approved.signOff?.approved).toBeTruthy();
  });

  it('names in the export only the keys this reader may read: a demo visitor their own', async () => {
    const h = db.make({ demoKeys: [...DEMO_KEYS] });
    await as(h, BOB, 'Bob Brown');
    const id = await finishedReview(h, ['1 Main St', '2 Main St']);
    const bobs = await ok(await decide(h, id, 0, { decision: 'accept' }), ReviewRowResult);
    await as(h, DANA, 'Dana Ortiz');
    const danas = await ok(await decide(h, id, 1, { decision: 'reject' }), ReviewRowResult);
    const csv = await csvOf(h, id);
    // Strangers share the public demo account: Dana reads Bob's key, never the name he gave it.
    expect(csv.map((r) => [r.decided_by, r.decided_by_name, r.started_by_name])).toEqual([
      [bobs.decision?.by, '', ''],
      [danas.decision?.by, 'Dana Ortiz', ''],
    ]);
  });
});
