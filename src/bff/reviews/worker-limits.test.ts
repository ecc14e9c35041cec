import pino from 'pino';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { type Lane, ReviewRowsResponse, ReviewSummary, SearchResponse } from '../../contract/index.ts';
import type { Session } from '../stores/sessions/types.ts';
import { type Harness, reviewDatabase } from '../test-support/review-database.ts';
import type { RowResult } from './look-up-row.ts';
import { type LeasedRow, type ReviewQueue, ReviewWorker, retryAt } from './worker.ts';

/*
 * The worker's limits as a reviewer meets them: a far-off rate-limit reset parks a row for at most an hour, a
 * sign-out spends none of a row's attempts, review rows wait behind people searching (the review lane), and a
 * unit the building lacks is "not found" with the building's units to choose from.
 */

const HOUR = 3_600_000;
const DAY = 24 * HOUR;

describe('when a row is asked again', () => {
  const now = Date.parse('2026-11-25T12:00:00Z');
  const rateLimited = (resetAt: number): RowResult => ({
    outcome: 'failed',
    cached: false,
    retrievedAt: new Date(now).toISOString(),
    error: { code: 'rate_limited', message: 'rate limited', resetAt: new Date(resetAt).toISOString() },
  });

  it('waits for a rate-limit reset at most an hour away, however far the service puts it', () => {
    expect(retryAt(rateLimited(now + 2 * DAY), 0, now)).toBe(now + HOUR);
    expect(retryAt(rateLimited(now + HOUR + 1), 3, now)).toBe(now + HOUR);
    expect(retryAt(rateLimited(now + HOUR - 1), 0, now)).toBe(now + HOUR - 1);
  });
});

describe('a row whose account has no session to lend a key', () => {
  afterEach(() => vi.useRealTimers());

  it('spends no attempt while the account is listed live but no session can be had, and is asked once one can', async () => {
    vi.useFakeTimers();
    const row: LeasedRow = {
      reviewId: 'r-1',
      accountId: 'a',
      run: 1,
      index: 0,
      address: '1 Main St',
      fresh: false,
      attempts: 0,
    };
    let pending: (LeasedRow & { notBefore: number }) | null = { ...row, notBefore: 0 };
    const attemptsWritten: number[] = [];
    const done: RowResult[] = [];
    const queue: ReviewQueue = {
      lease: async () => {
        if (!pending || pending.notBefore > Date.now()) return [];
        const { notBefore: _, ...leased } = pending;
        pending = null;
        return [leased];
      },
      extend: async () => {},
      complete: async (_owner, _row, result) => {
        done.push(result);
        return true;
      },
      retryLater: async (_owner, r, notBefore) => {
        // As the database does: the row's attempts go up by one.
        attemptsWritten.push(r.attempts + 1);
        pending = { ...r, attempts: r.attempts + 1, notBefore };
      },
      release: async () => {},
    };
    let lendable = false;
    const asked: number[] = [];
    const session: Session = {
      apiKey: 'key-a',
      keyHash: 'hash-a',
      account: { name: 'A', plan: 'professional' },
      accountId: 'a',
      createdAt: 0,
      lastSeenAt: 0,
    };
    const worker = new ReviewWorker({
      queue,
      sessions: {
        // Another replica's session keeps the account listed; none can be lent here (it ended meanwhile).
        liveAccounts: async () => ['a'],
        sessionFor: async () => (lendable ? session : undefined),
      },
      lookUp: async (_s, leased) => {
        asked.push(leased.attempts);
        return { outcome: 'matched', cached: false, retrievedAt: new Date().toISOString() };
      },
      logger: pino({ level: 'silent' }),
      owner: 'replica-1',
      pollMs: 1_000,
      maxAttempts: 5,
    });
    worker.start();
    // Longer than five attempts' worth of polls.
    await vi.advanceTimersByTimeAsync(10_000);
    expect(asked).toEqual([]);
    expect(attemptsWritten.length).toBeGreaterThan(5);
    expect(new Set(attemptsWritten)).toEqual(new Set([0]));
    lendable = true;
    await vi.advanceTimersByTimeAsync(2_000);
    await worker.stop();
    expect(asked).toEqual([0]);
    expect(done.map((d) => d.outcome)).toEqual(['matched']);
  });
});

describe('review rows through the BFF', () => {
  const reviews = reviewDatabase('worker-limits');
  const token = () => `t${Math.random().toString(36).slice(2, 14)}`;

  async function worked(h: Harness, addresses: string[]) {
    const created = await h.call('/api/reviews', {
      method: 'POST',
      body: { clientToken: token(), name: 'Lanes', kind: 'paste', columns: [], totalRows: addresses.length },
    });
    const review = ReviewSummary.parse(await created.json());
    await h.call(`/api/reviews/${review.id}/chunks`, {
      method: 'PUT',
      body: { index: 0, firstRow: 0, rows: addresses.map((address) => ({ address })), last: true },
    });
    h.reviews?.worker.start();
    await vi.waitFor(
      async () => {
        const s = ReviewSummary.parse(await (await h.call(`/api/reviews/${review.id}`)).json());
        expect(s.status).toBe('done');
      },
      { timeout: 10_000, interval: 20 },
    );
    return ReviewRowsResponse.parse(await (await h.call(`/api/reviews/${review.id}/rows`)).json()).rows;
  }

  it('asks the service in the review lane, behind people searching', async () => {
    const h = reviews.make();
    await h.signIn();
    const page = SearchResponse.parse(await (await h.call('/api/properties/search?q=oak')).json());
    const addresses = [...new Set(page.items.filter((p) => !p.attributes.unit).map((p) => p.address))].slice(
      0,
      2,
    );
    // This harness's cache is new: no row is answered from it, so each takes a slot of the scheduler.
    const lanes: Lane[] = [];
    const acquire = h.scheduler.acquire.bind(h.scheduler);
    vi.spyOn(h.scheduler, 'acquire').mockImplementation((key, lane, deadline, signal) => {
      lanes.push(lane);
      return acquire(key, lane, deadline, signal);
    });
    const rows = await worked(h, addresses);
    expect(rows.map((r) => r.outcome)).toEqual(['matched', 'matched']);
    expect(lanes).toEqual(['review', 'review']);
  });

  it('answers a unit the building lacks as not found, with the building’s units to choose from', async () => {
    const h = reviews.make();
    await h.signIn();
    const [missing, unit] = await worked(h, [
      '615 Bourbon St Apt 9, New Orleans, LA',
      '615 Bourbon St Apt 2, New Orleans, LA',
    ]);
    expect(missing).toMatchObject({ outcome: 'not_found', error: { code: 'unit_not_found' } });
    expect(missing?.candidates?.length).toBeGreaterThan(0);
    expect(missing?.candidates?.every((c) => /615 Bourbon St/i.test(c.address))).toBe(true);
    expect(unit).toMatchObject({ outcome: 'matched' });
  });
});
