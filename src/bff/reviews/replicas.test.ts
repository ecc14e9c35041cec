import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { ReviewSummary, SearchResponse } from '../../contract/index.ts';
import { type Database, openDatabase } from '../db/database.ts';
import { createHarness } from '../test-support/harness.ts';
import { PostgresServer, postgresAvailable } from '../test-support/postgres-process.ts';

/*
 * Two BFF replicas on one PostgreSQL: every row is worked by one of them at a time, and when one dies mid-review
 * (its worker stops with rows in hand, as a kill -9 would leave them) the other takes its rows once the
 * leases run out, and the review ends with every row holding exactly one outcome.
 */
describe.skipIf(!postgresAvailable())('durable reviews on two replicas', () => {
  let server: PostgresServer;
  let dbA: Database;
  let dbB: Database;
  beforeAll(async () => {
    server = await PostgresServer.start();
    dbA = await openDatabase({ url: server.url, dir: '' });
    dbB = await openDatabase({ url: server.url, dir: '' });
  }, 60_000);
  afterAll(async () => {
    await dbA?.close();
    await dbB?.close();
    await server?.destroy();
  });

  it('work each row once between them, and the survivor finishes the rows of a replica that died', async () => {
    const a = createHarness({ database: dbA, leaseMs: 1_000 });
    const b = createHarness({ database: dbB, leaseMs: 1_000 });
    await a.signIn('pi_demo_professional');
    await b.signIn('pi_demo_professional_2');
    const page = SearchResponse.parse(await (await a.call('/api/properties/search?q=main')).json());
    let addresses = [...new Set(page.items.filter((p) => !p.attributes.unit).map((p) => p.address))];
    const more = SearchResponse.parse(await (await a.call('/api/properties/search?q=oak')).json());
    addresses = [
      ...new Set([...addresses, ...more.items.filter((p) => !p.attributes.unit).map((p) => p.address)]),
    ].slice(0, 24);
    expect(addresses.length).toBeGreaterThanOrEqual(16);
    const created = await a.call('/api/reviews', {
      method: 'POST',
      body: {
        clientToken: 'replicas-1',
        name: 'Two replicas',
        kind: 'paste',
        columns: [],
        totalRows: addresses.length,
      },
    });
    const review = ReviewSummary.parse(await created.json());
    await a.call(`/api/reviews/${review.id}/chunks`, {
      method: 'PUT',
      body: { index: 0, firstRow: 0, rows: addresses.map((address) => ({ address })), last: true },
    });
    const before = a.upstreamRequests.length + b.upstreamRequests.length;
    a.reviews?.worker.start();
    b.reviews?.worker.start();
    // Replica A dies once a few rows are in.
    await vi.waitFor(
      async () => {
        const s = ReviewSummary.parse(await (await b.call(`/api/reviews/${review.id}`)).json());
        expect(s.runs[0]?.counts.done).toBeGreaterThanOrEqual(3);
      },
      { timeout: 20_000, interval: 10 },
    );
    await a.reviews?.worker.stop();
    const done = await vi.waitFor(
      async () => {
        const s = ReviewSummary.parse(await (await b.call(`/api/reviews/${review.id}`)).json());
        expect(s.status).toBe('done');
        return s;
      },
      { timeout: 30_000, interval: 50 },
    );
    await b.reviews?.worker.stop();
    expect(done.runs[0]?.counts).toMatchObject({
      total: addresses.length,
      done: addresses.length,
      matched: addresses.length,
    });
    const results = await dbB.db
      .selectFrom('review_results')
      .select(['row_index', 'state'])
      .where('review_id', '=', review.id)
      .execute();
    expect(results).toHaveLength(addresses.length);
    expect(results.every((r) => r.state === 'done')).toBe(true);
    // Only rows A had in hand when it died can have been asked twice (8 at most: its concurrency).
    const asked = a.upstreamRequests.length + b.upstreamRequests.length - before;
    expect(asked).toBeGreaterThanOrEqual(addresses.length);
    expect(asked).toBeLessThanOrEqual(addresses.length + 8);
  }, 60_000);
});
