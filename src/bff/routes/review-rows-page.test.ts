import { sql } from 'kysely';
import { describe, expect, it } from 'vitest';
import {
  ApiErrorBody,
  type Property,
  type ReviewRowResult,
  ReviewRowsResponse,
} from '../../contract/index.ts';
import type { StoredAnswer } from '../reviews/look-up-row.ts';
import { readRowsPage } from '../stores/reviews/rows-page.ts';
import { databaseBackends } from '../test-support/database-backends.ts';
import { createHarness } from '../test-support/harness.ts';
import { type SeedRow, seedReview } from '../test-support/seed-review.ts';

/*
 * GET /api/reviews/:id/rows as the review page reads it (issue 26): `cells=0` leaves each CSV row's own cells
 * out and changes nothing else of a row, and a cursor is a row index, so pages asked side by side from the
 * run's total cover every row once.
 */

const property = (i: number): Property => ({
  id: `prop-${i}`,
  address: `${100 + i} Congress Ave, Austin, TX 78701`,
  source: 'Travis County Assessor',
  sourceKind: 'assessor',
  confidence: i % 2 ? 'high' : 'medium',
  lastVerified: '2026-10-01',
  attributes: { city: 'Austin', state: 'TX', zip: '78701', yearBuilt: 1990 + i, other: { flood_zone: 'AE' } },
});

/** Matched (some corrected), ambiguous with candidates, not found, and one not answered yet. */
function seedRow(i: number): SeedRow {
  const address = `${100 + i} Congres Ave, Austin, TX 78701`;
  const retrievedAt = '2026-11-01T10:00:00.000Z';
  const answer: StoredAnswer | null =
    i % 5 === 4
      ? null
      : i % 5 === 3
        ? {
            outcome: 'ambiguous',
            candidates: [{ id: `c${i}`, address: `${address} (north)` }],
            error: { code: 'ambiguous', message: 'Several.', total: 2 },
            cached: false,
            retrievedAt,
          }
        : i % 5 === 2
          ? {
              outcome: 'not_found',
              error: { code: 'not_found', message: 'No match.' },
              cached: true,
              retrievedAt,
            }
          : {
              outcome: 'matched',
              property: property(i),
              match: {
                typed: address,
                matched: property(i).address,
                changes: [{ kind: 'corrected', part: 'street', typed: 'Congres', matched: 'Congress' }],
                quality: 'corrected',
              },
              cached: false,
              retrievedAt,
            };
  return { address, cells: [`LN-${i}`, address], sourceRow: i + 2, answers: [answer] };
}

const withoutCells = ({ cells: _cells, ...row }: ReviewRowResult) => row;

describe.each(databaseBackends('review-rows-page'))('the rows page on $name', (backend) => {
  async function setUp(total: number) {
    const h = createHarness({ database: backend.database });
    const { accountId } = (await (await h.signIn()).json()) as { accountId: string };
    const id = await seedReview(backend.database, {
      accountId,
      name: 'Loans',
      columns: ['loan_id', 'address'],
      runs: 1,
      total,
      row: seedRow,
    });
    const page = async (query: string) => {
      const res = await h.call(`/api/reviews/${id}/rows?${query}`);
      expect(res.status, await res.clone().text()).toBe(200);
      expect(res.headers.get('content-type')).toMatch(/^application\/json/);
      return ReviewRowsResponse.parse(await res.json());
    };
    return { h, id, page, accountId };
  }

  it('cells=0: every row as the default page gives it, but for its own cells', async () => {
    const { page } = await setUp(10);
    const full = await page('limit=10');
    expect(full.rows.map((r) => r.cells?.[0])).toEqual(Array.from({ length: 10 }, (_, i) => `LN-${i}`));
    const slim = await page('limit=10&cells=0');
    expect(slim.rows.every((r) => r.cells === undefined)).toBe(true);
    expect(slim).toEqual({ ...full, rows: full.rows.map(withoutCells) });
    expect(slim.rows.map((r) => r.outcome)).toEqual([
      ...['matched', 'matched', 'not_found', 'ambiguous', 'pending'],
      ...['matched', 'matched', 'not_found', 'ambiguous', 'pending'],
    ]);
  });

  it('attributes=0: each property cut to its state, the row marked brief; the row alone is whole', async () => {
    const { page } = await setUp(5);
    const full = await page('limit=5&cells=0');
    const brief = await page('limit=5&cells=0&attributes=0');
    expect(brief.rows).toEqual(
      full.rows.map((r) =>
        r.property ? { ...r, brief: true, property: { ...r.property, attributes: { state: 'TX' } } } : r,
      ),
    );
    expect(brief.rows.filter((r) => r.brief).length).toBe(2);
    // A row read alone (as the page does when it is opened) has its whole record.
    const alone = await page('limit=1&cells=0&cursor=0');
    expect(alone.rows).toEqual([full.rows[1]]);
    expect(alone.rows[0]?.property?.attributes).toMatchObject({ city: 'Austin', yearBuilt: 1991 });
  });

  it('the event stream with cells=0&attributes=0 sends the rows as that page gives them (the review page’s live rows)', async () => {
    const { h, id, page } = await setUp(5);
    /** The rows of the stream's first `rows` event: its catch-up of every answered row. */
    const streamed = async (query: string) => {
      const controller = new AbortController();
      const res = await h.call(`/api/reviews/${id}/events${query}`, { signal: controller.signal });
      expect(res.status).toBe(200);
      const reader = res.body?.getReader();
      if (!reader) throw new Error('no body');
      let text = '';
      for (let read = await reader.read(); !read.done; read = await reader.read()) {
        text += new TextDecoder().decode(read.value);
        if (text.includes('event: summary')) break;
      }
      controller.abort();
      const block = text.split('\n\n').find((b) => b.startsWith('event: rows')) ?? '';
      const data =
        block
          .split('\n')
          .find((l) => l.startsWith('data:'))
          ?.slice(5) ?? '{}';
      return (JSON.parse(data) as { rows: ReviewRowResult[] }).rows;
    };
    const answered = (rows: ReviewRowResult[]) => rows.filter((r) => r.seq > 0);
    expect(await streamed('?cells=0&attributes=0')).toEqual(
      answered((await page('limit=5&cells=0&attributes=0')).rows),
    );
    // Without them, as before: each row whole, its cells included.
    const whole = await streamed('');
    expect(whole).toEqual(answered((await page('limit=5')).rows));
    expect(whole.some((r) => r.cells !== undefined && r.property?.attributes.city === 'Austin')).toBe(true);
    const refused = await h.call(`/api/reviews/${id}/events?cells=2`);
    expect(refused.status).toBe(400);
  });

  it('cells=0: a stored answer that does not read as one reads as none, as on the default page', async () => {
    const { page, id } = await setUp(3);
    await sql`update review_results set result = ${'{"outcome":"matched","property":{"id":7}}'} where review_id = ${id} and row_index = 0`.execute(
      backend.database.db,
    );
    await sql`update review_results set result = ${'not json'} where review_id = ${id} and row_index = 1`.execute(
      backend.database.db,
    );
    const full = await page('');
    const slim = await page('cells=0');
    expect(slim.rows.map((r) => [r.outcome, r.property])).toEqual([
      ['pending', undefined],
      ['pending', undefined],
      ['not_found', undefined],
    ]);
    expect(slim.rows).toEqual(full.rows.map(withoutCells));
  });

  it('says where the review’s row sequence stood as the page was read, for the live view to resume from', async () => {
    const { page, id } = await setUp(10);
    expect((await page('limit=3')).lastSeq).toBe(10);
    await sql`update reviews set last_seq = 12 where id = ${id}`.execute(backend.database.db);
    expect((await page('limit=3&cursor=2&cells=0&attributes=0')).lastSeq).toBe(12);
  });

  it('reads where the review stood before its rows: a row answered between the two reads is sent again', async () => {
    const { id, accountId } = await setUp(5); // rows 0-3 answered (sequence 1-5 so far), row 4 waits
    const db = backend.database.db;
    const answer = JSON.stringify({
      outcome: 'not_found',
      error: { code: 'not_found', message: 'No match.' },
    });
    const answerRow4 = async () => {
      // SQLite's one connection is the page's until it returns: the worker's commit goes by the file itself.
      const file = backend.database.sqlite;
      if (file) {
        file.prepare('update reviews set last_seq = last_seq + 1 where id = ?').run(id);
        file
          .prepare(
            `update review_results set state = 'done', result = ?,
              seq = (select last_seq from reviews where id = ?) where review_id = ? and row_index = 4`,
          )
          .run(answer, id, id);
        return;
      }
      await sql`update reviews set last_seq = last_seq + 1 where id = ${id}`.execute(db);
      await sql`update review_results set state = 'done', result = ${answer},
        seq = (select last_seq from reviews where id = ${id}) where review_id = ${id} and row_index = 4`.execute(
        db,
      );
    };
    let reads = 0;
    // The worker answers row 4 the moment the page's first read comes back.
    const racing = db.withPlugin({
      transformQuery: (args) => args.node,
      transformResult: async (args) => {
        if (++reads === 1) await answerRow4();
        return args.result;
      },
    });
    const page = await readRowsPage(racing, accountId, id, { limit: 10 });
    if (!page) throw new Error('no page');
    // Where the review stood before the answer: the live view resuming from it is sent row 4 again.
    expect(page.lastSeq).toBe(5);
    expect(page.rows.find((r) => r.index === 4)?.seq).toBe(6);
  });

  it('cells=0 gives no key the contract does not know, as the default page does not', async () => {
    const { h, id } = await setUp(4);
    // A stored answer with keys of no contract's (written by something other than this BFF).
    const row0 = await backend.database.db
      .selectFrom('review_results')
      .select('result')
      .where('review_id', '=', id)
      .where('row_index', '=', 0)
      .executeTakeFirstOrThrow();
    const planted = JSON.parse(row0.result as string);
    planted.internalNote = 'not for clients';
    planted.property.internalNote = 'not for clients';
    planted.match.internalNote = 'not for clients';
    planted.match.changes[0].internalNote = 'not for clients';
    await sql`update review_results set result = ${JSON.stringify(planted)} where review_id = ${id} and row_index = 0`.execute(
      backend.database.db,
    );
    const raw = async (query: string) => (await h.call(`/api/reviews/${id}/rows?${query}`)).text();
    const slim = await raw('cells=0');
    expect(slim).not.toContain('internalNote');
    expect(await raw('')).not.toContain('internalNote');
    const rows = (JSON.parse(slim) as ReviewRowsResponse).rows;
    expect(rows.map((r) => r.outcome)).toEqual(['matched', 'matched', 'not_found', 'ambiguous']);
    expect(rows[3]?.candidates).toEqual([{ id: 'c3', address: '103 Congres Ave, Austin, TX 78701 (north)' }]);
  });

  it('pages asked side by side from row indexes cover every row once, in order', async () => {
    const { page } = await setUp(23);
    const first = await page('limit=3&cells=0');
    expect(first.nextCursor).toBe('2');
    const rest = await Promise.all([2, 9, 16].map((after) => page(`limit=7&cells=0&cursor=${after}`)));
    expect([first, ...rest].flatMap((p) => p.rows.map((r) => r.index))).toEqual(
      Array.from({ length: 23 }, (_, i) => i),
    );
    expect(rest.map((p) => p.nextCursor)).toEqual(['9', '16', null]);
  });

  it('refuses a cells value other than 0 or 1', async () => {
    const { h, id } = await setUp(1);
    const res = await h.call(`/api/reviews/${id}/rows?cells=no`);
    expect(res.status).toBe(400);
    expect(ApiErrorBody.parse(await res.json()).error.message).toMatch(/^cells: 0/);
  });
});
