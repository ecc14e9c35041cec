import { setImmediate } from 'node:timers';
import pino from 'pino';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { Audit } from '../audit/audit.ts';
import { AuditWriter } from '../audit/writer.ts';
import type { NewAuditEntry } from '../stores/audit/audit-store.ts';
import type { Session } from '../stores/sessions/types.ts';
import type { RowResult } from './look-up-row.ts';
import { type LeasedRow, type ReviewQueue, ReviewWorker } from './worker.ts';

/*
 * Where a review row's audit entry goes (ADR 010, addendum): with the row's answer into the completion when the
 * answer is kept; alone through the writer when the lookup was made but its answer is not kept (asked again);
 * nowhere when the answer is dropped (a lease lost, a completion that failed), as for a lookup in flight at a
 * crash. The entry is the one Audit.lookup makes, held instead of committed.
 */

const logger = pino({ level: 'silent' });
const session: Session = {
  apiKey: 'key-a',
  keyHash: 'hash-a',
  account: { name: 'a', plan: 'professional' },
  accountId: 'a',
  createdAt: 0,
  lastSeenAt: 0,
  auditRef: 'sess-a',
};
const at = '2026-11-24T00:00:00.000Z';
const answers: Record<string, RowResult> = {
  matched: { outcome: 'matched', cached: false, retrievedAt: at },
  failed: {
    outcome: 'failed',
    cached: false,
    retrievedAt: at,
    error: { code: 'upstream_unavailable', message: 'down' },
  },
};

/** One row of one review; records what the worker asked of it. */
class OneRowQueue implements ReviewQueue {
  completed: { result: RowResult; entry: NewAuditEntry | undefined }[] = [];
  retried: { attempts: number }[] = [];
  #row: LeasedRow | undefined;
  constructor(
    attempts: number,
    private readonly onComplete: () => Promise<boolean> = async () => true,
  ) {
    this.#row = {
      reviewId: 'r1',
      accountId: 'a',
      run: 1,
      index: 7,
      address: '7 Elm St',
      fresh: false,
      attempts,
    };
  }
  async lease() {
    const row = this.#row;
    this.#row = undefined;
    return row ? [row] : [];
  }
  async extend() {}
  async complete(_owner: string, _row: LeasedRow, result: RowResult, entry?: NewAuditEntry) {
    this.completed.push({ result, entry });
    return this.onComplete();
  }
  async retryLater(_owner: string, row: LeasedRow) {
    this.retried.push({ attempts: row.attempts + 1 });
  }
  async release() {}
}

describe('a review row audit entry', () => {
  const now = 1_700_000_000_000;
  beforeEach(() => {
    vi.useFakeTimers();
  });
  afterEach(() => vi.useRealTimers());

  async function work(queue: OneRowQueue, answer: RowResult) {
    const committed: NewAuditEntry[] = [];
    const audit = new Audit(
      new AuditWriter({ append: async (entries) => void committed.push(...entries), logger }),
      () => now,
    );
    const worker = new ReviewWorker({
      queue,
      sessions: { liveAccounts: async () => ['a'], sessionFor: async () => session },
      // As Lookups does: the entry made by Audit.lookup, with the context the worker's lookup gives it.
      lookUp: async (s, row, { hold }) => {
        await audit.lookup(
          s,
          { kind: 'review_row', reviewId: row.reviewId, row: row.index, hold },
          row.address,
          {
            outcome: answer.outcome,
          },
        );
        return answer;
      },
      logger,
      owner: 'replica-1',
      pollMs: 50,
      now: () => now,
    });
    worker.start();
    // The worker's poll on the fake clock; the writer's commit on the real event loop (node:timers).
    for (let i = 0; i < 20 && queue.completed.length + queue.retried.length === 0; i++) {
      await vi.advanceTimersByTimeAsync(100);
      await new Promise((go) => setImmediate(go));
    }
    await worker.stop();
    return committed;
  }

  const entry = (outcome: string) => ({
    at: now,
    account_id: 'a',
    session_ref: 'sess-a',
    kind: 'review_row',
    query: '7 Elm St',
    outcome,
    review_id: 'r1',
    row_index: 7,
  });

  it('goes into the completion with the answer kept, and is not committed apart', async () => {
    const queue = new OneRowQueue(0);
    const committed = await work(queue, answers.matched as RowResult);
    expect(queue.completed).toHaveLength(1);
    expect(queue.completed[0]?.entry).toMatchObject(entry('matched'));
    expect(committed).toEqual([]);
  });

  it('of a failure asked again is committed alone, as before, and the row retried', async () => {
    const queue = new OneRowQueue(0);
    const committed = await work(queue, answers.failed as RowResult);
    expect(queue.completed).toEqual([]);
    expect(queue.retried).toEqual([{ attempts: 1 }]);
    expect(committed).toHaveLength(1);
    expect(committed[0]).toMatchObject(entry('failed'));
  });

  it('of a failure on its last attempt goes into the completion (the failure is the answer kept)', async () => {
    const queue = new OneRowQueue(4);
    const committed = await work(queue, answers.failed as RowResult);
    expect(queue.completed[0]?.entry).toMatchObject(entry('failed'));
    expect(committed).toEqual([]);
  });

  it('is committed alone when the queue does not keep the answer (a lease lost): the lookup was made', async () => {
    const queue = new OneRowQueue(0, async () => false);
    const committed = await work(queue, answers.matched as RowResult);
    expect(queue.completed).toHaveLength(1);
    expect(committed).toHaveLength(1);
    expect(committed[0]).toMatchObject(entry('matched'));
  });

  it('is committed alone when the completion failed, and the row waits without spending an attempt', async () => {
    const queue = new OneRowQueue(2, async () => {
      throw new Error('the database went away');
    });
    const committed = await work(queue, answers.matched as RowResult);
    expect(committed).toHaveLength(1);
    expect(committed[0]).toMatchObject(entry('matched'));
    expect(queue.retried).toEqual([{ attempts: 2 }]);
  });
});
