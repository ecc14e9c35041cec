import { describe, expect, it, vi } from 'vitest';
import {
  type Confidence,
  MonitorListResponse,
  type MonitorRequest,
  NotificationsResponse,
  SearchResponse,
} from '../../contract/index.ts';
import { createReferenceApp } from '../../reference/app.ts';
import { openTestStore } from '../../reference/test-support.ts';
import type { Monitoring } from '../monitoring/index.ts';
import { finished, finishedReview, rowsOf } from '../test-support/review-api.ts';
import { type Harness, reviewDatabase } from '../test-support/review-database.ts';

/*
 * Monitoring through the API, against the reference service with REFERENCE_DRIFT_PERCENT: Monitor a finished
 * review (an audit entry), its scheduled run is a Check again, and the drift it finds leaves an alert whose counts
 * by kind agree with the review's own "Changes since" rows, with review.changed queued carrying each row's before
 * and after; the alert is read, and Stop monitoring ends it.
 */

const { store } = await openTestStore();
const database = reviewDatabase('monitoring-api');
const RANK: Record<Confidence, number> = { low: 0, medium: 1, high: 2 };
const DAILY: MonitorRequest = {
  interval: 'day',
  timeOfDay: '09:00',
  timeZone: 'Europe/Paris',
  rules: { anyChange: true, kinds: [], staleDays: 365 },
  monthlyCap: 10_000,
};

function drifting() {
  const clock = { t: Date.now() };
  const reference = createReferenceApp({
    store,
    cursorSecret: 'reference-test-secret',
    sleep: async () => {},
    now: () => clock.t,
    drift: { percent: 100, seed: 7 },
    rateLimit: { requests: 10_000, seconds: 60 },
  });
  const h = database.make({ fetch: (request) => reference.fetch(request) });
  return { h, clock, monitoring: h.graph.monitoring as Monitoring };
}

async function addresses(h: Harness, n: number): Promise<string[]> {
  const page = SearchResponse.parse(await (await h.call('/api/properties/search?q=main')).json());
  return [...new Set(page.items.filter((p) => !p.attributes.unit).map((p) => p.address))].slice(0, n);
}

describe('monitoring over HTTP', () => {
  it('a scheduled run that finds drift leaves an alert counted by kind, and queues review.changed', async () => {
    const { h, clock, monitoring } = drifting();
    await h.signIn();
    const review = await finishedReview(h, await addresses(h, 12));
    const db = h.reviews?.database.db;
    if (!db) throw new Error('the harness has a database');
    const { account_id } = await db
      .selectFrom('reviews')
      .select('account_id')
      .where('id', '=', review.id)
      .executeTakeFirstOrThrow();
    await h.graph.webhooks?.endpoints.create(
      { accountId: account_id, visitor: null },
      {
        url: 'https://hooks.example/in',
        events: ['review.changed'],
        createdBy: 'ab12cd34',
      },
    );

    const put = await h.call(`/api/reviews/${review.id}/monitor`, { method: 'PUT', body: DAILY });
    expect(put.status, await put.clone().text()).toBe(200);
    const list = MonitorListResponse.parse(await (await h.call('/api/monitors')).json());
    expect(list.monitors.map((m) => [m.reviewId, m.interval, m.lastRunAt])).toEqual([
      [review.id, 'day', null],
    ]);
    expect(list.intervals).toEqual(['hour', 'day', 'week']);

    // A minute later the service has re-verified its records; the monitor's time comes.
    clock.t += 61_000;
    await db
      .updateTable('monitors')
      .set({ next_run_at: Date.now() - 1 })
      .execute();
    await monitoring.scheduler.tick();
    await finished(h, review.id, 2);
    await monitoring.scheduler.tick();

    const rows = await rowsOf(h, review.id);
    const changed = rows.filter((r) => r.previous);
    expect(changed.length).toBeGreaterThan(0);
    const page = NotificationsResponse.parse(await (await h.call('/api/notifications')).json());
    expect(page.unread).toBe(1);
    const [alert] = page.notifications;
    expect(alert).toMatchObject({ reviewId: review.id, run: 2, rowsChanged: changed.length, readAt: null });
    const sourceChanged = changed.filter((r) => r.previous?.source !== r.property?.source).length;
    const dropped = changed.filter(
      (r) =>
        r.previous?.confidence && r.property && RANK[r.property.confidence] < RANK[r.previous.confidence],
    ).length;
    expect(alert?.counts.source_changed ?? 0).toBe(sourceChanged);
    expect(alert?.counts.confidence_dropped ?? 0).toBe(dropped);
    expect(sourceChanged + dropped).toBeGreaterThan(0);

    const queued = await db
      .selectFrom('webhook_outbox')
      .selectAll()
      .where('type', '=', 'review.changed')
      .execute();
    expect(queued).toHaveLength(1);
    const data = JSON.parse(queued?.[0]?.payload ?? '{}').data;
    expect(data).toMatchObject({ reviewId: review.id, run: 2, counts: alert?.counts });
    expect(data.rows).toHaveLength(changed.length);
    const first = changed[0];
    expect(data.rows[0]).toMatchObject({
      rowIndex: first?.index,
      before: { propertyId: first?.previous?.propertyId, lastVerified: first?.previous?.lastVerified },
      after: { propertyId: first?.property?.id, lastVerified: first?.property?.lastVerified },
    });

    const read = await h.call('/api/notifications/read', { method: 'POST', body: { ids: [alert?.id] } });
    expect(await read.json()).toEqual({ unread: 0 });
    const after = MonitorListResponse.parse(await (await h.call('/api/monitors')).json());
    expect(after.monitors[0]?.lastRunAt).not.toBeNull();
    expect(after.monitors[0]?.usedThisMonth).toBe(12);

    expect((await h.call(`/api/reviews/${review.id}/monitor`, { method: 'DELETE' })).status).toBe(204);
    expect((await h.call(`/api/reviews/${review.id}/monitor`, { method: 'DELETE' })).status).toBe(404);
    const kinds = await db
      .selectFrom('audit_entries')
      .select(['kind', 'query'])
      .where('review_id', '=', review.id)
      .where('kind', 'like', 'monitor_%')
      .orderBy('id')
      .execute();
    expect(kinds).toEqual([
      { kind: 'monitor_started', query: 'every day at 09:00 (Europe/Paris)' },
      { kind: 'monitor_stopped', query: null },
    ]);
  }, 20_000);

  it('refuses an interval the server does not offer, an unknown zone, a review of another account, and no CSRF header', async () => {
    const { h } = drifting();
    await h.signIn();
    const review = await finishedReview(h, ['1 Nowhere Rd']);
    const put = (body: unknown, headers?: Record<string, string>) =>
      h.call(`/api/reviews/${review.id}/monitor`, { method: 'PUT', body, ...(headers ? { headers } : {}) });
    expect((await put({ ...DAILY, interval: 'minute' })).status).toBe(400);
    expect((await put({ ...DAILY, timeZone: 'Mars/Olympus' })).status).toBe(400);
    expect((await put(DAILY, { 'X-Requested-With': '' })).status).toBe(403);
    expect((await h.call('/api/reviews/rv_nope/monitor', { method: 'PUT', body: DAILY })).status).toBe(404);
    await vi.waitFor(async () => expect((await put(DAILY)).status).toBe(200));
  });
  it('a deleted review is monitored no more', async () => {
    const { h } = drifting();
    await h.signIn();
    const review = await finishedReview(h, ['1 Nowhere Rd']);
    const put = await h.call(`/api/reviews/${review.id}/monitor`, { method: 'PUT', body: DAILY });
    expect(put.status, await put.clone().text()).toBe(200);
    expect((await h.call(`/api/reviews/${review.id}`, { method: 'DELETE' })).status).toBe(204);
    const list = MonitorListResponse.parse(await (await h.call('/api/monitors')).json());
    expect(list.monitors.map((m) => m.reviewId)).not.toContain(review.id);
    // Gone from the database too, not only from the list: the scheduler has nothing left to pick up.
    const db = h.reviews?.database.db;
    if (!db) throw new Error('the harness has a database');
    expect(
      await db.selectFrom('monitors').select('review_id').where('review_id', '=', review.id).execute(),
    ).toEqual([]);
  });
});
