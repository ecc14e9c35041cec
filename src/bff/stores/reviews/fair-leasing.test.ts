import { CompiledQuery, type KyselyPlugin, type RootOperationNode, sql } from 'kysely';
import { describe, expect, it } from 'vitest';
import type { Database } from '../../db/database.ts';
import type { RowResult } from '../../reviews/look-up-row.ts';
import { databaseBackends } from '../../test-support/database-backends.ts';
import { SqlReviewQueue } from './queue.ts';
import { SqlReviewStore } from './review-store.ts';

/*
 * The lease as the worker meets it, on SQLite and PostgreSQL: round-robin over accounts, then over an account's
 * reviews, first come first served within a review; only pending rows (and leases that ran out) are ever
 * leased; and no query of a lease sorts or scans the backlog (its plans, read from the database itself).
 */

const answered: RowResult = { outcome: 'not_found', cached: false, retrievedAt: '2026-11-24T10:00:00.000Z' };
const MINUTE = 60_000;

describe.each(databaseBackends('fair-leasing'))('leasing on $name', (backend) => {
  let clock = Date.parse('2026-11-24T10:00:00Z');
  let made = 0;
  const now = () => clock;
  const store = () => new SqlReviewStore(backend.database.db, now);
  // On SQLite through its prepared statements (as the server runs it), unless given a Kysely of its own to spy on.
  const queue = (db?: Database['db']) =>
    new SqlReviewQueue(
      db ?? backend.database.db,
      backend.database.dialect,
      now,
      db ? undefined : backend.database.sqlite,
    );
  const account = (name: string) => `${name}-${++made}`;

  /** A review of `total` rows, every row in (run 1 running), made a second after the previous one. */
  async function review(accountId: string, total: number, label = 'r'): Promise<string> {
    clock += 1_000;
    const s = store();
    const { id } = await s.create(accountId, 'fp', {
      clientToken: `${label}-${++made}`,
      name: label,
      kind: 'paste',
      columns: [],
      totalRows: total,
    });
    const rows = Array.from({ length: total }, (_, i) => ({ address: `${i} ${label} St` }));
    for (let first = 0; first < total; first += 5_000)
      await s.addChunk(accountId, id, {
        index: first / 5_000,
        firstRow: first,
        rows: rows.slice(first, first + 5_000),
        last: first + 5_000 >= total,
      });
    return id;
  }

  const setState = (reviewId: string, index: number, values: Record<string, unknown>) =>
    backend.database.db
      .updateTable('review_results')
      .set(values)
      .where('review_id', '=', reviewId)
      .where('row_index', '=', index)
      .execute();

  it('goes round the accounts, then round each account’s reviews, first come first served within a review', async () => {
    const [a, b] = [account('a'), account('b')];
    const a1 = await review(a, 10, 'a1');
    const a2 = await review(a, 10, 'a2');
    const a3 = await review(a, 10, 'a3');
    const b1 = await review(b, 3, 'b1');
    const q = queue();
    const leased = await q.lease('w', [a, b], 9, MINUTE);
    const name = new Map([
      [a1, 'a1'],
      [a2, 'a2'],
      [a3, 'a3'],
      [b1, 'b1'],
    ]);
    expect(leased.map((r) => `${name.get(r.reviewId)}:${r.index}`)).toEqual([
      'a1:0',
      'b1:0',
      'a2:0',
      'b1:1',
      'a3:0',
      'b1:2',
      'a1:1',
      'a2:1',
      'a3:1',
    ]);
    // One row a call, nobody holding anything (rows answered at once): still round, not the same one each time.
    for (const row of leased) await q.complete('w', row, answered);
    const one = [];
    for (let i = 0; i < 4; i++) {
      const [row] = await q.lease('w', [a, b], 1, MINUTE);
      one.push(name.get(row?.reviewId ?? ''));
      if (row) await q.complete('w', row, answered);
    }
    expect(one).toEqual(['a1', 'a2', 'a3', 'a1']);
  });

  it('starts from the account and review this replica holds fewest of, and gives an account no more than its limit', async () => {
    const [a, b] = [account('a'), account('b')];
    const big = await review(a, 20, 'big');
    const small = await review(a, 3, 'small');
    const other = await review(b, 20, 'other');
    const q = queue();
    const leased = await q.lease('w', [a, b], 6, MINUTE, {
      heldByAccount: new Map([
        [a, 4],
        [b, 0],
      ]),
      heldByReview: new Map([[big, 4]]),
    });
    const name = new Map([
      [big, 'big'],
      [small, 'small'],
      [other, 'other'],
    ]);
    // b holds nothing: it takes turns until it holds as many as a; then a's small review, which a holds none of.
    expect(leased.map((r) => name.get(r.reviewId))).toEqual([
      'other',
      'other',
      'other',
      'other',
      'small',
      'other',
    ]);
    const limited = await q.lease('w', [a, b], 6, MINUTE, { limitByAccount: new Map([[b, 0]]) });
    expect(limited.map((r) => name.get(r.reviewId))).toEqual(['big', 'small', 'big', 'small', 'big', 'big']);
  });

  it('leases only pending rows and leases that ran out (taken back in their place), never other states', async () => {
    const a = account('a');
    const id = await review(a, 8, 'states');
    await setState(id, 0, { state: 'paused' });
    await setState(id, 1, { state: 'cancelled' });
    await setState(id, 2, { state: 'done', outcome: 'matched' });
    await setState(id, 3, { state: 'leased', lease_owner: 'alive', lease_until: clock + MINUTE });
    await setState(id, 4, { state: 'leased', lease_owner: 'dead', lease_until: clock - 1 });
    await setState(id, 5, { state: 'pending', not_before: clock + 10_000 });
    const q = queue();
    const leased = await q.lease('w', [a], 10, MINUTE);
    expect(leased.map((r) => r.index)).toEqual([4, 6, 7]);
    // The dead replica's late answer is dropped; the row is the new holder's.
    expect(await q.complete('dead', { ...leased[0]!, reviewId: id }, answered)).toBe(false);
    // Given back untouched: first in line again, no attempt counted.
    await q.release('w', leased.slice(1));
    const again = await q.lease('w', [a], 10, MINUTE);
    expect(again.map((r) => [r.index, r.attempts])).toEqual([
      [6, 0],
      [7, 0],
    ]);
    // A retried row goes behind the rows that were due before it came back.
    clock += 10_001;
    await q.retryLater('w', again[0]!, clock);
    await q.release('w', [again[1]!]);
    const retried = await q.lease('w', [a], 10, MINUTE);
    expect(retried.map((r) => r.index)).toEqual([7, 5, 6]);
  });

  it('asks the database nothing that sorts or scans the backlog (its own query plans)', async () => {
    const [a, b] = [account('a'), account('b')];
    const backlog = await review(a, 20_000, 'backlog');
    await review(a, 5, 'colleague');
    await review(b, 5, 'other');
    if (backend.name === 'PostgreSQL') await sql`analyze`.execute(backend.database.db);
    const seen: RootOperationNode[] = [];
    const spy: KyselyPlugin = {
      transformQuery: ({ node }) => {
        seen.push(node);
        return node;
      },
      transformResult: async ({ result }) => result,
    };
    clock += MINUTE;
    const leased = await queue(backend.database.db.withPlugin(spy)).lease('w', [a, b], 8, MINUTE);
    expect(leased).toHaveLength(8);
    const executor = backend.database.db.getExecutor();
    const selects = seen.filter((n) => n.kind === 'SelectQueryNode');
    let checked = 0;
    for (const node of selects) {
      const compiled = executor.compileQuery(node, { queryId: 'plan' });
      // The backlog's query, and the lease's own (expired leases): a 5-row review's may sort its 5 rows.
      const aboutBacklog = compiled.parameters.includes(backlog) || !compiled.sql.includes('review_rows');
      if (!compiled.sql.includes('review_results') || !aboutBacklog) continue;
      checked++;
      const plan = await explain(compiled.sql, compiled.parameters);
      expect(plan, compiled.sql).not.toMatch(
        /TEMP B-TREE|\bSCAN (r|review_results)\b|Seq Scan on review_results|Sort/,
      );
    }
    // The expired leases' query and the backlog's next rows, at least.
    expect(checked).toBeGreaterThanOrEqual(2);
  });

  it.runIf(backend.name === 'SQLite')(
    'asks the embedded file nothing that sorts or scans the backlog (its prepared statements)',
    async () => {
      const [a, b] = [account('a'), account('b')];
      await review(a, 20_000, 'backlog');
      await review(a, 5, 'colleague');
      await review(b, 5, 'other');
      const file = backend.database.sqlite as NonNullable<Database['sqlite']>;
      const prepared: string[] = [];
      const spy = new Proxy(file, {
        get(target, property) {
          if (property === 'prepare')
            return (text: string) => {
              prepared.push(text);
              return target.prepare(text);
            };
          const value = Reflect.get(target, property, target);
          return typeof value === 'function' ? value.bind(target) : value;
        },
      });
      clock += MINUTE;
      const q = new SqlReviewQueue(backend.database.db, backend.database.dialect, now, spy);
      expect(await q.lease('w', [a, b], 8, MINUTE)).toHaveLength(8);
      const selects = prepared.filter((text) => /^\s*select[\s\S]*review_results/.test(text));
      // The runs' next rows and the expired leases, at least.
      expect(selects.length).toBeGreaterThanOrEqual(2);
      for (const text of selects) {
        const plan = file
          .prepare(`explain query plan ${text}`)
          .all(...new Array((text.match(/\?/g) ?? []).length).fill(0))
          .map((r) => Object.values(r as object).join(' '))
          .join('\n');
        expect(plan, text).not.toMatch(/TEMP B-TREE|\bSCAN (r|review_results)\b/);
      }
    },
  );

  async function explain(text: string, parameters: readonly unknown[]): Promise<string> {
    const prefix = backend.name === 'SQLite' ? 'explain query plan ' : 'explain ';
    const { rows } = await backend.database.db.executeQuery(
      CompiledQuery.raw(prefix + text, [...parameters]),
    );
    return rows.map((r) => Object.values(r as object).join(' ')).join('\n');
  }
});
