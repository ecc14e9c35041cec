import pino from 'pino';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
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

describe('AuditWriter', () => {
  beforeEach(() => vi.useFakeTimers());
  afterEach(() => vi.useRealTimers());

  it('writes entries in batches off the request path, every flush interval', async () => {
    const written: number[] = [];
    const writer = new AuditWriter({
      append: async (batch) => void written.push(batch.length),
      logger: pino({ level: 'silent' }),
      batch: 3,
      flushMs: 100,
    });
    writer.start();
    for (let i = 0; i < 2; i++) writer.record(entry(i));
    expect(written).toEqual([]);
    await vi.advanceTimersByTimeAsync(100);
    expect(written).toEqual([2]);
    for (let i = 0; i < 7; i++) writer.record(entry(i));
    await vi.advanceTimersByTimeAsync(100);
    expect(written).toEqual([2, 3, 3, 1]);
    expect(writer.written).toBe(9);
    await writer.stop();
  });

  it('keeps every entry while the database is away, and refuses past its buffer rather than drop one', async () => {
    let down = true;
    const stored: NewAuditEntry[] = [];
    const writer = new AuditWriter({
      append: async (batch) => {
        if (down) throw new Error('connect ECONNREFUSED');
        stored.push(...batch);
      },
      logger: pino({ level: 'silent' }),
      maxBuffer: 5,
      flushMs: 100,
    });
    writer.start();
    for (let i = 0; i < 5; i++) writer.record(entry(i));
    await vi.advanceTimersByTimeAsync(300);
    expect(writer.failing).toBe(true);
    expect(writer.waiting).toBe(5);
    expect(writer.failedFlushes).toBeGreaterThanOrEqual(2);
    expect(() => writer.record(entry(5))).toThrow(ApiError);
    expect(() => writer.assertWritable()).toThrow(/cannot record lookups/);
    down = false;
    await vi.advanceTimersByTimeAsync(100);
    expect(stored.map((e) => e.at)).toEqual([0, 1, 2, 3, 4]);
    expect(writer.failing).toBe(false);
    expect(() => writer.record(entry(6))).not.toThrow();
    await writer.stop();
    expect(stored).toHaveLength(6);
  });
});
