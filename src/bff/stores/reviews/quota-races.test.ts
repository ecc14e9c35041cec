import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ReviewInputRow } from '../../../contract/index.ts';
import { type Database, openDatabase } from '../../db/database.ts';
import { ApiError } from '../../errors.ts';
import { PostgresServer, postgresAvailable } from '../../test-support/postgres-process.ts';
import { pendingRows } from './pending-rows.ts';
import { SqlReviewStore } from './review-store.ts';

/*
 * REVIEW_MAX_PENDING_ROWS raced: on one real PostgreSQL, two replicas' pools (10 connections each) create reviews
 * and check finished ones again for one account at once, round after round. The count and the write are one step
 * per account (pending-rows.ts lockQuota), so the bound holds exactly; counted apart, every request read the same
 * count and most passed it.
 */

const ROUNDS = 8;
const MAX = 50;
const rows = (n: number): ReviewInputRow[] =>
  Array.from({ length: n }, (_, i) => ({ address: `${i} Quota St` }));
const outcome = (settled: PromiseSettledResult<unknown>) =>
  settled.status === 'fulfilled'
    ? 'made'
    : settled.reason instanceof ApiError
      ? settled.reason.code
      : `threw ${String((settled.reason as Error)?.message)}`;

describe.skipIf(!postgresAvailable())('the pending-rows quota raced on PostgreSQL', () => {
  let server: PostgresServer;
  let replicas: Database[] = [];
  const stores = () => replicas.map((d) => new SqlReviewStore(d.db));
  const pick = <T>(list: T[], i: number) => list[i % list.length] as T;

  beforeAll(async () => {
    server = await PostgresServer.start();
    replicas = await Promise.all([0, 1].map(() => openDatabase({ url: server.url, dir: '' })));
  }, 60_000);
  afterAll(async () => {
    await Promise.all(replicas.map((d) => d.close()));
    await server?.destroy();
  });

  it('20 creates of 20 rows at once against a bound of 50: two are made, the rest refused, every round', async () => {
    for (let r = 0; r < ROUNDS; r++) {
      const accountId = `acct-quota-create-${r}`;
      const settled = await Promise.allSettled(
        Array.from({ length: 20 }, (_, i) =>
          pick(stores(), i).create(
            accountId,
            'fp',
            { clientToken: `tok-${r}-${i}`, name: 'Race', kind: 'paste', columns: [], totalRows: 20 },
            MAX,
          ),
        ),
      );
      const made = settled.map(outcome);
      expect
        .soft(
          made.filter((o) => o === 'made'),
          `round ${r}: ${made.join(', ')}`,
        )
        .toHaveLength(2);
      expect
        .soft(
          made.filter((o) => o !== 'made' && o !== 'quota_exceeded'),
          `round ${r}`,
        )
        .toEqual([]);
      expect.soft(await pendingRows(replicas[0]!.db, accountId), `round ${r}`).toBeLessThanOrEqual(MAX);
    }
  }, 60_000);

  it('Check again of 10 finished reviews at once against a bound of 50: two start, the rest refused', async () => {
    for (let r = 0; r < ROUNDS; r++) {
      const accountId = `acct-quota-again-${r}`;
      const [store] = stores();
      // Ten reviews of 20 rows, each cancelled once every row is in: finished, none waiting.
      const ids: string[] = [];
      for (let i = 0; i < 10; i++) {
        const review = await store!.create(accountId, 'fp', {
          clientToken: `again-${r}-${i}`,
          name: 'Race',
          kind: 'paste',
          columns: [],
          totalRows: 20,
        });
        await store!.addChunk(accountId, review.id, { index: 0, firstRow: 0, rows: rows(20), last: true });
        await store!.control(accountId, review.id, 'cancel');
        ids.push(review.id);
      }
      const settled = await Promise.allSettled(
        ids.map((id, i) => pick(stores(), i).checkAgain(accountId, id, MAX)),
      );
      const started = settled.map(outcome);
      expect
        .soft(
          started.filter((o) => o === 'made'),
          `round ${r}: ${started.join(', ')}`,
        )
        .toHaveLength(2);
      expect
        .soft(
          started.filter((o) => o !== 'made' && o !== 'quota_exceeded'),
          `round ${r}`,
        )
        .toEqual([]);
      expect.soft(await pendingRows(replicas[0]!.db, accountId), `round ${r}`).toBe(40);
    }
  }, 60_000);
});
