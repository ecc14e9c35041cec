import { INTERVAL_MINUTES, type Monitor, MonitorRules } from '../../contract/index.ts';
import type { MonitorsTable } from '../db/migration-0016-monitoring.ts';
import { isTimeZone } from './schedule.ts';

/* A monitor's row as the store reads it: its rules, whether it can be scheduled, its schedule, the API's shape. */

/** The monitor's alert rules, or undefined when its row's JSON no longer reads as rules. */
export function readRules(text: string): MonitorRules | undefined {
  try {
    const parsed = MonitorRules.safeParse(JSON.parse(text));
    return parsed.success ? parsed.data : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Why a monitor's row cannot be scheduled, or null: a time zone this runtime does not know (tzdata changes with
 * Node), or rules that do not parse. Words without the row's contents (they are the account's).
 */
export function unreadable(m: Pick<MonitorsTable, 'time_zone' | 'rules'>): string | null {
  if (!isTimeZone(m.time_zone)) return 'its time zone is not one this server knows';
  if (readRules(m.rules) === undefined) return 'its alert rules do not read';
  return null;
}

const INTERVALS: Monitor['interval'][] = ['minute', 'hour', 'day', 'week'];

/**
 * The monitor's schedule as this server runs it: its interval, or the shortest one MONITOR_MIN_INTERVAL_MINUTES
 * still offers when the minimum was raised after it was saved (hostile review M13: an every-minute monitor had
 * kept running every minute on a server set to 60).
 */
export function scheduleOf(m: MonitorsTable, minIntervalMinutes: number) {
  const saved = m.interval as Monitor['interval'];
  const interval =
    INTERVALS.find(
      (i) => INTERVAL_MINUTES[i] >= minIntervalMinutes && INTERVAL_MINUTES[i] >= INTERVAL_MINUTES[saved],
    ) ?? 'week';
  return { interval, timeOfDay: m.time_of_day, weekday: Number(m.weekday), timeZone: m.time_zone };
}

/** The monitor as the API answers it. */
export function toMonitor(m: MonitorsTable, name: string, used: number): Monitor {
  return {
    reviewId: m.review_id,
    reviewName: name,
    interval: m.interval as Monitor['interval'],
    timeOfDay: m.time_of_day,
    weekday: Number(m.weekday),
    timeZone: m.time_zone,
    // Unreadable rules (the monitor is paused for it): shown as none, so the account's list still loads.
    rules: readRules(m.rules) ?? { anyChange: false, kinds: [], staleDays: 365 },
    monthlyCap: Number(m.monthly_cap),
    usedThisMonth: used,
    nextRunAt: new Date(Number(m.next_run_at)).toISOString(),
    lastRunAt: m.last_run_at === null ? null : new Date(Number(m.last_run_at)).toISOString(),
    pausedReason: m.paused_reason,
    createdBy: m.created_by,
  };
}
