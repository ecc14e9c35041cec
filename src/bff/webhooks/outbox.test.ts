import { randomBytes } from 'node:crypto';
import { sql } from 'kysely';
import { beforeEach, describe, expect, it } from 'vitest';
import { ReviewCompletedData, type WebhookEventType, WebhookMessage } from '../../contract/index.ts';
import type { Database } from '../db/database.ts';
import { createLogger } from '../logger.ts';
import { databaseBackends } from '../test-support/database-backends.ts';
import { FORGET_BATCH, nextAttemptAt, WebhookDispatcher } from './dispatcher.ts';
import { WebhookEndpoints } from './endpoint-store.ts';
import { type LeasedMessage, newRow, RETRY_WINDOW_MS, WebhookOutbox } from './outbox-store.ts';
import { WebhookSecrets } from './secrets.ts';
import type { AttemptResult } from './sender.ts';

/*
 * The outbox on both databases: an event is queued once per endpoint however often it is enqueued, never sent
 * twice by dispatchers racing on one database, survives a dispatcher that dies mid-attempt, is retried with
 * growing waits for 24 hours and then given up; review.completed comes from finished runs. Time is a fake clock
 * (src/bff/clock.ts) the test moves; the attempt is a function the test answers.
 */

const LEASE = 60_000;
const SECRETS = new WebhookSecrets('a server secret of at least thirty-two characters');
const logger = createLogger('silent');
const ok: AttemptResult = { delivered: true, statusCode: 204, error: null, durationMs: 3, response: null };
const down: AttemptResult = {
  delivered: false,
  statusCode: 503,
  error: 'The receiver answered 503.',
  durationMs: 3,
  response: 'busy',
};

function world(database: Database) {
  const clock = { t: Date.UTC(2026, 10, 20, 9) };
  const now = () => clock.t;
  const endpoints = new WebhookEndpoints(database.db, now, SECRETS);
  const outbox = new WebhookOutbox(database.db, now, SECRETS);
  const account = `acct-${randomBytes(6).toString('hex')}`;
  const scope = { accountId: account, visitor: null };
  const dispatcher = (attempt: (m: LeasedMessage) => Promise<AttemptResult>) =>
    new WebhookDispatcher({
      db: database.db,
      outbox,
      logger,
      now,
      leaseMs: LEASE,
      random: () => 0.5,
      attempt,
    });
  const endpoint = async (events: WebhookEventType[] = ['review.completed', 'review.changed']) =>
    (
      await endpoints.create(scope, {
        url: 'https://hooks.example.com/x',
        events,
        createdBy: 'ab12cd34',
      })
    ).row;
  const state = async (id: string) =>
    database.db.selectFrom('webhook_outbox').selectAll().where('id', '=', id).executeTakeFirstOrThrow();
  const attempts = async (id: string) =>
    database.db
      .selectFrom('webhook_attempts')
      .selectAll()
      .where('outbox_id', '=', id)
      .orderBy('attempt')
      .execute();
  return { clock, endpoints, outbox, account, dispatcher, endpoint, state, attempts };
}

/** A review of the account whose run 1 finished at `finishedAt` (cancelled when said). */
async function finishedRun(database: Database, accountId: string, finishedAt: number, cancelled = false) {
  const id = `rv_${randomBytes(8).toString('hex')}`;
  await database.db
    .insertInto('reviews')
    .values({
      id,
      account_id: accountId,
      created_by: 'ab12cd34',
      created_at: finishedAt - 1000,
      client_token: id,
      name: 'Collateral Q4',
      kind: 'paste',
      origin: null,
      columns: '[]',
      total_rows: 3,
      received_rows: 3,
      skipped_blank: 0,
      last_seq: 3,
    })
    .execute();
  await sql`insert into review_runs (review_id, run, started_at, finished_at, fresh, total, done, matched,
      not_found, ambiguous, failed, cancelled_at)
    values (${id}, 1, ${finishedAt - 500}, ${finishedAt}, 0, 3, 3, 2, 1, 0, 0, ${cancelled ? finishedAt : null})`.execute(
    database.db,
  );
  return id;
}

describe.each(databaseBackends('webhook-outbox'))('webhook outbox on $name', (backend) => {
  // Dispatchers lease every account's due messages: each test starts from an empty outbox.
  beforeEach(async () => {
    for (const table of ['webhook_attempts', 'webhook_outbox', 'webhook_endpoints'] as const)
      await backend.database.db.deleteFrom(table).execute();
  });

  it('queues an event once per subscribed, enabled endpoint, however often it is enqueued', async () => {
    const w = world(backend.database);
    const a = await w.endpoint(['review.changed']);
    const b = await w.endpoint(['review.completed']);
    const off = await w.endpoint(['review.changed']);
    await w.endpoints.update({ accountId: w.account, visitor: null }, off.id, { enabled: false });
    const data = { reviewId: 'rv_1', run: 2 };
    const first = await w.outbox.enqueue(w.account, 'review.changed', data, 'review.changed:rv_1:2');
    const again = await Promise.all(
      Array.from({ length: 5 }, () =>
        w.outbox.enqueue(w.account, 'review.changed', data, 'review.changed:rv_1:2'),
      ),
    );
    expect(first).toHaveLength(1);
    expect(again.flat()).toEqual([]);
    const row = await w.state(first[0] as string);
    expect(row.endpoint_id).toBe(a.id);
    expect(WebhookMessage.parse(JSON.parse(row.payload))).toMatchObject({ type: 'review.changed', data });
    expect(b.id).not.toBe(a.id);
  });

  it('never sends an event twice with dispatchers racing on one database', async () => {
    const w = world(backend.database);
    const sent = new Map<string, number>();
    const racers = Array.from({ length: 4 }, () =>
      w.dispatcher(async (m) => {
        sent.set(m.id, (sent.get(m.id) ?? 0) + 1);
        await new Promise((r) => setImmediate(r));
        return ok;
      }),
    );
    const ep = await w.endpoint();
    let queued = 0;
    for (let round = 0; round < 8; round++) {
      for (let i = 0; i < 12; i++)
        queued += (await w.outbox.enqueue(w.account, 'review.changed', { i }, `r${round}-${i}`)).length;
      await Promise.all(racers.map((d) => d.tick()));
    }
    expect(sent.size).toBe(queued);
    expect([...sent.values()].filter((n) => n > 1)).toEqual([]);
    const left = await backend.database.db
      .selectFrom('webhook_outbox')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where('endpoint_id', '=', ep.id)
      .where('state', '!=', 'delivered')
      .executeTakeFirstOrThrow();
    expect(Number(left.n)).toBe(0);
  });

  it('survives a dispatcher killed mid-attempt: another sends the event once its lease runs out', async () => {
    const w = world(backend.database);
    await w.endpoint();
    const [id] = await w.outbox.enqueue(w.account, 'review.changed', { n: 1 }, 'killed');
    let release: (r: AttemptResult) => void = () => {};
    const dying = w.dispatcher(() => new Promise((r) => (release = r)));
    const dead = dying.tick(); // leases and hangs in its attempt: the replica is gone as far as anyone knows
    await expect.poll(async () => (await w.state(id as string)).state).toBe('sending');
    const survivor = w.dispatcher(async () => ok);
    expect(await survivor.tick()).toBe(0);
    w.clock.t += LEASE - 1;
    expect(await survivor.tick()).toBe(0);
    w.clock.t += 1;
    expect(await survivor.tick()).toBe(1);
    expect(await w.state(id as string)).toMatchObject({ state: 'delivered', attempts: 2 });
    // The dead replica's attempt comes back late: logged, but the state is the survivor's.
    release(down);
    await dead;
    expect((await w.state(id as string)).state).toBe('delivered');
    expect((await w.attempts(id as string)).map((a) => [a.attempt, a.status_code])).toEqual([
      [1, 503],
      [2, 204],
    ]);
  });

  it('retries with growing waits for 24 hours, then gives up', async () => {
    const w = world(backend.database);
    await w.endpoint();
    const [id] = await w.outbox.enqueue(w.account, 'review.changed', { n: 1 }, 'never');
    const start = w.clock.t;
    const failing = w.dispatcher(async () => down);
    const times: number[] = [];
    for (let i = 0; i < 100; i++) {
      times.push(w.clock.t);
      expect(await failing.tick()).toBe(1);
      const row = await w.state(id as string);
      if (row.state === 'failed') break;
      expect(row.state).toBe('pending');
      w.clock.t = Number(row.next_attempt_at);
    }
    const gaps = times.slice(1).map((t, i) => t - (times[i] as number));
    expect(gaps.slice(0, 4)).toEqual([5_000, 10_000, 20_000, 40_000]);
    expect(Math.max(...gaps)).toBeLessThanOrEqual(3_600_000);
    expect(times.at(-1)).toBe(start + RETRY_WINDOW_MS);
    expect((await w.state(id as string)).state).toBe('failed');
    expect(await w.attempts(id as string)).toHaveLength(times.length);
    w.clock.t += 7 * 24 * 3_600_000;
    expect(await failing.tick()).toBe(0);
  });

  it('sends review.completed once per finished run and endpoint, from the database alone', async () => {
    const w = world(backend.database);
    const before = await finishedRun(backend.database, w.account, w.clock.t - 1); // finished before the endpoint
    const ep = await w.endpoint(['review.completed']);
    await w.endpoint(['review.changed']); // not subscribed
    const reviewId = await finishedRun(backend.database, w.account, w.clock.t + 10);
    await finishedRun(backend.database, w.account, w.clock.t + 20, true); // cancelled: nothing
    await finishedRun(backend.database, 'another-account', w.clock.t + 30);
    const bodies: string[] = [];
    const dispatchers = [0, 1, 2].map(() =>
      w.dispatcher(async (m) => {
        bodies.push(m.payload);
        return ok;
      }),
    );
    await Promise.all(dispatchers.map((d) => d.tick()));
    await Promise.all(dispatchers.map((d) => d.tick()));
    expect(bodies).toHaveLength(1);
    const message = WebhookMessage.parse(JSON.parse(bodies[0] as string));
    expect(message.type).toBe('review.completed');
    expect(ReviewCompletedData.parse(message.data)).toEqual({
      reviewId,
      name: 'Collateral Q4',
      run: 1,
      finishedAt: new Date(w.clock.t + 10).toISOString(),
      counts: { total: 3, matched: 2, notFound: 1, ambiguous: 0, failed: 0 },
    });
    const rows = await backend.database.db
      .selectFrom('webhook_outbox')
      .select('endpoint_id')
      .where('account_id', '=', w.account)
      .execute();
    expect(rows).toEqual([{ endpoint_id: ep.id }]);
    expect(before).not.toBe(reviewId);
  });

  it('announces the runs finished since the last pass: a backlog over passes, a late commit; not every run each time', async () => {
    const db = backend.database;
    const w = world(db);
    await w.endpoint(['review.completed']);
    const told: string[] = [];
    const tell = async (m: LeasedMessage) => {
      told.push(JSON.parse(m.payload).data.reviewId);
      return ok;
    };
    const d = w.dispatcher(tell);
    w.clock.t += 2 * 3_600_000;
    await d.tick();
    // More runs at once than one pass reads (200), and one whose finish commits a minute after it says.
    const backlog: string[] = [];
    for (let i = 0; i < 210; i++) backlog.push(await finishedRun(db, w.account, w.clock.t + 1_000));
    const late = await finishedRun(db, w.account, w.clock.t - 60_000);
    w.clock.t += 2_000;
    for (let pass = 0; pass < 3; pass++) await d.tick();
    expect(told.toSorted()).toEqual([...backlog, late].toSorted());
    // A run that says it finished an hour before the last pass is behind the watermark: passes no longer read it.
    const behind = await finishedRun(db, w.account, w.clock.t - 3_600_000);
    w.clock.t += 1_000;
    await d.tick();
    expect(told).not.toContain(behind);
    // A dispatcher's first pass (a start) reads back a day: the run of a replica that died is announced then.
    await w.dispatcher(tell).tick();
    expect(told.filter((id) => id === behind)).toHaveLength(1);
    expect(told).toHaveLength(212);
  });

  it('announces a run whose pass failed to queue it at the next pass, however long ago it finished', async () => {
    const db = backend.database;
    const w = world(db);
    await w.endpoint(['review.completed']);
    const missed = await finishedRun(db, w.account, w.clock.t + 1_000);
    w.clock.t += 2 * 3_600_000; // found by a start's look-back, well behind the next pass's watermark
    let failures = 1;
    const flaky = new (class extends WebhookOutbox {
      override insert(rows: Parameters<WebhookOutbox['insert']>[0]) {
        return failures-- > 0 ? Promise.reject(new Error('connection reset')) : super.insert(rows);
      }
    })(db.db, () => w.clock.t, SECRETS);
    const told: string[] = [];
    const d = new WebhookDispatcher({
      db: db.db,
      outbox: flaky,
      logger,
      now: () => w.clock.t,
      leaseMs: LEASE,
      random: () => 0.5,
      attempt: async (m) => {
        told.push(JSON.parse(m.payload).data.reviewId);
        return ok;
      },
    });
    await expect(d.tick()).rejects.toThrow('connection reset');
    w.clock.t += 1_000;
    await d.tick();
    expect(told).toEqual([missed]);
  });

  it('tells a demo visitor’s endpoint only of that visitor’s reviews', async () => {
    const w = world(backend.database);
    const events: WebhookEventType[] = ['review.completed', 'review.changed', 'monitor.paused'];
    const url = 'https://hooks.example.com/v';
    const { row: own } = await w.endpoints.create(
      { accountId: w.account, visitor: 'ab12cd34' },
      { url, events, createdBy: 'ab12cd34' },
    );
    await w.endpoints.create(
      { accountId: w.account, visitor: 'ffff0000' },
      { url, events, createdBy: 'ffff0000' },
    );
    const reviewId = await finishedRun(backend.database, w.account, w.clock.t + 10); // started by key ab12cd34
    await w.outbox.enqueue(w.account, 'review.changed', {}, 'changed:1', { owner: 'ab12cd34' });
    await w.outbox.enqueue(w.account, 'review.changed', {}, 'changed:2');
    // No owner given: the review the event names says whose it is.
    await w.outbox.enqueue(w.account, 'monitor.paused', { reviewId }, 'paused:1');
    const sent: string[] = [];
    await w
      .dispatcher(async (m) => {
        sent.push(`${m.endpointId} ${JSON.parse(m.payload).type}`);
        return ok;
      })
      .tick();
    expect(sent.sort()).toEqual([
      `${own.id} monitor.paused`,
      `${own.id} review.changed`,
      `${own.id} review.completed`,
    ]);
  });

  it('holds back the rest of a failing endpoint’s backlog, so other endpoints’ events go first', async () => {
    const w = world(backend.database);
    const { row: dead } = await w.endpoints.create(
      { accountId: w.account, visitor: null },
      { url: 'https://dead.example.com/', events: ['review.changed'], createdBy: 'ab12cd34' },
    );
    for (let i = 0; i < 30; i++) await w.outbox.enqueue(w.account, 'review.changed', { i }, `dead-${i}`);
    await w.endpoint(['monitor.paused']);
    const [healthy] = await w.outbox.enqueue(w.account, 'monitor.paused', { reviewId: null }, 'healthy');
    const tried: string[] = [];
    await w
      .dispatcher(async (m) => {
        tried.push(m.endpointId);
        return m.endpointId === dead.id ? down : ok;
      })
      .tick();
    expect(tried.filter((id) => id === dead.id).length).toBeLessThanOrEqual(8);
    expect((await w.state(healthy as string)).state).toBe('delivered');
  });

  it('forgets delivered and given-up events after 30 days, never one still owed', async () => {
    const w = world(backend.database);
    await w.endpoint();
    const [delivered] = await w.outbox.enqueue(w.account, 'review.changed', {}, 'old-ok');
    const [failed] = await w.outbox.enqueue(w.account, 'review.changed', {}, 'old-failed');
    await w.dispatcher(async (m) => (m.id === delivered ? ok : down)).tick();
    await backend.database.db
      .updateTable('webhook_outbox')
      .set({ state: 'failed' })
      .where('id', '=', failed as string)
      .execute();
    w.clock.t += 60_000;
    const [owed] = await w.outbox.enqueue(w.account, 'review.changed', {}, 'old-owed');
    await backend.database.db
      .updateTable('webhook_outbox')
      .set({ next_attempt_at: w.clock.t + 40 * 86_400_000 })
      .where('id', '=', owed as string)
      .execute();
    w.clock.t += 30 * 86_400_000;
    await w.dispatcher(async () => ok).tick();
    const left = await backend.database.db.selectFrom('webhook_outbox').select('id').execute();
    expect(left.map((r) => r.id)).toEqual([owed]);
    expect(await w.attempts(delivered as string)).toEqual([]);
  });

  it('keeps an old event resent while the log is pruned, with its attempts; a Resend of one pruned is not_found', async () => {
    const db = backend.database;
    const w = world(db);
    await w.endpoint();
    const [resent] = await w.outbox.enqueue(w.account, 'review.changed', {}, 'old-resent');
    const [pruned] = await w.outbox.enqueue(w.account, 'review.changed', {}, 'old-pruned');
    await w.dispatcher(async () => ok).tick();
    w.clock.t += 31 * 86_400_000;
    // The pass has read which events are old; a person's Resend lands before its delete.
    const between = new Proxy(db.db, {
      get(target, name) {
        if (name !== 'transaction') {
          const value = Reflect.get(target, name, target);
          return typeof value === 'function' ? value.bind(target) : value;
        }
        return () => ({
          execute: async (work: Parameters<ReturnType<typeof target.transaction>['execute']>[0]) => {
            const endpointId = (await w.state(resent as string)).endpoint_id;
            expect(await w.outbox.resend(w.account, endpointId, resent as string)).toBe('ok');
            return target.transaction().execute(work);
          },
        });
      },
    });
    const pruning = new WebhookOutbox(between, () => w.clock.t, SECRETS);
    expect(await pruning.forget(w.clock.t - 30 * 86_400_000)).toBe(1);
    expect((await w.state(resent as string)).state).toBe('pending');
    expect(await w.attempts(resent as string)).toHaveLength(1);
    const endpointId = (await w.state(resent as string)).endpoint_id;
    expect(await w.outbox.resend(w.account, endpointId, pruned as string)).toBe('not_found');
  });

  it('forgets a busy log a batch a pass until none is left, not one batch an hour', async () => {
    const db = backend.database;
    const w = world(db);
    const ep = await w.endpoint();
    const old = Array.from({ length: 2 * FORGET_BATCH + 40 }, (_, i) => ({
      ...newRow(ep.id, w.account, 'review.changed', '{}', `busy-${i}`, w.clock.t),
      state: i % 2 ? 'delivered' : 'failed',
    }));
    for (let i = 0; i < old.length; i += 100) await w.outbox.insert(old.slice(i, i + 100));
    const [owed] = await w.outbox.enqueue(w.account, 'review.changed', {}, 'still-owed');
    await db.db
      .updateTable('webhook_outbox')
      .set({ next_attempt_at: w.clock.t + 40 * 86_400_000 })
      .where('id', '=', owed as string)
      .execute();
    w.clock.t += 31 * 86_400_000;
    const d = w.dispatcher(async () => ok);
    // Three passes within a second: a batch, a batch and the last 40.
    for (let pass = 0; pass < 3; pass++) await d.tick();
    const left = await db.db.selectFrom('webhook_outbox').select('id').execute();
    expect(left.map((r) => r.id)).toEqual([owed]);
  });

  it('resends an event with the same id: one more attempt, then failed again if it fails', async () => {
    const w = world(backend.database);
    const ep = await w.endpoint();
    const [id] = await w.outbox.enqueue(w.account, 'review.changed', { n: 1 }, 'resend');
    await w.dispatcher(async () => ok).tick();
    expect(await w.outbox.resend('another-account', ep.id, id as string)).toBe('not_found');
    expect(await w.outbox.resend(w.account, ep.id, id as string)).toBe('ok');
    const ids: string[] = [];
    await w
      .dispatcher(async (m) => {
        ids.push(m.id);
        return down;
      })
      .tick();
    expect(ids).toEqual([id]);
    expect(await w.state(id as string)).toMatchObject({ state: 'failed', attempts: 2 });
  });

  it('resends an event still being retried without cutting its 24 hours of retries short', async () => {
    const w = world(backend.database);
    const ep = await w.endpoint();
    const [id] = await w.outbox.enqueue(w.account, 'review.changed', { n: 1 }, 'resend-retrying');
    const failing = w.dispatcher(async () => down);
    await failing.tick();
    const before = await w.state(id as string);
    expect(before).toMatchObject({ state: 'pending', attempts: 1 });
    w.clock.t += 1_000; // not due yet: Resend brings it forward
    expect(await w.outbox.resend(w.account, ep.id, id as string)).toBe('ok');
    expect(await failing.tick()).toBe(1);
    const after = await w.state(id as string);
    expect(after).toMatchObject({ state: 'pending', attempts: 2 });
    expect(Number(after.retry_until)).toBe(Number(before.retry_until));
    // And it is still retried hours later, until the window's end.
    w.clock.t = Number(before.retry_until) - 60_000;
    expect(await failing.tick()).toBe(1);
    expect(await w.state(id as string)).toMatchObject({ state: 'pending', attempts: 3 });
  });

  it('leases round-robin over accounts: one with 500 queued events does not hold back another’s one', async () => {
    const busy = world(backend.database);
    const quiet = world(backend.database);
    const busyEp = await busy.endpoint();
    const quietEp = await quiet.endpoint();
    const payload = JSON.stringify({ type: 'review.changed', timestamp: '', data: {} });
    // The busy account's 500 were queued first, each due before the quiet account's one.
    await busy.outbox.insert(
      Array.from({ length: 500 }, (_, i) =>
        newRow(busyEp.id, busy.account, 'review.changed', payload, `b${i}`, busy.clock.t - 1_000 + i),
      ),
    );
    const [theOne] = await quiet.outbox.enqueue(quiet.account, 'review.changed', {}, 'q1');
    const first = await busy.outbox.lease('replica-a', 8, LEASE);
    expect(first.map((m) => m.id)).toContain(theOne);
    expect(first.filter((m) => m.endpointId === busyEp.id)).toHaveLength(7);
    expect(first.filter((m) => m.endpointId === quietEp.id)).toHaveLength(1);
  });

  it('sends another account’s event while one account’s receiver hangs, holding at most half the slots', async () => {
    const slow = world(backend.database);
    const other = world(backend.database);
    await slow.endpoint();
    await other.endpoint();
    for (let i = 0; i < 20; i++) await slow.outbox.enqueue(slow.account, 'review.changed', { i }, `s${i}`);
    const hanging: (() => void)[] = [];
    const sent: string[] = [];
    const dispatcher = slow.dispatcher(async (m) => {
      if (m.accountId === slow.account) await new Promise<void>((r) => hanging.push(r));
      sent.push(m.id);
      return ok;
    });
    const pass = dispatcher.tick();
    await expect.poll(() => hanging.length).toBe(4);
    // Queued while the slow receiver holds its slots: the pass is woken and sends it.
    const [theOne] = await other.outbox.enqueue(other.account, 'review.changed', {}, 'o1');
    dispatcher.notify();
    await expect.poll(() => sent).toEqual([theOne]);
    expect(hanging).toHaveLength(4);
    // The slow receiver answers at last: each release lets the pass lease (and hang on) the next few.
    const releaseAll = () => {
      for (const release of hanging.splice(0)) release();
      return sent.length;
    };
    await expect.poll(releaseAll, { timeout: 10_000 }).toBe(21);
    expect(await pass).toBe(21);
  });
});

describe('nextAttemptAt', () => {
  it('jitters each wait by at most a quarter and never passes the deadline', () => {
    expect(nextAttemptAt(1, 0, RETRY_WINDOW_MS, () => 0)).toBe(3_750);
    expect(nextAttemptAt(1, 0, RETRY_WINDOW_MS, () => 0.999_999)).toBe(6_250);
    expect(nextAttemptAt(40, 0, RETRY_WINDOW_MS, () => 0.5)).toBe(3_600_000);
    expect(nextAttemptAt(3, RETRY_WINDOW_MS - 1_000, RETRY_WINDOW_MS, () => 0.5)).toBe(RETRY_WINDOW_MS);
    expect(nextAttemptAt(3, RETRY_WINDOW_MS, RETRY_WINDOW_MS, () => 0.5)).toBeNull();
  });
});
