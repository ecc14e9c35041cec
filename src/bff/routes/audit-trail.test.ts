import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import {
  ApiErrorBody,
  type AuditEntry,
  AuditResponse,
  ReviewSummary,
  SearchResponse,
} from '../../contract/index.ts';
import { openDatabase } from '../db/database.ts';
import { auditEntry } from '../test-support/audit-entry.ts';
import { createHarness } from '../test-support/harness.ts';
import { tempDatabaseAll } from '../test-support/temp-database.ts';

type Harness = ReturnType<typeof createHarness>;

const temp = tempDatabaseAll('audit');

const activity = async (h: Harness, query = '') => {
  await h.auditTrail?.writer.flush();
  const res = await h.call(`/api/activity${query}`);
  expect(res.status).toBe(200);
  return AuditResponse.parse(await res.json());
};

async function firstAddress(h: Harness): Promise<string> {
  const page = SearchResponse.parse(await (await h.call('/api/properties/search?q=oak')).json());
  const found = page.items.find((p) => !p.attributes.unit)?.address;
  if (!found) throw new Error('no address in the test data');
  return found;
}

describe('the audit trail', () => {
  it('records every kind of lookup once, with what it said, and never the key or the cookie', async () => {
    const h = createHarness({ database: temp.database });
    const refused = await h.signIn('pi_demo_starter');
    expect(refused.status).toBe(403);
    await h.signIn('pi_demo_professional');
    const address = await firstAddress(h); // a search
    expect((await h.resolve(address)).status).toBe(200);
    expect((await h.resolve(address.toUpperCase())).status).toBe(200); // the cache answers
    // Not found is an answer (200), and the trail still records it as not_found.
    const nowhere = await h.resolve('99999 Nowhere Lane, Atlantis, ZZ 00000');
    expect(nowhere.status).toBe(200);
    expect(((await nowhere.json()) as { miss: { code: string } }).miss.code).toBe('not_found');
    expect(
      (await h.call('/api/properties/search?q=main', { headers: { 'X-PropLens-Lane': 'review' } })).status,
    ).toBe(200);
    const { entries } = await activity(h);
    expect(entries.map((e) => [e.kind, e.outcome])).toEqual([
      ['area_page', 'listed'],
      ['resolve', 'not_found'],
      ['resolve', 'matched'],
      ['resolve', 'matched'],
      ['search', 'listed'],
      ['sign_in', 'ok'],
    ]);
    const [, , cached, fetched] = entries as AuditEntry[];
    expect(fetched).toMatchObject({
      query: address,
      cached: false,
      cachedAt: null,
      source: expect.any(String),
      confidence: expect.stringMatching(/high|medium|low/),
    });
    expect(cached).toMatchObject({
      cached: true,
      propertyId: fetched?.propertyId,
      cachedAt: expect.any(String),
    });
    expect(entries.every((e) => /^[0-9a-f]{8}$/.test(e.keyFingerprint))).toBe(true);
    // Every entry names this one session (by its audit ref): not one of them may have lost it.
    expect(entries.map((e) => e.session)).toEqual(entries.map(() => entries[0]?.session));
    expect(entries[0]?.session).toEqual(expect.any(String));
    const text = JSON.stringify(entries);
    expect(text).not.toContain('pi_demo');
    expect(text).not.toContain(h.cookie.split('=')[1]);
    // The refused sign-in is the refused key's own, not this account's.
    expect(entries.some((e) => e.kind === 'sign_in_refused')).toBe(false);
  });

  it('records each review row with its review and row, and sign-out', async () => {
    const h = createHarness({ database: temp.database });
    await h.signIn('pi_demo_enterprise');
    const address = await firstAddress(h);
    const created = ReviewSummary.parse(
      await (
        await h.call('/api/reviews', {
          method: 'POST',
          body: { clientToken: 'audit-review-1', name: 'Audited', kind: 'paste', columns: [], totalRows: 1 },
        })
      ).json(),
    );
    await h.call(`/api/reviews/${created.id}/chunks`, {
      method: 'PUT',
      body: { index: 0, firstRow: 0, rows: [{ address }], last: true },
    });
    h.reviews?.worker.start();
    await vi.waitFor(async () => expect((await activity(h)).entries[0]?.kind).toBe('review_row'), {
      timeout: 10_000,
      interval: 20,
    });
    await h.reviews?.worker.stop();
    expect((await activity(h)).entries[0]).toMatchObject({
      reviewId: created.id,
      row: 0,
      outcome: 'matched',
      query: address,
    });
    const history = await activity(
      h,
      `?propertyId=${encodeURIComponent((await activity(h)).entries[0]?.propertyId ?? '')}`,
    );
    expect(history.entries.length).toBeGreaterThanOrEqual(1);
    expect(history.entries.every((e) => e.propertyId === history.entries[0]?.propertyId)).toBe(true);
    const before = (await activity(h)).entries.length;
    const mine = h.cookie;
    await h.call('/api/session', { method: 'DELETE' });
    await h.signIn('pi_demo_enterprise');
    const after = await activity(h);
    expect(after.entries.slice(0, 2).map((e) => e.kind)).toEqual(['sign_in', 'sign_out']);
    expect(after.entries.length).toBe(before + 2);
    expect(mine).not.toBe(h.cookie);
  });

  it('shows an account its own entries only, pages newest first by cursor, filters, and refuses bad filters', async () => {
    const h = createHarness({ database: temp.database });
    await h.signIn('pi_demo_professional');
    for (const q of ['alpha', 'beta', 'gamma', '=cmd|calc'])
      await h.call(`/api/properties/search?q=${encodeURIComponent(q)}`);
    const all = await activity(h, '?limit=2');
    expect(all.entries).toHaveLength(2);
    expect(all.nextCursor).not.toBeNull();
    const older = await activity(h, `?limit=2&cursor=${all.nextCursor}`);
    expect(Number(older.entries[0]?.id)).toBeLessThan(Number(all.entries[1]?.id));
    expect((await activity(h, '?q=gamma')).entries.map((e) => e.query)).toEqual(['gamma']);
    expect((await activity(h, '?outcome=not_found')).entries.every((e) => e.outcome === 'not_found')).toBe(
      true,
    );
    const key = all.entries[0]?.keyFingerprint ?? '';
    expect((await activity(h, `?key=${key}`)).entries.length).toBeGreaterThan(0);
    expect((await activity(h, '?key=00000000')).entries).toEqual([]);
    // What the table shows works too (review finding R24): the label, or the name alone in any case.
    await h.call('/api/session/name', { method: 'PUT', body: { name: 'Dana Ortiz' } });
    for (const shown of [`KEY ${key.toUpperCase()}`, `Dana Ortiz (key ${key})`, 'dana ortiz'])
      expect((await activity(h, `?key=${encodeURIComponent(shown)}`)).entries.length, shown).toBeGreaterThan(
        0,
      );
    const nobody = await h.call(`/api/activity?key=${encodeURIComponent('Sam Nobody')}`);
    expect(nobody.status).toBe(400);
    expect(ApiErrorBody.parse(await nobody.json()).error.message).toContain(
      'no key of this account is named',
    );
    for (const [query, message] of [
      ['?from=1999-01-01', /from: a date from 2000/],
      ['?cursor=abc', /cursor/],
      [`?q=${'x'.repeat(10_000)}`, /q: at most 200/],
      ['?outcome=bribed', /outcome|Invalid/],
    ] as const) {
      const res = await h.call(`/api/activity${query}`);
      expect(res.status).toBe(400);
      expect(ApiErrorBody.parse(await res.json()).error.message).toMatch(message);
    }
    // The export streams CSV with formulas neutralised.
    const bytes = Buffer.from(await (await h.call('/api/activity/export.csv?q=cmd')).arrayBuffer());
    expect([...bytes.subarray(0, 3)]).toEqual([0xef, 0xbb, 0xbf]); // a BOM, for Excel
    const csv = bytes.subarray(3).toString('utf8');
    expect(csv.split('\r\n')[0]).toBe(
      'time,kind,key,session,asked,outcome,property_id,source,confidence,last_verified,cached,cached_at,review_id,row,review_owner,key_name,review_owner_name',
    );
    expect(csv).toContain("'=cmd|calc");
    // Another account: nothing of this one.
    h.cookie = '';
    await h.signIn('pi_demo_enterprise');
    expect((await activity(h, '?q=gamma')).entries).toEqual([]);
  });

  it('shows the lookup just made at once (the page reads its own writes)', async () => {
    const h = createHarness({ database: temp.database });
    await h.signIn('pi_demo_professional');
    const address = await firstAddress(h);
    await h.resolve(address);
    const res = await h.call('/api/activity?limit=1');
    expect(AuditResponse.parse(await res.json()).entries[0]).toMatchObject({
      kind: 'resolve',
      query: address,
    });
  });

  it('has no way to change an entry: only GET answers', async () => {
    const h = createHarness({ database: temp.database });
    await h.signIn();
    for (const method of ['POST', 'PUT', 'PATCH', 'DELETE']) {
      const res = await h.call('/api/activity', { method, body: {} });
      expect([404, 405]).toContain(res.status);
    }
  });

  it('removes only entries past the retention', async () => {
    // A trail of its own: retention cuts the chain's start (the oldest entries in id order, ADR 014), so the old
    // entry must be among the first written, as it is in a trail written as time goes by.
    const dir = mkdtempSync(join(tmpdir(), 'proplens-retention-'));
    const own = await openDatabase({ dir });
    try {
      const h = createHarness({ database: own });
      const trail = h.auditTrail;
      if (!trail) throw new Error('no trail');
      const day = 86_400_000;
      const base = { account_id: 'retention', key_fingerprint: 'fp' };
      await trail.store.append([
        auditEntry({ ...base, at: Date.now() - 400 * day, query: 'old' }),
        auditEntry({ ...base, at: Date.now() - 10 * day, query: 'recent' }),
      ]);
      expect(await trail.sweep()).toBe(1);
      const left = await trail.store.page('retention', {}, null, 10);
      expect(left.map((e) => e.query)).toEqual(['recent']);
    } finally {
      await own.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
