import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import type { Database } from '../db/database.ts';
import { ApiError } from '../errors.ts';
import { databaseBackends } from '../test-support/database-backends.ts';
import { ReviewSources, sourceFileName, sourceLimit } from './packet-source.ts';

/*
 * A review's file as received (migration 0017), on SQLite and PostgreSQL: every byte value back as it went in,
 * with when it came; taken only while the review still receives its rows, once (a retry of the same bytes
 * accepted, other bytes refused), and never past the account's bound, however many uploads race for it.
 */

const backends = databaseBackends('packet-source');
const everyByte = new Uint8Array(Array.from({ length: 512 }, (_, i) => i % 256));
const UNBOUNDED = Number.POSITIVE_INFINITY;

/** A review of `account` with 2 rows, `received` of them in (2: its first run starts). */
async function review(database: Database, account: string, received = 0): Promise<string> {
  const id = randomUUID();
  await database.db
    .insertInto('reviews')
    .values({
      id,
      account_id: account,
      created_by: 'ab12cd34',
      created_at: 1,
      client_token: id,
      name: 'Q3',
      kind: 'csv',
      origin: 'q3.csv',
      columns: '["address"]',
      total_rows: 2,
      received_rows: received,
      skipped_blank: 0,
      last_seq: 0,
    })
    .execute();
  return id;
}

const file = (bytes: Uint8Array, name = 'portfolio.csv', at = 1) => ({ name, bytes, at });

describe.each(backends)('review sources on $name', (backend) => {
  it('keeps the bytes exactly, once, while the review receives its rows', async () => {
    const { database } = backend;
    const sources = new ReviewSources(database.db);
    const account = randomUUID();
    const id = await review(database, account);
    expect(await sources.receive(account, id, file(everyByte, 'portfolio.csv', 7), UNBOUNDED)).toBe('stored');
    expect(await sources.receive(account, id, file(everyByte, 'portfolio.csv', 8), UNBOUNDED)).toBe('same');
    expect(await sources.receive(account, id, file(everyByte.slice(1), 'other.csv'), UNBOUNDED)).toBe(
      'different',
    );
    expect(await sources.get(id)).toEqual({ name: 'portfolio.csv', bytes: everyByte, receivedAt: 7 });
    expect(await sources.get('r-none')).toBeUndefined();
    // Another account's review is no review.
    expect(await sources.receive(randomUUID(), id, file(everyByte), UNBOUNDED)).toBe('not_found');
  });

  it('takes no file once every row is in, nor after an upload cancelled', async () => {
    const { database } = backend;
    const sources = new ReviewSources(database.db);
    const account = randomUUID();
    const done = await review(database, account, 2);
    expect(await sources.receive(account, done, file(everyByte), UNBOUNDED)).toBe('closed');
    // A run before every row is in: the upload was cancelled (review-controls.ts).
    const cancelled = await review(database, account, 1);
    await database.db
      .insertInto('review_runs')
      .values({
        review_id: cancelled,
        run: 1,
        started_at: 2,
        finished_at: 2,
        fresh: 0,
        total: 2,
        done: 2,
        matched: 0,
        not_found: 0,
        ambiguous: 0,
        failed: 0,
        paused_at: null,
        cancelled_at: 2,
      })
      .execute();
    expect(await sources.receive(account, cancelled, file(everyByte), UNBOUNDED)).toBe('closed');
    expect(await sources.get(done)).toBeUndefined();
    expect(await sources.get(cancelled)).toBeUndefined();
  });

  it('keeps at most the account’s bound, however many uploads race for it', async () => {
    const { database } = backend;
    const sources = new ReviewSources(database.db);
    const account = randomUUID();
    const ids = await Promise.all(Array.from({ length: 8 }, () => review(database, account)));
    // 300 bytes each against 1,000: three fit, whichever they are, never four.
    const results = await Promise.allSettled(
      ids.map((id) => sources.receive(account, id, file(everyByte.slice(0, 300)), 1000)),
    );
    expect(results.filter((r) => r.status === 'fulfilled').map((r) => r.value)).toEqual([
      'stored',
      'stored',
      'stored',
    ]);
    const refused = results.flatMap((r) => (r.status === 'rejected' ? [r.reason] : []));
    expect(refused).toHaveLength(5);
    expect(refused[0]).toBeInstanceOf(ApiError);
    expect(refused[0]).toMatchObject({ status: 409, code: 'quota_exceeded' });
    expect(refused[0].message).toMatch(/^This account keeps 0 MB of the files its reviews were made from/);
    // Another account is bounded on its own.
    const other = randomUUID();
    expect(await sources.receive(other, await review(database, other), file(everyByte), 1000)).toBe('stored');
  });
});

it('bounds a review’s file by its rows: 4 KB a row, at least 1 MB, at most 20 MB', () => {
  expect(sourceLimit(1)).toBe(1024 * 1024);
  expect(sourceLimit(1000)).toBe(4096 * 1000);
  expect(sourceLimit(100_000)).toBe(20 * 1024 * 1024);
});

it('names a file by its last part, printable, never a path', () => {
  expect(sourceFileName('C:\\\\Users\\\\dana\\\\Q3 portfolio.csv')).toBe('Q3 portfolio.csv');
  expect(sourceFileName('../../etc/passwd')).toBe('passwd');
  expect(sourceFileName('a\u0000b\nc.csv')).toBe('abc.csv');
  expect(sourceFileName('..')).toBe('source.csv');
  expect(sourceFileName(undefined)).toBe('source.csv');
});
