import { describe, expect, it, vi } from 'vitest';
import { ReviewRowsResponse, ReviewSummary, SearchResponse } from '../contract/index.ts';
import { databaseBackends } from './test-support/database-backends.ts';
import { createHarness } from './test-support/harness.ts';
import type { UpstreamHandler } from './test-support/in-process-upstream.ts';

/*
 * A hostile upstream puts U+0000 in its text. PostgreSQL cannot store it in a text column, so one such record
 * written as it came would fail its audit commit (the lookup refused, and every account's lookups refused while
 * the trail is failing) and its review row for ever. What the BFF reads from the upstream is stripped of control
 * characters (upstream/parse.ts) before anything keeps it: the same answers on both databases.
 */
const backends = databaseBackends('upstream-nul');
const NUL = '\u0000';

const hostile: UpstreamHandler = async (request) => {
  const url = new URL(request.url);
  const json = (body: unknown, status = 200) =>
    new Response(JSON.stringify(body), { status, headers: { 'content-type': 'application/json' } });
  if (url.pathname.endsWith('/auth/me'))
    return json({ account: { name: `Nul${NUL}Co`, plan: 'enterprise' } });
  const record = (id: string) => ({
    id: `${id}${NUL}`,
    address: `1 Main${NUL} St, Austin, TX 78701`,
    source: `County${NUL} Assessor`,
    confidence: 'high',
    last_verified: '2026-10-01',
    [`note${NUL}`]: `x${NUL}`,
  });
  if (url.pathname.endsWith('/properties/search'))
    return json({ data: [record('s1'), record('s2')], next_cursor: `after${NUL}` });
  if ((url.searchParams.get('address') ?? '').includes('missing'))
    return json({ error: { code: 'not_found', message: `nothing${NUL} here` } }, 404);
  return json(record('p1'));
};

describe.each(backends)('an upstream sending U+0000, on $name', (backend) => {
  it('is answered, recorded and kept in reviews without it, never a 500 or a refused trail', async () => {
    const h = createHarness({ database: backend.database, fetch: hostile });
    expect((await h.signIn()).status).toBe(200);
    const resolved = await h.resolve('1 Main St, Austin, TX 78701');
    expect(resolved.status).toBe(200);
    const text = await resolved.text();
    expect(text).not.toContain('\\u0000');
    expect(text).toContain('"source":"County  Assessor"');
    const search = await h.call('/api/properties/search?q=main');
    expect(search.status).toBe(200);
    const page = SearchResponse.parse(await search.json());
    expect(page.items[0]?.source).toBe('County  Assessor');
    expect(JSON.stringify(page)).not.toContain('\\u0000');
    expect((await h.resolve('1 missing St, Austin, TX')).status).toBe(200);
    // The trail took every one of them (a failed commit would have answered 503).
    const kinds = await backend.database.db
      .selectFrom('audit_entries')
      .select(['kind', 'source'])
      .where('key_fingerprint', 'is not', null)
      .orderBy('id', 'desc')
      .limit(3)
      .execute();
    expect(kinds.map((k) => k.kind)).toEqual(['resolve', 'search', 'resolve']);
    expect(kinds[2]?.source).toBe('County  Assessor');

    const review = ReviewSummary.parse(
      await (
        await h.call('/api/reviews', {
          method: 'POST',
          body: { clientToken: `nul-${backend.name}`, name: 'Nul', kind: 'paste', columns: [], totalRows: 2 },
        })
      ).json(),
    );
    await h.call(`/api/reviews/${review.id}/chunks`, {
      method: 'PUT',
      body: {
        index: 0,
        firstRow: 0,
        rows: [{ address: '1 Main St, Austin, TX 78701' }, { address: '1 missing St, Austin, TX' }],
        last: true,
      },
    });
    h.reviews?.worker.start();
    await vi.waitFor(
      async () => {
        const rows = ReviewRowsResponse.parse(await (await h.call(`/api/reviews/${review.id}/rows`)).json());
        expect(rows.rows.map((r) => r.outcome)).toEqual(['matched', 'not_found']);
        expect(rows.rows[0]?.property?.source).toBe('County  Assessor');
        expect(JSON.stringify(rows)).not.toContain('\\u0000');
      },
      { timeout: 10_000, interval: 20 },
    );
    await h.reviews?.worker.stop();
  }, 20_000);
});
