import { randomBytes } from 'node:crypto';
import { sql } from 'kysely';
import type { RowFix } from '../../contract/index.ts';
import type { Database } from '../db/database.ts';
import type { StoredAnswer } from '../reviews/look-up-row.ts';

/** One row of a seeded review: what was given, and its answer in each run (null: not answered yet). */
export interface SeedRow {
  address: string;
  cells?: string[];
  /** Its 1-based place in the file it came from. */
  sourceRow?: number;
  answers: (StoredAnswer | null)[];
  fix?: RowFix;
}

export interface SeedReview {
  accountId: string;
  name: string;
  /** An uploaded file's header; empty for a pasted review. */
  columns?: string[];
  runs: number;
  total: number;
  /** Row `i` of the review. */
  row: (i: number) => SeedRow;
}

const BATCH = 500;

/**
 * A finished review written straight into the review tables, as the worker would have left it: for exports of
 * exactly the answers a test needs (the service's extra fields, hostile cells, a second run, a fix), and for
 * the bench's 100,000 rows without 100,000 lookups. Returns the review's id.
 */
export async function seedReview(database: Database, seed: SeedReview): Promise<string> {
  const { db } = database;
  const id = `rv_${randomBytes(12).toString('base64url')}`;
  const at = Date.UTC(2026, 10, 1, 9);
  await db
    .insertInto('reviews')
    .values({
      id,
      account_id: seed.accountId,
      created_by: 'ab12cd34',
      created_at: at,
      client_token: `seed-${id}`,
      name: seed.name,
      kind: seed.columns?.length ? 'csv' : 'paste',
      origin: null,
      columns: JSON.stringify(seed.columns ?? []),
      total_rows: seed.total,
      received_rows: seed.total,
      skipped_blank: 0,
      last_seq: seed.total * seed.runs,
    })
    .execute();
  for (let run = 1; run <= seed.runs; run++) {
    // Named columns only: the runs table grows columns of its own (their defaults suit a finished run).
    await sql`insert into review_runs (review_id, run, started_at, finished_at, fresh, total, done, matched,
        not_found, ambiguous, failed)
      values (${id}, ${run}, ${at + run}, ${at + run + 1}, ${run > 1 ? 1 : 0}, ${seed.total}, ${seed.total},
        0, 0, 0, 0)`.execute(db);
  }
  for (let first = 0; first < seed.total; first += BATCH) {
    const rows = Array.from({ length: Math.min(BATCH, seed.total - first) }, (_, i) => seed.row(first + i));
    await db.transaction().execute(async (trx) => {
      await trx
        .insertInto('review_rows')
        .values(
          rows.map((r, i) => ({
            review_id: id,
            row_index: first + i,
            address: r.address,
            cells: r.cells ? JSON.stringify(r.cells) : null,
            fix: r.fix ? JSON.stringify(r.fix) : null,
            source_row: r.sourceRow ?? null,
          })),
        )
        .execute();
      for (let run = 1; run <= seed.runs; run++)
        await trx
          .insertInto('review_results')
          .values(
            rows.map((r, i) => {
              const answer = r.answers[run - 1] ?? null;
              return {
                review_id: id,
                run,
                row_index: first + i,
                account_id: seed.accountId,
                state: answer ? 'done' : 'pending',
                lease_owner: null,
                lease_until: 0,
                not_before: 0,
                attempts: answer ? 1 : 0,
                outcome: answer?.outcome ?? null,
                result: answer ? JSON.stringify(answer) : null,
                seq: answer ? (run - 1) * seed.total + first + i + 1 : 0,
              };
            }),
          )
          .execute();
    });
  }
  return id;
}
