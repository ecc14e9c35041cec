import { sql } from 'kysely';
import pino from 'pino';
import { describe, expect, it, vi } from 'vitest';
import type { MonitorRequest } from '../../contract/index.ts';
import type { Database } from '../db/database.ts';
import type { StoredAnswer } from '../reviews/look-up-row.ts';
import { SqlReviewStore } from '../stores/reviews/review-store.ts';
import { MemorySessionStore } from '../stores/sessions/memory.ts';
import { keyFingerprint } from '../stores/sessions/types.ts';
import { databaseBackends } from '../test-support/database-backends.ts';
import { seedReview } from '../test-support/seed-review.ts';
import { WebhookEndpoints } from '../webhooks/endpoint-store.ts';
import { WebhookOutbox } from '../webhooks/outbox-store.ts';
import { WebhookSecrets } from '../webhooks/secrets.ts';
import { createMonitoring, type MonitoringOptions } from './index.ts';
import { nextRunAfter } from './schedule.ts';

/*
 * The scheduler on both databases, as replicas run it: two at once claim each scheduled time once and start one
 * run for it; runs missed while no replica was up are made once; a replica that dies after its claim leaves a
 * lease another takes; the monthly cap pauses the monitor (monitor.paused queued); a daily 09:00 in New York
 * stays 09:00 across the March change.
 */

const ANSWER: StoredAnswer = { outcome: 'not_found', cached: false, retrievedAt: '2026-11-01T09:00:00.000Z' };
const HOUR = 3_600_000;
const HOURLY: MonitorRequest = {
  interval: 'hour',
  timeOfDay: '00:00',
  timeZone: 'UTC',
  rules: { anyChange: true, kinds: [], staleDays: 365 },
  monthlyCap: 1_000_000,
};
const silent = pino({ level: 'silent' });
const SECRETS = new WebhookSecrets('a server secret of at least thirty-two characters');

function replicas(database: Database, clock: { t: number }, count = 2, audited = false) {
  const now = () => clock.t;
  const reviews = { store: new SqlReviewStore(database.db, now), worker: { notify() {} }, database };
  const outbox = new WebhookOutbox(database.db, now, SECRETS);
  return Array.from({ length: count }, () =>
    createMonitoring({
      reviews: reviews as never,
      logger: silent,
      minIntervalMinutes: 1,
      maxPendingRows: 1_000_000,
      now,
      leaseMs: 60_000,
      webhooks: { enqueue: outbox.enqueue.bind(outbox) } as never,
      audited,
    }),
  );
}

/** One server's monitoring on `database` by `clock` (every minute offered), with what a test changes. */
function monitoringOn(database: Database, clock: { t: number }, over: Partial<MonitoringOptions> = {}) {
  const now = () => clock.t;
  return createMonitoring({
    reviews: { store: new SqlReviewStore(database.db, now), worker: { notify() {} }, database } as never,
    logger: silent,
    minIntervalMinutes: 1,
    maxPendingRows: 1_000_000,
    now,
    ...over,
  });
}

async function review(database: Database, accountId: string, total = 2, excludeAll = false) {
  const id = await seedReview(database, {
    accountId,
    name: 'Collateral',
    runs: 1,
    total,
    row: (i) => ({ address: `${i + 1} Main St`, answers: [ANSWER] }),
  });
  // Every row excluded: a Check again finishes as it starts, so a second run for one slot would show at once.
  if (excludeAll)
    await database.db
      .updateTable('review_rows')
      .set({ excluded: '{"reason":"test"}' })
      .where('review_id', '=', id)
      .execute();
  return id;
}

const runsOf = async (database: Database, reviewId: string) =>
  Number(
    (
      await database.db
        .selectFrom('review_runs')
        .select((eb) => eb.fn.countAll<number>().as('n'))
        .where('review_id', '=', reviewId)
        .executeTakeFirstOrThrow()
    ).n,
  );

const slotsOf = (database: Database, reviewId: string) =>
  database.db
    .selectFrom('monitor_slots')
    .selectAll()
    .where('review_id', '=', reviewId)
    .orderBy('scheduled_at')
    .execute();

describe.each(databaseBackends('monitoring'))('monitoring scheduler ($name)', (backend) => {
  let n = 0;
  const account = () => `acct_mon_${backend.name}_${++n}`;

  it('two replicas racing start exactly one run per monitor and scheduled time', async () => {
    const db = backend.database;
    const clock = { t: Date.UTC(2027, 0, 4, 10, 30) };
    const [a, b] = replicas(db, clock) as [
      ReturnType<typeof createMonitoring>,
      ReturnType<typeof createMonitoring>,
    ];
    const acct = account();
    const ids = await Promise.all(Array.from({ length: 8 }, () => review(db, acct, 2, true)));
    for (const id of ids)
      expect(await a.monitors.put(acct, id, HOURLY, 'ab12cd34')).toMatchObject({ reviewId: id });
    const rounds = 4;
    for (let round = 1; round <= rounds; round++) {
      clock.t += HOUR;
      await Promise.all([a.scheduler.tick(), b.scheduler.tick(), a.scheduler.tick(), b.scheduler.tick()]);
    }
    for (const id of ids) {
      const slots = await slotsOf(db, id);
      expect(slots.map((s) => [s.state, Number(s.run)])).toEqual(
        Array.from({ length: rounds }, (_, i) => ['started', i + 2]),
      );
      // The first run, then one per scheduled time: never two for one.
      expect(await runsOf(db, id)).toBe(1 + rounds);
    }
  });

  it('runs missed while no replica was up are made once, the next time counted from now', async () => {
    const db = backend.database;
    const clock = { t: Date.UTC(2027, 0, 4, 10, 30) };
    const [a] = replicas(db, clock, 1) as [ReturnType<typeof createMonitoring>];
    const acct = account();
    const id = await review(db, acct);
    await a.monitors.put(acct, id, { ...HOURLY, interval: 'day', timeOfDay: '09:00' }, 'ab12cd34');
    clock.t += 5 * 24 * HOUR;
    await a.scheduler.tick();
    await a.scheduler.tick();
    const slots = await slotsOf(db, id);
    expect(slots).toHaveLength(1);
    expect(Number(slots[0]?.scheduled_at)).toBe(Date.UTC(2027, 0, 5, 9));
    expect(slots[0]?.state).toBe('started');
    const [m] = await a.monitors.list(acct);
    expect(m?.nextRunAt).toBe(new Date(Date.UTC(2027, 0, 10, 9)).toISOString());
    expect(await runsOf(db, id)).toBe(2);
  });

  it('a replica that dies after claiming leaves a lease that another takes once it runs out', async () => {
    const db = backend.database;
    const clock = { t: Date.UTC(2027, 0, 4, 10, 30) };
    const [a, b] = replicas(db, clock) as [
      ReturnType<typeof createMonitoring>,
      ReturnType<typeof createMonitoring>,
    ];
    const acct = account();
    const id = await review(db, acct);
    await a.monitors.put(acct, id, HOURLY, 'ab12cd34');
    clock.t += HOUR;
    // Replica a claims the slot and dies before starting its run.
    expect(await a.scheduler.claimDue()).toBe(1);
    await b.scheduler.tick();
    expect((await slotsOf(db, id))[0]?.state).toBe('claimed');
    clock.t += 61_000;
    await b.scheduler.tick();
    expect((await slotsOf(db, id)).map((s) => [s.state, s.run])).toEqual([['started', 2]]);
    expect(await runsOf(db, id)).toBe(2);
  });

  it('a run that would pass the monthly cap is not started: the monitor pauses and monitor.paused is queued', async () => {
    const db = backend.database;
    const clock = { t: Date.UTC(2027, 0, 4, 10, 30) };
    const [a] = replicas(db, clock, 1) as [ReturnType<typeof createMonitoring>];
    const acct = account();
    await new WebhookEndpoints(db.db, () => clock.t, SECRETS).create(
      { accountId: acct, visitor: null },
      {
        url: 'https://hooks.example/in',
        events: ['monitor.paused'],
        createdBy: 'ab12cd34',
      },
    );
    const id = await review(db, acct, 3);
    await a.monitors.put(acct, id, { ...HOURLY, monthlyCap: 5 }, 'ab12cd34');
    clock.t += HOUR;
    await a.scheduler.tick();
    // The run takes its 3 rows; finished, as the worker would.
    await sql`update review_runs set finished_at = ${clock.t} where review_id = ${id}`.execute(db.db);
    clock.t += HOUR;
    await a.scheduler.tick();
    const [m] = await a.monitors.list(acct);
    expect(m).toMatchObject({ pausedReason: 'cap_reached', usedThisMonth: 3, monthlyCap: 5 });
    expect((await slotsOf(db, id)).map((s) => s.state)).toEqual(['started', 'capped']);
    expect(await runsOf(db, id)).toBe(2);
    const queued = await db.db
      .selectFrom('webhook_outbox')
      .selectAll()
      .where('account_id', '=', acct)
      .execute();
    expect(queued.map((q) => [q.type, JSON.parse(q.payload).data.reason])).toEqual([
      ['monitor.paused', 'cap_reached'],
    ]);
    // Paused: later times are not claimed until it is saved again; saved with a higher cap, it runs.
    clock.t += 3 * HOUR;
    await a.scheduler.tick();
    expect(await slotsOf(db, id)).toHaveLength(2);
    expect(await a.monitors.put(acct, id, { ...HOURLY, monthlyCap: 6 }, 'ab12cd34')).toMatchObject({
      pausedReason: null,
    });
    clock.t += HOUR;
    await a.scheduler.tick();
    expect((await slotsOf(db, id)).map((s) => s.state)).toEqual(['started', 'capped', 'started']);
  });

  it('a monitor its cap paused resumes at its month’s turn in its zone, across a DST change: once, audited', async () => {
    const db = backend.database;
    // New York: paused in EST (UTC-5); its April begins at 00:00 EDT (UTC-4), 04:00 UTC, after the March change.
    const clock = { t: Date.UTC(2027, 2, 10, 15) };
    const [a, b] = replicas(db, clock, 2, true) as [
      ReturnType<typeof createMonitoring>,
      ReturnType<typeof createMonitoring>,
    ];
    const acct = account();
    const id = await review(db, acct, 3);
    const daily: MonitorRequest = {
      ...HOURLY,
      interval: 'day',
      timeOfDay: '09:00',
      timeZone: 'America/New_York',
      monthlyCap: 5,
    };
    await a.monitors.put(acct, id, daily, 'ab12cd34');
    clock.t = Date.UTC(2027, 2, 11, 14, 1); // 09:01 EST: the first run takes its 3 rows
    await a.scheduler.tick();
    await sql`update review_runs set finished_at = ${clock.t} where review_id = ${id}`.execute(db.db);
    clock.t = Date.UTC(2027, 2, 12, 14, 1); // the second would pass the cap of 5
    await a.scheduler.tick();
    expect((await a.monitors.list(acct))[0]).toMatchObject({ pausedReason: 'cap_reached' });
    const racing = () => Promise.all([a.scheduler.tick(), b.scheduler.tick(), a.scheduler.tick()]);
    clock.t = Date.UTC(2027, 3, 1, 3, 59); // 23:59 EDT, March 31: still March in New York (April in UTC)
    await racing();
    expect((await a.monitors.list(acct))[0]).toMatchObject({ pausedReason: 'cap_reached' });
    clock.t = Date.UTC(2027, 3, 1, 4, 0); // 00:00 EDT, April 1
    await racing();
    expect((await a.monitors.list(acct))[0]).toMatchObject({
      pausedReason: null,
      usedThisMonth: 0,
      nextRunAt: '2027-04-01T13:00:00.000Z', // 09:00 EDT
    });
    const entries = await db.db
      .selectFrom('audit_entries')
      .select(['kind', 'query', 'key_fingerprint'])
      .where('review_id', '=', id)
      .execute();
    expect(entries).toEqual([
      {
        kind: 'monitor_started',
        query: 'resumed: a new month (America/New_York), 5 lookups',
        key_fingerprint: 'ab12cd34',
      },
    ]);
    clock.t = Date.UTC(2027, 3, 1, 13, 0);
    await a.scheduler.tick();
    expect((await slotsOf(db, id)).map((s) => s.state)).toEqual(['started', 'capped', 'started']);
  });

  it('an unreadable monitor (unknown time zone, rules that do not parse) is paused and logged; the others run', async () => {
    const db = backend.database;
    const clock = { t: Date.UTC(2027, 0, 4, 10, 30) };
    const lines: string[] = [];
    const logger = pino({ level: 'warn' }, { write: (line: string) => void lines.push(line) });
    const a = monitoringOn(db, clock, { logger });
    const acct = account();
    // Created in this order, and the broken ones due first: each was first in its step's query.
    const [badRules, badZone, good] = [
      await review(db, acct, 2, true),
      await review(db, acct, 2, true),
      await review(db, acct, 2, true),
    ] as [string, string, string];
    for (const id of [badRules, badZone, good]) await a.monitors.put(acct, id, HOURLY, 'ab12cd34');
    await db.db
      .updateTable('monitors')
      .set({ time_zone: 'Mars/Olympus_Mons', next_run_at: clock.t - HOUR })
      .where('review_id', '=', badZone)
      .execute();
    clock.t += HOUR;
    await a.scheduler.tick();
    // Round 2: the rules break once the runs are started, before they are decided.
    clock.t += HOUR;
    await a.scheduler.claimDue();
    await a.scheduler.startClaimed();
    await db.db
      .updateTable('monitors')
      .set({ rules: '{"anyChange": tru' })
      .where('review_id', '=', badRules)
      .execute();
    await a.scheduler.tick();
    const state = async (id: string) =>
      (await slotsOf(db, id)).map((s) => [s.state, s.decided_at === null ? 'undecided' : 'decided']);
    expect(await state(good)).toEqual([
      ['started', 'decided'],
      ['started', 'decided'],
    ]);
    // Its run of round 2 was decided, with no alert, once its rules no longer read; the next time it is paused.
    expect(await state(badRules)).toEqual([
      ['started', 'decided'],
      ['started', 'decided'],
    ]);
    expect(await slotsOf(db, badZone)).toEqual([]);
    const paused = await db.db
      .selectFrom('monitors')
      .select(['review_id', 'paused_reason'])
      .where('account_id', '=', acct)
      .execute();
    expect(Object.fromEntries(paused.map((p) => [p.review_id, p.paused_reason]))).toEqual({
      [badRules]: null,
      [good]: null,
      [badZone]: 'unreadable',
    });
    clock.t += HOUR;
    await a.scheduler.tick();
    expect((await a.monitors.list(acct)).find((m) => m.reviewId === badRules)?.pausedReason).toBe(
      'unreadable',
    );
    expect((await slotsOf(db, good)).length).toBe(3);
    const logged = lines.map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(logged).toEqual(
      expect.arrayContaining([
        expect.objectContaining({
          step: 'claim',
          reviewId: badZone,
          msg: 'monitor skipped: its row cannot be read',
        }),
        expect.objectContaining({ step: 'decide', reviewId: badRules }),
        expect.objectContaining({ step: 'claim', reviewId: badRules }),
      ]),
    );
    // Named by review and reason, never by the row's contents.
    expect(lines.join('')).not.toMatch(/Olympus|anyChange/);
  });

  it('a monitor saved every minute runs at the new minimum once MONITOR_MIN_INTERVAL_MINUTES is raised to 60', async () => {
    const db = backend.database;
    const clock = { t: Date.UTC(2027, 0, 4, 10, 30) };
    const acct = account();
    const id = await review(db, acct, 2, true);
    const [before] = replicas(db, clock, 1) as [ReturnType<typeof createMonitoring>];
    await before.monitors.put(acct, id, { ...HOURLY, interval: 'minute' }, 'ab12cd34');
    // Restarted with a minimum of an hour.
    const after = monitoringOn(db, clock, { minIntervalMinutes: 60 });
    for (let minute = 0; minute < 120; minute++) {
      clock.t += 60_000;
      await after.scheduler.claimDue();
    }
    // The time saved under the old minimum, then the top of each hour.
    expect((await slotsOf(db, id)).map((s) => new Date(Number(s.scheduled_at)).toISOString())).toEqual([
      '2027-01-04T10:31:00.000Z',
      '2027-01-04T11:00:00.000Z',
      '2027-01-04T12:00:00.000Z',
    ]);
    expect((await after.monitors.list(acct))[0]?.interval).toBe('hour');
  });

  it('on the public demo a visitor’s monitor runs only while that visitor is signed in, never on another’s key', async () => {
    const db = backend.database;
    const clock = { t: Date.UTC(2027, 0, 4, 10, 30) };
    const acct = account();
    // The demo's sessions, idle out after 90 minutes; a stranger on another demo key is signed in throughout.
    const sessions = new MemorySessionStore(
      { idleMs: 90 * 60_000, absoluteMs: 12 * HOUR, maxSessions: 100 },
      () => clock.t,
    );
    const demo = { account: { name: 'Demo', plan: 'enterprise' as const }, accountId: acct };
    const signIn = (keyHash: string) =>
      sessions.create({ ...demo, apiKey: `pi_demo_${keyHash[0]}`, keyHash });
    await signIn('b'.repeat(64));
    const visitorHash = 'a'.repeat(64);
    const a = monitoringOn(db, clock, { visitorSessions: sessions });
    const id = await review(db, acct, 2, true);
    await a.monitors.put(acct, id, HOURLY, keyFingerprint(visitorHash));
    clock.t += HOUR; // only the stranger is signed in: this time is skipped
    await a.scheduler.tick();
    await signIn(visitorHash);
    clock.t += HOUR; // the visitor is back (an hour idle since): it runs
    await a.scheduler.tick();
    clock.t += HOUR; // two hours idle: the checks an hour apart did not keep the session alive
    await a.scheduler.tick();
    expect((await slotsOf(db, id)).map((s) => [s.state, s.run === null ? null : Number(s.run)])).toEqual([
      ['refused', null],
      ['started', 2],
      ['refused', null],
    ]);
    expect(await runsOf(db, id)).toBe(2);
  });

  it('the loop polls on its own once started, and claims nothing once stopped', async () => {
    const db = backend.database;
    const clock = { t: Date.UTC(2027, 0, 4, 10, 30) };
    const [a] = replicas(db, clock, 1) as [ReturnType<typeof createMonitoring>];
    const acct = account();
    const id = await review(db, acct, 1, true);
    await a.monitors.put(acct, id, HOURLY, 'ab12cd34');
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    try {
      clock.t += HOUR;
      a.scheduler.start();
      await vi.advanceTimersByTimeAsync(5_000);
      await vi.waitFor(async () => expect(await slotsOf(db, id)).toHaveLength(1));
      clock.t += HOUR;
      await vi.waitFor(async () => {
        await vi.advanceTimersByTimeAsync(5_000);
        expect(await slotsOf(db, id)).toHaveLength(2);
      });
      // Stopped: nothing more is claimed, however long it waits.
      await a.scheduler.stop();
      clock.t += HOUR;
      await vi.advanceTimersByTimeAsync(60_000);
      await a.scheduler.stop(); // waits for a pass that should not have begun
      expect(await slotsOf(db, id)).toHaveLength(2);
    } finally {
      vi.useRealTimers();
    }
  });

  it('the database itself keeps one slot per monitor and scheduled time', async () => {
    const db = backend.database;
    const acct = account();
    const id = await review(db, acct);
    const slot = {
      review_id: id,
      scheduled_at: 1,
      claimed_at: 1,
      state: 'claimed',
      lease_owner: 'x',
      lease_until: 0,
      run: null,
      decided_at: null,
    };
    await db.db.insertInto('monitor_slots').values(slot).execute();
    await expect(
      db.db
        .insertInto('monitor_slots')
        .values({ ...slot, lease_owner: 'y' })
        .execute(),
    ).rejects.toThrow();
  });

  it('a daily 09:00 in America/New_York runs at 09:00 on both sides of the March change', async () => {
    const db = backend.database;
    const clock = { t: Date.UTC(2027, 2, 12, 15) };
    const [a] = replicas(db, clock, 1) as [ReturnType<typeof createMonitoring>];
    const acct = account();
    const id = await review(db, acct, 1, true);
    await a.monitors.put(
      acct,
      id,
      { ...HOURLY, interval: 'day', timeOfDay: '09:00', timeZone: 'America/New_York' },
      'ab12cd34',
    );
    const times: string[] = [];
    for (let day = 0; day < 3; day++) {
      const [m] = await a.monitors.list(acct);
      clock.t = Date.parse(m?.nextRunAt ?? '');
      await a.scheduler.tick();
    }
    for (const s of await slotsOf(db, id)) times.push(new Date(Number(s.scheduled_at)).toISOString());
    // 09:00 EST is 14:00 UTC; from Sunday 14 March 09:00 EDT, 13:00 UTC.
    expect(times).toEqual([
      '2027-03-13T14:00:00.000Z',
      '2027-03-14T13:00:00.000Z',
      '2027-03-15T13:00:00.000Z',
    ]);
  });
});

describe('next run', () => {
  it('weekly on the day set up, hourly at its minute in a zone half an hour off UTC', () => {
    const now = Date.UTC(2027, 2, 12, 15, 10); // a Friday
    const base = { timeOfDay: '09:00', weekday: 1, timeZone: 'America/New_York' };
    expect(new Date(nextRunAfter({ ...base, interval: 'week' }, now)).toISOString()).toBe(
      '2027-03-15T13:00:00.000Z',
    );
    const kolkata = { ...base, interval: 'hour' as const, timeOfDay: '00:30', timeZone: 'Asia/Kolkata' };
    expect(new Date(nextRunAfter(kolkata, now)).toISOString()).toBe('2027-03-12T16:00:00.000Z');
    expect(nextRunAfter({ ...base, interval: 'minute' }, now + 5_000)).toBe(now + 60_000);
  });
});
