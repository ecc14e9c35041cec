import { sql } from 'kysely';
import { describe, expect, it, vi } from 'vitest';
import { ApiErrorBody, ReviewRowsResponse, ReviewSummary, SearchResponse } from '../../contract/index.ts';
import { reviewDatabase } from '../test-support/review-database.ts';

/*
 * "An answer leaves the BFF only after its entry is committed": each test reads the database itself the moment
 * an answer arrives, never waiting for the writer, so an entry still held in memory fails it.
 */
const db = reviewDatabase('audit-commit');

async function committed(kind?: string) {
  const { db: kysely } = db.database;
  let q = kysely.selectFrom('audit_entries').select(['kind', 'outcome', 'query', 'review_id', 'row_index']);
  if (kind) q = q.where('kind', '=', kind);
  return q.orderBy('id').execute();
}

describe('the audit trail is committed before the answer', () => {
  it('for sign-ins (refused too), lookups of every outcome, cached hits, and sign-outs', async () => {
    const h = db.make();
    const before = (await committed()).length;
    expect((await h.signIn('pi_demo_starter')).status).toBe(403);
    expect((await committed()).slice(before).map((e) => e.outcome)).toEqual(['refused']);
    expect((await h.signIn()).status).toBe(200);
    expect((await committed()).at(-1)).toMatchObject({ kind: 'sign_in', outcome: 'ok' });
    const page = SearchResponse.parse(await (await h.call('/api/properties/search?q=oak')).json());
    expect((await committed()).at(-1)).toMatchObject({ kind: 'search', outcome: 'listed', query: 'oak' });
    const address = page.items[0]?.address as string;
    for (const outcome of ['matched', 'matched'] as const) {
      expect((await h.resolve(address)).status).toBe(200);
      expect((await committed()).at(-1)).toMatchObject({ kind: 'resolve', outcome, query: address });
    }
    expect((await h.resolve('99999 Nowhere Lane, Atlantis, ZZ 00000')).status).toBe(200);
    expect((await committed()).at(-1)).toMatchObject({ outcome: 'not_found' });
    expect((await h.call('/api/session', { method: 'DELETE' })).status).toBe(204);
    expect((await committed()).at(-1)).toMatchObject({ kind: 'sign_out', outcome: 'ok' });
    expect((await committed()).length).toBe(before + 7);
  });

  it('for concurrent lookups, which share transactions: every answer has its entry', async () => {
    const h = db.make({ rateLimit: { requests: 10_000, seconds: 60 } });
    await h.signIn('pi_demo_enterprise');
    const queries = Array.from({ length: 60 }, (_, i) => `${i + 1} Committed Test Way, Nowhere, ZZ`);
    const store = h.auditTrail?.store;
    if (!store) throw new Error('no audit trail');
    const writes = vi.spyOn(store, 'append');
    const answers = await Promise.all(
      queries.map(async (q) => {
        const res = await h.resolve(q);
        // Read at the moment this one answer arrives, while others are still in flight.
        const rows = await committed('resolve');
        return { status: res.status, kept: rows.some((r) => r.query === q) };
      }),
    );
    expect(answers.every((a) => a.status === 200 && a.kept)).toBe(true);
    // Grouped: far fewer transactions than lookups.
    const auditWrites = writes.mock.calls.filter(([entries]) =>
      entries.some((e) => e.kind === 'resolve'),
    ).length;
    expect(auditWrites).toBeGreaterThan(0);
    expect(auditWrites).toBeLessThan(queries.length);
    writes.mockRestore();
  });

  it('for each review row: a row shows as answered only once its lookup is on record', async () => {
    const h = db.make({ rateLimit: { requests: 10_000, seconds: 60 } });
    await h.signIn('pi_demo_enterprise');
    const page = SearchResponse.parse(await (await h.call('/api/properties/search?q=oak')).json());
    const addresses = [...new Set(page.items.map((p) => p.address))].slice(0, 3);
    expect(addresses).toHaveLength(3);
    const review = ReviewSummary.parse(
      await (
        await h.call('/api/reviews', {
          method: 'POST',
          body: { clientToken: 'commit-1', name: 'Committed', kind: 'paste', columns: [], totalRows: 3 },
        })
      ).json(),
    );
    await h.call(`/api/reviews/${review.id}/chunks`, {
      method: 'PUT',
      body: { index: 0, firstRow: 0, rows: addresses.map((address) => ({ address })), last: true },
    });
    // A slow database: a row answered before its entry is in would show in the gap.
    const store = h.auditTrail?.store;
    if (!store) throw new Error('no audit trail');
    const append = store.append.bind(store);
    vi.spyOn(store, 'append').mockImplementation(async (entries) => {
      await new Promise((go) => setTimeout(go, 50));
      await append(entries);
    });
    h.reviews?.worker.start();
    const seen = new Set<number>();
    const unrecorded = new Set<number>();
    await vi.waitFor(
      async () => {
        const rows = ReviewRowsResponse.parse(await (await h.call(`/api/reviews/${review.id}/rows`)).json());
        const entries = await committed('review_row');
        for (const r of rows.rows.filter((x) => x.outcome !== 'pending')) {
          if (!entries.some((e) => e.review_id === review.id && e.row_index === r.index))
            unrecorded.add(r.index);
          seen.add(r.index);
        }
        expect(seen.size).toBe(3);
      },
      { timeout: 10_000, interval: 5 },
    );
    expect([...unrecorded]).toEqual([]);
  }, 15_000);

  it('refuses a lookup whose entry could not be committed, then asks nothing upstream until it can', async () => {
    const h = db.make();
    await h.signIn();
    const { db: kysely } = db.database;
    await sql`alter table audit_entries rename to audit_entries_away`.execute(kysely);
    try {
      const asked = h.upstreamRequests.length;
      const refused = await h.resolve('1 Refused Test Way, Nowhere, ZZ');
      expect(refused.status).toBe(503);
      expect(ApiErrorBody.parse(await refused.json()).error.code).toBe('audit_unavailable');
      expect(h.upstreamRequests.length).toBe(asked + 1);
      // Known to be failing: the next lookup is refused before it is made.
      expect((await h.resolve('2 Refused Test Way, Nowhere, ZZ')).status).toBe(503);
      expect(h.upstreamRequests.length).toBe(asked + 1);
      expect((await h.call('/readyz')).status).toBe(503);
    } finally {
      await sql`alter table audit_entries_away rename to audit_entries`.execute(kysely);
    }
    await vi.waitFor(async () => expect((await h.resolve('3 Kept Test Way, Nowhere, ZZ')).status).toBe(200), {
      timeout: 5_000,
      interval: 100,
    });
    expect((await committed()).at(-1)).toMatchObject({ query: '3 Kept Test Way, Nowhere, ZZ' });
    expect((await committed()).some((e) => e.query?.includes('Refused'))).toBe(false);
  });

  it('ends a session at sign-out even when the trail cannot take the entry: a sign-out never fails open', async () => {
    const h = db.make();
    await h.signIn();
    const cookie = h.cookie;
    const { db: kysely } = db.database;
    await sql`alter table audit_entries rename to audit_entries_away`.execute(kysely);
    try {
      const out = await h.call('/api/session', { method: 'DELETE' });
      expect(out.status).toBe(204);
      expect(out.headers.get('set-cookie')).toMatch(/Max-Age=0/i);
    } finally {
      await sql`alter table audit_entries_away rename to audit_entries`.execute(kysely);
    }
    const after = await h.call('/api/session', { headers: { Cookie: cookie } });
    expect(after.status).toBe(401);
    expect(h.logs.some((l) => l.includes('sign-out not recorded in the audit trail'))).toBe(true);
  });

  it('puts a review row back, spending no attempt, while its lookup cannot be put on record: never a false failure', async () => {
    const h = db.make({ rateLimit: { requests: 10_000, seconds: 60 } });
    await h.signIn('pi_demo_enterprise');
    const page = SearchResponse.parse(await (await h.call('/api/properties/search?q=oak')).json());
    const addresses = page.items.slice(0, 3).map((p) => p.address);
    const review = ReviewSummary.parse(
      await (
        await h.call('/api/reviews', {
          method: 'POST',
          body: { clientToken: 'commit-away', name: 'Away', kind: 'paste', columns: [], totalRows: 3 },
        })
      ).json(),
    );
    await h.call(`/api/reviews/${review.id}/chunks`, {
      method: 'PUT',
      body: { index: 0, firstRow: 0, rows: addresses.map((address) => ({ address })), last: true },
    });
    const { db: kysely } = db.database;
    const rows = async () =>
      ReviewRowsResponse.parse(await (await h.call(`/api/reviews/${review.id}/rows`)).json()).rows;
    const tries = vi.spyOn(h.graph.lookups, 'resolve');
    await sql`alter table audit_entries rename to audit_entries_away`.execute(kysely);
    try {
      h.reviews?.worker.start();
      // Each row tried and refused again and again, past the five attempts a failing row is given.
      await vi.waitFor(() => expect(tries.mock.calls.length).toBeGreaterThan(3 * 6), { timeout: 10_000 });
      expect((await rows()).map((r) => r.outcome)).toEqual(['pending', 'pending', 'pending']);
      const attempts = await kysely
        .selectFrom('review_results')
        .select('attempts')
        .where('review_id', '=', review.id)
        .execute();
      expect(attempts.map((a) => a.attempts)).toEqual([0, 0, 0]);
    } finally {
      await sql`alter table audit_entries_away rename to audit_entries`.execute(kysely);
    }
    await vi.waitFor(
      async () => expect((await rows()).map((r) => r.outcome)).toEqual(['matched', 'matched', 'matched']),
      { timeout: 10_000, interval: 50 },
    );
  }, 20_000);
});
