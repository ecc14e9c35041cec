import type { Logger } from 'pino';
import { INTERVAL_MINUTES, type MonitorInterval } from '../../contract/index.ts';
import type { DurableReviews } from '../reviews/durable-reviews.ts';
import type { SessionStore } from '../stores/sessions/types.ts';
import type { Webhooks } from '../webhooks/index.ts';
import { SqlMonitors } from './monitor-store.ts';
import { SqlNotifications } from './notifications.ts';
import { MonitorScheduler } from './scheduler.ts';

export { SqlMonitors } from './monitor-store.ts';
export { SqlNotifications } from './notifications.ts';
export { MonitorScheduler } from './scheduler.ts';

export interface MonitoringOptions {
  reviews: DurableReviews;
  webhooks?: Webhooks;
  logger: Logger;
  /** MONITOR_MIN_INTERVAL_MINUTES: the shortest interval offered (1 adds "Every minute"). */
  minIntervalMinutes: number;
  maxPendingRows: number;
  now?: () => number;
  onClockAdvance?: (listener: () => void) => () => void;
  pollMs?: number;
  leaseMs?: number;
  /** The audit trail is on (graph.ts): a monitor resumed at its month's turn is an entry. */
  audited?: boolean;
  /** The public demo's sessions (graph.ts, with demo keys): a visitor's monitor runs only on that visitor's key. */
  visitorSessions?: Pick<SessionStore, 'holdsKey'>;
}

export interface Monitoring {
  monitors: SqlMonitors;
  notifications: SqlNotifications;
  scheduler: MonitorScheduler;
  /** The intervals offered, shortest first. */
  intervals: MonitorInterval[];
}

/** Monitored reviews on the reviews' database: the store, the alerts and this replica's scheduler (graph.ts starts it). */
export function createMonitoring(o: MonitoringOptions): Monitoring {
  const now = o.now ?? Date.now;
  const { db } = o.reviews.database;
  const monitors = new SqlMonitors(db, now, o.minIntervalMinutes);
  const notifications = new SqlNotifications(db, now);
  const scheduler = new MonitorScheduler({
    monitors,
    notifications,
    reviews: o.reviews,
    maxPendingRows: o.maxPendingRows,
    ...(o.webhooks ? { enqueue: o.webhooks.enqueue.bind(o.webhooks) } : {}),
    logger: o.logger,
    now,
    ...(o.onClockAdvance ? { onClockAdvance: o.onClockAdvance } : {}),
    ...(o.pollMs ? { pollMs: o.pollMs } : {}),
    ...(o.leaseMs ? { leaseMs: o.leaseMs } : {}),
    ...(o.audited ? { audited: o.audited } : {}),
    ...(o.visitorSessions ? { ownKeyLive: o.visitorSessions.holdsKey.bind(o.visitorSessions) } : {}),
  });
  const intervals = MonitorIntervals.filter((i) => INTERVAL_MINUTES[i] >= o.minIntervalMinutes);
  return { monitors, notifications, scheduler, intervals };
}

const MonitorIntervals: MonitorInterval[] = ['minute', 'hour', 'day', 'week'];
