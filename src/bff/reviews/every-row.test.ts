import { describe, expect, it, vi } from 'vitest';
import { type ReviewInputRow, SearchResponse } from '../../contract/index.ts';
import { finished, rowsOf, summaryOf, uploadReview } from '../test-support/review-api.ts';
import { type Harness, reviewDatabase } from '../test-support/review-database.ts';

/*
 * Every row of a file stays a row of the review (issue 27): a row with no address is answered no_address without
 * a lookup, or looked up by its parcel number; each keeps its place in the file; and a review's repeats share one
 * lookup even when the cache keeps nothing (CACHE_TTL_S=0), in the first run and in Check again.
 */

const reviews = reviewDatabase('every-row');

/** An assessor export's rows, every row in, not started. */
const startReview = (h: Harness, rows: ReviewInputRow[]) =>
  uploadReview(h, rows, { name: 'Assessor export', kind: 'csv', columns: ['Situs Address', 'APN'] });

/** Lookups the upstream was asked of this text (as an address or a parcel number). */
const asked = (h: Harness, text: string) =>
  h.upstreamRequests.filter((u) =>
    [...u.searchParams.values()].some((v) => v.toLowerCase() === text.toLowerCase()),
  ).length;

describe('a file’s rows, every one kept', () => {
  it('answers a row without an address no_address, looks one up by its parcel, and keeps each row’s place', async () => {
    const h = reviews.make({ cacheTtlMs: 0 });
    await h.signIn();
    const page = SearchResponse.parse(await (await h.call('/api/properties/search?q=main')).json());
    const [first, second] = page.items.filter((p) => !p.attributes.unit && p.attributes.parcelNumber);
    if (!first?.attributes.parcelNumber || !second?.attributes.parcelNumber)
      throw new Error('demo data has parcels');
    const id = await startReview(h, [
      { address: first.address, cells: [first.address, ''], sourceRow: 2 },
      {
        address: '',
        parcel: second.attributes.parcelNumber,
        cells: ['', second.attributes.parcelNumber],
        sourceRow: 3,
      },
      { address: '', cells: ['', ''], sourceRow: 5 },
    ]);
    const before = h.upstreamRequests.length;
    h.reviews?.worker.start();
    await finished(h, id, 1);
    const rows = await rowsOf(h, id);
    expect(rows.map((r) => [r.sourceRow, r.outcome, r.property?.id ?? r.error?.code])).toEqual([
      [2, 'matched', first.id],
      [3, 'matched', second.id],
      [5, 'failed', 'no_address'],
    ]);
    expect(rows[1]?.parcel).toBe(second.attributes.parcelNumber);
    // Two lookups (an address, a parcel): the row with nothing to ask was never sent.
    expect(h.upstreamRequests.length - before).toBe(2);
  });

  it('looks each distinct address up once, however the rows repeat it, with no cache, and again in Check again', async () => {
    // No cache, and one row at a time: no two rows share one request in flight, so only the review's own answers
    // can spare the repeats their lookups.
    const h = reviews.make({ cacheTtlMs: 0, reviewConcurrency: 1 });
    await h.signIn();
    const page = SearchResponse.parse(await (await h.call('/api/properties/search?q=main')).json());
    const [one, two] = page.items.filter((p) => !p.attributes.unit);
    if (!one || !two) throw new Error('demo data has properties');
    const spellings = [one.address, one.address.toUpperCase(), `  ${one.address.replace(/, /g, ' , ')}`];
    const rows: ReviewInputRow[] = [];
    for (let i = 0; i < 30; i++)
      rows.push({ address: i % 3 === 1 ? two.address : (spellings[i % spellings.length] as string) });
    const id = await startReview(h, rows);
    const base = { one: asked(h, one.address), two: asked(h, two.address) };
    h.reviews?.worker.start();
    await finished(h, id, 1);
    const answered = await rowsOf(h, id);
    expect(answered.every((r) => r.outcome === 'matched')).toBe(true);
    expect(new Set(answered.filter((r) => r.index % 3 !== 1).map((r) => r.property?.id))).toEqual(
      new Set([one.id]),
    );
    // The repeats' answers came from the review's own first answer: each address was asked once.
    const firstRun = { one: asked(h, one.address) - base.one, two: asked(h, two.address) - base.two };
    expect(firstRun).toEqual({ one: 1, two: 1 });
    // Every row's answer is on record once, a repeat's too (as cached: the review's own answer, not a lookup).
    const entries = await reviews.database.db
      .selectFrom('audit_entries')
      .select(['row_index', 'cached', 'property_id'])
      .where('review_id', '=', id)
      .execute();
    expect(entries.map((e) => e.row_index).sort((a, b) => Number(a) - Number(b))).toEqual(
      Array.from({ length: 30 }, (_, i) => i),
    );
    const again = await h.call(`/api/reviews/${id}/runs`, { method: 'POST' });
    expect(again.status, await again.clone().text()).toBe(201);
    await finished(h, id, 2);
    const secondRun = {
      one: asked(h, one.address) - base.one - firstRun.one,
      two: asked(h, two.address) - base.two - firstRun.two,
    };
    expect(secondRun).toEqual({ one: 1, two: 1 });
  });
});

describe('repeats next to each other, asked at once', () => {
  it('gives every row one entry of the trail, and says which answers were fetched and which shared', async () => {
    // The server's own settings: many rows asked at once, so a repeat is leased beside its first row.
    const h = reviews.make({ cacheTtlMs: 0 });
    await h.signIn();
    const page = SearchResponse.parse(await (await h.call('/api/properties/search?q=main')).json());
    const distinct = page.items.filter((p) => !p.attributes.unit).slice(0, 10);
    const rows: ReviewInputRow[] = distinct.flatMap((p) => [
      { address: p.address },
      { address: p.address.toUpperCase() },
      { address: p.address.toLowerCase() },
      { address: p.address.replace(/, /g, ' , ') },
    ]);
    const id = await startReview(h, rows);
    const before = h.upstreamRequests.length;
    h.reviews?.worker.start();
    await vi.waitFor(
      async () => {
        const s = await summaryOf(h, id);
        expect(s.runs[0]?.counts, JSON.stringify(s.runs[0]?.counts)).toMatchObject({ done: rows.length });
      },
      { timeout: 25_000, interval: 50 },
    );
    // Each distinct address asked once, whatever its spelling: the first row asks, its repeats wait for it.
    expect(h.upstreamRequests.length - before).toBe(distinct.length);
    const entries = await reviews.database.db
      .selectFrom('audit_entries')
      .select(['row_index', 'cached', 'upstream_request_id'])
      .where('review_id', '=', id)
      .execute();
    const perRow = new Map<number, number>();
    for (const e of entries) perRow.set(Number(e.row_index), (perRow.get(Number(e.row_index)) ?? 0) + 1);
    expect([...perRow.values()].filter((n) => n !== 1)).toEqual([]);
    expect(perRow.size).toBe(rows.length);
    // As many entries say "fetched" as lookups were made; every other row's answer was shared.
    expect(entries.filter((e) => !e.cached).length).toBe(distinct.length);
  }, 30_000);
});
