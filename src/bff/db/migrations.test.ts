import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import { Kysely, type Migration, Migrator, PostgresDialect, SqliteDialect, sql } from 'kysely';
import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import type { Property } from '../../contract/index.ts';
import type { RowResult } from '../reviews/look-up-row.ts';
import { auditRow, SqlAuditStore } from '../stores/audit/audit-store.ts';
import { SqlReviewQueue } from '../stores/reviews/queue.ts';
import { SqlReviewStore } from '../stores/reviews/review-store.ts';
import { auditEntry } from '../test-support/audit-entry.ts';
import { PostgresServer, postgresAvailable } from '../test-support/postgres-process.ts';
import { type Dialect, openDatabase } from './database.ts';
import { migrationsFor } from './migrations.ts';

/*
 * A PropLens upgrade opens the database the previous release left: every migration that release ran must still
 * be known by the same name (an unknown name is a database "from a newer PropLens", refused at start), and the
 * migrations since must bring that database, with its reviews, up to date.
 */

/**
 * The names of the migrations PropLens has released, in order. Append the name of a new migration here once it
 * ships; never edit or rename one (every database that ran it would refuse to start).
 */
const RELEASED = [
  '0001-reviews',
  '0002-audit-trail',
  '0003-review-row-fixes',
  '0004-fair-leasing',
  '0005-review-controls',
  '0006-activity-search',
  '0007-activity-search-text',
  '0008-review-row-sources',
  '0009-key-names',
  '0010-review-owners',
  '0011-review-row-exclusions',
  '0012-audit-chain',
  '0013-key-custody',
  '0014-webhooks',
  '0015-decisions',
  '0016-monitoring',
  '0017-review-sources',
  '0018-sign-off-run',
  '0021-audit-property-follows',
  '0023-webhook-seeks',
  '0024-audit-index-file',
];

describe('released migrations', () => {
  it.each(['sqlite', 'postgres'] as const)('keep their names and their order on %s', (dialect) => {
    expect(Object.keys(migrationsFor(dialect))).toEqual(RELEASED);
  });
});

// The schema as an older release left it, not today's typed one.
type AnyDb = Kysely<any>;

interface Backend {
  name: string;
  dialect: Dialect;
  /** A new, empty database, opened raw (no migration run), and how openDatabase reaches it. */
  fresh(label: string): Promise<{ db: AnyDb; config: { url?: string; dir: string } }>;
  close(): Promise<void>;
}

const sqliteBackend = (): Backend => {
  const dirs: string[] = [];
  return {
    name: 'SQLite',
    dialect: 'sqlite',
    fresh: async (label) => {
      const dir = mkdtempSync(join(tmpdir(), `proplens-migrate-${label}-`));
      dirs.push(dir);
      const db: AnyDb = new Kysely({
        dialect: new SqliteDialect({ database: new BetterSqlite3(join(dir, 'proplens.db')) }),
      });
      return { db, config: { dir } };
    },
    close: async () => {
      for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
    },
  };
};

const postgresBackend = (): Backend => {
  let server: PostgresServer | undefined;
  return {
    name: 'PostgreSQL',
    dialect: 'postgres',
    fresh: async (label) => {
      server ??= await PostgresServer.start();
      const name = `release_${label.replace(/\W/g, '_')}`;
      const admin = new pg.Client({ connectionString: server.url });
      await admin.connect();
      await admin.query(`create database ${name}`);
      await admin.end();
      const url = server.url.replace(/\/postgres$/, `/${name}`);
      const pool = new pg.Pool({ connectionString: url });
      // The server goes at the end of the file, idle clients and all: their goodbye is not the test's failure
      // (an unhandled 'error' from a pool with no listener failed whole runs now and then).
      pool.on('error', () => {});
      const db: AnyDb = new Kysely({ dialect: new PostgresDialect({ pool }) });
      return { db, config: { url, dir: '' } };
    },
    close: async () => server?.destroy(),
  };
};

const backends = [sqliteBackend(), ...(postgresAvailable() ? [postgresBackend()] : [])];

const property: Property = {
  id: 'pi_0001',
  address: '1 Main St, Springfield, IL 62701',
  source: 'Sangamon County Assessor',
  sourceKind: 'assessor',
  confidence: 'high',
  lastVerified: '2026-01-01',
  attributes: {},
};
const answers: RowResult[] = [
  { outcome: 'matched', property, cached: false, retrievedAt: '2026-11-01T10:00:00.000Z' },
  {
    outcome: 'not_found',
    cached: false,
    retrievedAt: '2026-11-01T10:00:01.000Z',
    error: { code: 'not_found', message: 'No property at that address.' },
  },
];
const ACCOUNT = 'acct-old-release';
const CREATED = Date.parse('2026-11-01T09:00:00Z');

/** A finished two-row review, written as the first release wrote it (its tables only, no later column). */
async function putReview(db: AnyDb, id: string): Promise<void> {
  await db
    .insertInto('reviews')
    .values({
      id,
      account_id: ACCOUNT,
      created_by: 'fp000000',
      created_at: CREATED,
      client_token: `token-${id}`,
      name: 'Kept across the upgrade',
      kind: 'csv',
      origin: 'loans.csv',
      columns: JSON.stringify(['loan_id', 'address']),
      total_rows: 2,
      received_rows: 2,
      skipped_blank: 0,
      last_seq: 2,
    })
    .execute();
  await db.insertInto('review_chunks').values({ review_id: id, chunk_index: 0, rows: 2 }).execute();
  await db
    .insertInto('review_rows')
    .values(
      ['1 Main St, Springfield, IL', '99999 Nowhere Lane'].map((address, i) => ({
        review_id: id,
        row_index: i,
        address,
        cells: JSON.stringify([`LN-${i}`, address]),
        imported: null,
      })),
    )
    .execute();
  await db
    .insertInto('review_runs')
    .values({
      review_id: id,
      run: 1,
      started_at: CREATED,
      finished_at: CREATED + 2_000,
      fresh: 0,
      total: 2,
      done: 2,
      matched: 1,
      not_found: 1,
      ambiguous: 0,
      failed: 0,
    })
    .execute();
  await db
    .insertInto('review_results')
    .values(
      answers.map((result, i) => ({
        review_id: id,
        run: 1,
        row_index: i,
        account_id: ACCOUNT,
        state: 'done',
        lease_owner: null,
        lease_until: 0,
        not_before: 0,
        attempts: 0,
        outcome: result.outcome,
        result: JSON.stringify(result),
        seq: i + 1,
      })),
    )
    .execute();
}

describe.each(backends)('a database of an earlier release on $name', (backend) => {
  afterAll(() => backend.close());

  // Each release's database: the migrations up to and including that one, and a review it kept. PostgreSQL
  // (slower to make a database on) takes only the one before the newest migration: an upgrade over it runs that.
  const releases = RELEASED.map((last, i) => ({ last, ran: RELEASED.slice(0, i + 1) })).filter(
    ({ last }) => backend.dialect === 'sqlite' || last === RELEASED.at(-2),
  );

  it.each(releases)(
    'made up to $last: opens, migrates the rest, and its review reads and checks again',
    async ({ last, ran }) => {
      const old = await backend.fresh(last);
      const all = migrationsFor(backend.dialect);
      // That release ran its migrations under the names it had, whatever today's code calls them.
      const theirs = Object.values(all);
      const migrator = new Migrator({
        db: old.db,
        provider: {
          getMigrations: async () => Object.fromEntries(ran.map((name, i) => [name, theirs[i] as Migration])),
        },
      });
      try {
        const { error } = await migrator.migrateToLatest();
        expect(error).toBeUndefined();
        await putReview(old.db, 'rv_old');
        // The trail that release kept, as it wrote it (with its folded search text from 0007 on): an upgrade
        // over 0006 indexes it for the text filter, one over 0007 folds it.
        const kept = auditEntry({
          at: CREATED,
          account_id: ACCOUNT,
          query: '7 Kept Ave',
          property_id: 'pi_kept',
        });
        if (ran.includes('0002-audit-trail')) {
          // Columns that release had: the folded text from 0007 on, the review's owner from 0010 on.
          const { review_owner: _owner, ...row } = auditRow(kept);
          const { review_owner: _none, ...plain } = kept;
          const written = ran.includes('0007-activity-search-text') ? row : plain;
          await old.db
            .insertInto('audit_entries')
            .values(ran.includes('0010-review-owners') ? auditRow(kept) : written)
            .execute();
        }
      } finally {
        await old.db.destroy();
      }

      const database = await openDatabase(old.config);
      try {
        const applied = await sql<{ name: string }>`select name from kysely_migration order by name`.execute(
          database.db,
        );
        expect(applied.rows.map((r) => r.name)).toEqual(Object.keys(all));
        const store = new SqlReviewStore(database.db);
        expect(await store.summary(ACCOUNT, 'rv_old')).toMatchObject({
          name: 'Kept across the upgrade',
          status: 'done',
          columns: ['loan_id', 'address'],
          runs: [{ number: 1, counts: { total: 2, done: 2, matched: 1, notFound: 1 } }],
        });
        const page = await store.rows(ACCOUNT, 'rv_old', { limit: 10 });
        expect(page?.rows.map((r) => [r.index, r.outcome, r.property?.id, r.cells?.[0], r.seq])).toEqual([
          [0, 'matched', 'pi_0001', 'LN-0', 1],
          [1, 'not_found', undefined, 'LN-1', 2],
        ]);
        // Check again works the old review with today's queries (a fixed row's address included).
        expect(await store.checkAgain(ACCOUNT, 'rv_old')).toMatchObject({ status: 'running' });
        const queue = new SqlReviewQueue(database.db, database.dialect);
        const leased = await queue.lease('upgraded', [ACCOUNT], 10, 30_000);
        expect(leased.map((r) => [r.run, r.index, r.address, r.fresh])).toEqual([
          [2, 0, '1 Main St, Springfield, IL', true],
          [2, 1, '99999 Nowhere Lane', true],
        ]);
        for (const [i, row] of leased.entries())
          expect(await queue.complete('upgraded', row, answers[i] as RowResult)).toBe(true);
        expect((await store.summary(ACCOUNT, 'rv_old'))?.status).toBe('done');
        // The audit trail takes entries and reads them back.
        const audit = new SqlAuditStore(database.db);
        await audit.append([
          {
            at: Date.now(),
            account_id: ACCOUNT,
            key_fingerprint: 'fp000000',
            session_ref: 'ref',
            kind: 'resolve',
            query: '1 Main St',
            outcome: 'matched',
            property_id: 'pi_0001',
            source: null,
            confidence: null,
            last_verified: null,
            cached: 0,
            cached_at: null,
            upstream_request_id: null,
            review_id: null,
            row_index: null,
          },
        ]);
        expect((await audit.page(ACCOUNT, {}, null, 10)).map((e) => e.query)).toEqual(
          ran.includes('0002-audit-trail') ? ['1 Main St', '7 Kept Ave'] : ['1 Main St'],
        );
        // The text filter finds what was written before the upgrade and after it, by the index (three or more
        // characters) and without it (two).
        const found = async (text: string) =>
          (await audit.page(ACCOUNT, { text }, null, 10)).map((e) => e.query);
        expect(await found('kept av')).toEqual(ran.includes('0002-audit-trail') ? ['7 Kept Ave'] : []);
        expect(await found('PI_KEPT')).toEqual(ran.includes('0002-audit-trail') ? ['7 Kept Ave'] : []);
        expect(await found('main')).toEqual(['1 Main St']);
        expect(await found('1 ')).toEqual(['1 Main St']);
      } finally {
        await database.close();
      }
    },
    60_000,
  );
});
