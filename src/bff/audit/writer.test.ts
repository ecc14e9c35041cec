import pino from 'pino';
import { describe, expect, it } from 'vitest';
import { ApiError } from '../errors.ts';
import type { NewAuditEntry } from '../stores/audit/audit-store.ts';
import { AuditWriter } from './writer.ts';

const entry = (i: number): NewAuditEntry => ({
  at: i,
  account_id: 'a',
  key_fingerprint: 'fp',
  session_ref: null,
  kind: 'resolve',
  query: `${i} Main St`,
  outcome: 'matched',
  property_id: null,
  source: null,
  confidence: null,
  last_verified: null,
  cached: 0,
  cached_at: null,
  upstream_request_id: null,
  review_id: null,
  row_index: null,
});

const silent = pino({ level: 'silent' });

/** An append the test completes by hand: `commits` lists each transaction's entries, `done()` ends the oldest. */
function manualDatabase() {
  const commits: number[][] = [];
  const pending: { resolve: () => void; reject: (err: Error) => void }[] = [];
  return {
    commits,
    append: (batch: readonly NewAuditEntry[]) =>
      new Promise<void>((resolve, reject) => {
        commits.push(batch.map((e) => e.at));
        pending.push({ resolve, reject });
      }),
    done: () => pending.shift()?.resolve(),
    fail: () => pending.shift()?.reject(new Error('connect ECONNREFUSED')),
  };
}

/** Lets the writer's next-turn commit start and every settled promise run. */
const turn = () => new Promise<void>((go) => setImmediate(go));

describe('AuditWriter', () => {
  it('answers a lookup only once its entry is committed, concurrent entries sharing one transaction', async () => {
    const db = manualDatabase();
    const writer = new AuditWriter({ append: db.append, logger: silent });
    const settled: number[] = [];
    const record = (i: number) => writer.record(entry(i)).then(() => void settled.push(i));
    const first = [record(0), record(1), record(2)];
    await turn();
    expect(db.commits).toEqual([[0, 1, 2]]);
    expect(settled).toEqual([]);
    expect(writer.waiting).toBe(0);
    // Recorded while the first transaction runs: they wait for it, then share the next one.
    const second = [record(3), record(4)];
    await turn();
    expect(db.commits).toHaveLength(1);
    db.done();
    await Promise.all(first);
    expect(settled).toEqual([0, 1, 2]);
    await turn();
    expect(db.commits).toEqual([
      [0, 1, 2],
      [3, 4],
    ]);
    expect(settled).toEqual([0, 1, 2]);
    db.done();
    await Promise.all(second);
    expect(settled).toEqual([0, 1, 2, 3, 4]);
    expect(writer.written).toBe(5);
  });

  it('writes a large group in transactions of at most `batch` entries', async () => {
    const sizes: number[] = [];
    const writer = new AuditWriter({
      append: async (b) => void sizes.push(b.length),
      logger: silent,
      batch: 3,
    });
    await Promise.all(Array.from({ length: 7 }, (_, i) => writer.record(entry(i))));
    expect(sizes).toEqual([3, 3, 1]);
  });

  it('refuses the lookups of a commit that failed, and new ones for a moment, then tries again', async () => {
    let now = 1_000;
    const db = manualDatabase();
    const writer = new AuditWriter({ append: db.append, logger: silent, retryMs: 1_000, now: () => now });
    const lost = [writer.record(entry(0)), writer.record(entry(1))];
    await turn();
    db.fail();
    for (const p of lost) await expect(p).rejects.toMatchObject({ status: 503, code: 'audit_unavailable' });
    expect(writer.failing).toBe(true);
    expect(writer.failedFlushes).toBe(1);
    expect(() => writer.assertWritable()).toThrow(/cannot record lookups/);
    now += 999;
    expect(() => writer.assertWritable()).toThrow(ApiError);
    now += 1;
    expect(() => writer.assertWritable()).not.toThrow();
    const kept = writer.record(entry(2));
    await turn();
    db.done();
    await kept;
    expect(writer.failing).toBe(false);
    expect(db.commits).toEqual([[0, 1], [2]]);
  });

  it('refuses up front while `maxBuffer` entries already wait for their commit', async () => {
    const db = manualDatabase();
    const writer = new AuditWriter({ append: db.append, logger: silent, maxBuffer: 2 });
    const waiting = [writer.record(entry(0))];
    await turn();
    // One is being committed (no longer waiting); two more fill the buffer.
    waiting.push(writer.record(entry(1)), writer.record(entry(2)));
    expect(writer.waiting).toBe(2);
    expect(() => writer.assertWritable()).toThrow(/cannot record lookups/);
    db.done();
    await waiting[0];
    await turn();
    expect(writer.waiting).toBe(0);
    expect(() => writer.assertWritable()).not.toThrow();
    db.done();
    await Promise.all(waiting);
  });

  it('on stop, commits what was recorded and takes nothing more', async () => {
    const stored: number[] = [];
    const writer = new AuditWriter({
      append: async (b) => void stored.push(...b.map((e) => e.at)),
      logger: silent,
    });
    const kept = writer.record(entry(0));
    await writer.stop();
    await kept;
    expect(stored).toEqual([0]);
    await expect(writer.record(entry(1))).rejects.toMatchObject({ code: 'audit_unavailable' });
    expect(() => writer.assertWritable()).toThrow(ApiError);
    expect(stored).toEqual([0]);
  });
});
