import { type Kysely, sql } from 'kysely';
import { expect, it } from 'vitest';
import type { DatabaseSchema } from '../../db/schema.ts';
import { auditEntry } from '../../test-support/audit-entry.ts';
import { seedReview } from '../../test-support/seed-review.ts';
import { tempDatabaseEach } from '../../test-support/temp-database.ts';
import { SqlAuditStore } from '../audit/audit-store.ts';
import { SqlReviewQueue } from './queue.ts';

/*
 * On the embedded database, a review's leases and completions and the trail's appends go through statements
 * prepared once. Beside a transaction of Kysely's half done on the one connection, they wait for it and then use
 * them: they used to fall back to Kysely, and each fallback, a transaction compiled and prepared anew, kept the
 * connection for the next one's (issue 26, bench `throughput`).
 */

const temp = tempDatabaseEach('queue-connection');

/** The database as the store sees it, counting the statements it sends through Kysely. */
function counted(db: Kysely<DatabaseSchema>) {
  const sent: string[] = [];
  const counting = db.withPlugin({
    transformQuery: (args) => {
      sent.push(db.getExecutor().compileQuery(args.node, args.queryId).sql);
      return args.node;
    },
    transformResult: async (args) => args.result,
  });
  return { counting, sent };
}

/** A transaction of Kysely's held open on the connection until `end()`. */
function openTransaction(db: Kysely<DatabaseSchema>) {
  let end = () => {};
  const ended = new Promise<void>((resolve) => {
    end = resolve;
  });
  let begun = () => {};
  const started = new Promise<void>((resolve) => {
    begun = resolve;
  });
  const done = db.transaction().execute(async (trx) => {
    await trx.selectFrom('reviews').select('id').execute();
    begun();
    await ended;
  });
  return { started, end, done };
}

it('leases and completes through the prepared statements after a transaction of Kysely’s, not through Kysely', async () => {
  const accountId = 'acct-connection';
  const reviewId = await seedReview(temp.database, {
    accountId,
    name: 'Waiting',
    runs: 1,
    total: 5,
    row: (i) => ({ address: `${i + 1} Main St, Springfield, IL 62701`, answers: [null] }),
  });
  await sql`update review_runs set finished_at = null, done = 0 where review_id = ${reviewId}`.execute(
    temp.database.db,
  );
  const { counting, sent } = counted(temp.database.db);
  const queue = new SqlReviewQueue(counting, 'sqlite', Date.now, temp.database.sqlite);
  const open = openTransaction(temp.database.db);
  await open.started;
  const leasing = queue.lease('replica-1', [accountId], 5, 60_000);
  open.end();
  await open.done;
  const leased = await leasing;
  expect(leased.map((r) => r.index).sort()).toEqual([0, 1, 2, 3, 4]);
  const row = leased[0];
  if (!row) throw new Error('nothing leased');
  const again = openTransaction(temp.database.db);
  await again.started;
  const completing = queue.complete('replica-1', row, {
    outcome: 'not_found',
    cached: false,
    retrievedAt: new Date().toISOString(),
    error: { code: 'not_found', message: 'No match.' },
  });
  again.end();
  await again.done;
  expect(await completing).toBe(true);
  expect(sent).toEqual([]);
});

it('appends to the trail through its prepared statement after a transaction of Kysely’s, not through Kysely', async () => {
  const { counting, sent } = counted(temp.database.db);
  const store = new SqlAuditStore(counting, temp.database.sqlite);
  const open = openTransaction(temp.database.db);
  await open.started;
  const appending = store.append([auditEntry({ account_id: 'acct-connection', query: '1 Main St' })]);
  open.end();
  await open.done;
  await appending;
  expect(sent).toEqual([]);
  const { rows } = await sql<{ n: number }>`select count(*) as n from audit_entries`.execute(
    temp.database.db,
  );
  expect(rows[0]?.n).toBe(1);
});
