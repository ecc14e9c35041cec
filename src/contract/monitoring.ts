import * as z from 'zod/mini';
import { ReviewChangedData } from './webhooks.ts';

/*
 * Monitored reviews and their alerts (issue 29). PUT /api/reviews/:id/monitor monitors a finished review on a
 * schedule (each run a Check again), DELETE stops it; GET /api/monitors lists the account's monitors; GET
 * /api/notifications lists the alerts a monitored run left (a run that found a change its monitor's rules count),
 * POST /api/notifications/read marks them read.
 */

/** How often: `minute` only where MONITOR_MIN_INTERVAL_MINUTES is 1 (demos and tests). */
export const MonitorInterval = z.enum(['minute', 'hour', 'day', 'week']);
export type MonitorInterval = z.infer<typeof MonitorInterval>;
/** Each interval's length in minutes (what MONITOR_MIN_INTERVAL_MINUTES is compared with). */
export const INTERVAL_MINUTES: Record<MonitorInterval, number> = {
  minute: 1,
  hour: 60,
  day: 1_440,
  week: 10_080,
};

/**
 * What changed in a row since the run before: its record's confidence fell; another source; another property;
 * its record now verified longer ago than the monitor's `staleDays`; no longer found; anything else (a newer
 * verification date, another outcome).
 */
export const ChangeKind = z.enum([
  'confidence_dropped',
  'source_changed',
  'other_property',
  'stale',
  'no_longer_found',
  'other',
]);
export type ChangeKind = z.infer<typeof ChangeKind>;

/** Which changes are worth an alert: any, or those of the kinds named. */
export const MonitorRules = z.object({
  anyChange: z.boolean(),
  kinds: z.array(ChangeKind).check(z.maxLength(6)),
  /** "Stale": a record last verified more than this many days before the run. */
  staleDays: z.int().check(z.minimum(1), z.maximum(3_650)),
});
export type MonitorRules = z.infer<typeof MonitorRules>;

/** PUT /api/reviews/:id/monitor. */
export const MonitorRequest = z.object({
  interval: MonitorInterval,
  /** 'HH:MM', 24-hour, in `timeZone`: an hourly monitor runs at its minute of every hour. */
  timeOfDay: z.string().check(z.regex(/^([01]\d|2[0-3]):[0-5]\d$/, 'Give the time of day as HH:MM.')),
  /** IANA name (America/New_York): the browser's by default. */
  timeZone: z.string().check(z.minLength(1), z.maxLength(64)),
  rules: MonitorRules,
  /** Most rows its runs may ask in a calendar month (in `timeZone`); a run that would pass it is not started. */
  monthlyCap: z.int().check(z.minimum(1), z.maximum(100_000_000)),
});
export type MonitorRequest = z.infer<typeof MonitorRequest>;

export const Monitor = z.object({
  reviewId: z.string(),
  reviewName: z.string(),
  interval: MonitorInterval,
  timeOfDay: z.string(),
  /** A weekly monitor's day, 0 (Sunday) to 6, in its zone: the day it was set up. */
  weekday: z.int(),
  timeZone: z.string(),
  rules: MonitorRules,
  monthlyCap: z.int(),
  /** Rows its runs asked this month. */
  usedThisMonth: z.int(),
  /** ISO; when paused, when it would have run. */
  nextRunAt: z.string(),
  lastRunAt: z.nullable(z.string()),
  /** `cap_reached`: this month's cap would be passed; it runs again once saved (with a higher cap). */
  pausedReason: z.nullable(z.string()),
  /** The fingerprint of the key that set it up. */
  createdBy: z.string(),
});
export type Monitor = z.infer<typeof Monitor>;

export const MonitorListResponse = z.object({
  monitors: z.array(Monitor),
  /** The intervals this server offers (MONITOR_MIN_INTERVAL_MINUTES). */
  intervals: z.array(MonitorInterval),
});
export type MonitorListResponse = z.infer<typeof MonitorListResponse>;

export const AppNotification = z.object({
  id: z.string(),
  reviewId: z.string(),
  /** Null when the review has been deleted since. */
  reviewName: z.nullable(z.string()),
  run: z.int(),
  /** Rows that changed since the run before, and how many of each kind (a row may be of several). */
  rowsChanged: z.int(),
  counts: z.record(z.string(), z.int()),
  createdAt: z.string(),
  readAt: z.nullable(z.string()),
});
export type AppNotification = z.infer<typeof AppNotification>;

export const NotificationsResponse = z.object({
  unread: z.int(),
  notifications: z.array(AppNotification),
  /** Pass as `cursor` for older ones; null at the oldest. */
  nextCursor: z.nullable(z.string()),
});
export type NotificationsResponse = z.infer<typeof NotificationsResponse>;

/** POST /api/notifications/read: these, or every one of the account (`all`). */
export const MarkReadRequest = z.object({
  ids: z.optional(z.array(z.string()).check(z.maxLength(500))),
  all: z.optional(z.boolean()),
});
export type MarkReadRequest = z.infer<typeof MarkReadRequest>;

/** The stored alert: what the webhook's review.changed carries (rows capped, counts whole). */
export const StoredChange = z.extend(ReviewChangedData, { rowsChanged: z.int() });
export type StoredChange = z.infer<typeof StoredChange>;
