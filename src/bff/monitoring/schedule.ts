import type { MonitorInterval } from '../../contract/index.ts';

/*
 * When a monitor runs next: at its time of day in its time zone (an hourly one at its minute of every hour), read
 * through Intl, so a daily 09:00 in America/New_York is 09:00 on both sides of a daylight-saving change. Always
 * the first such time after `now`: runs missed while no replica was up are not made up one by one.
 */

export interface Schedule {
  interval: MonitorInterval;
  /** 'HH:MM'. */
  timeOfDay: string;
  /** 0 (Sunday) to 6, for a weekly one. */
  weekday: number;
  timeZone: string;
}

interface WallTime {
  year: number;
  month: number;
  day: number;
  hour: number;
  minute: number;
  second: number;
  weekday: number;
}

const formats = new Map<string, Intl.DateTimeFormat>();
const WEEKDAYS = ['Sun', 'Mon', 'Tue', 'Wed', 'Thu', 'Fri', 'Sat'];

/**
 * The runtime's formatter for a zone, made once per zone. Kept by the zone's canonical name: Intl reads zone names
 * in any case ("america/NEW_york"), so a cache by the name as sent grew with every spelling a client could invent
 * (hostile review F6: 6,000 monitor requests took a server from 116 to 317 MB). An unknown zone throws RangeError.
 */
function formatIn(timeZone: string): Intl.DateTimeFormat {
  const known = formats.get(timeZone);
  if (known) return known;
  const canonical = canonicalTimeZone(timeZone);
  let f = formats.get(canonical);
  if (!f) {
    f = new Intl.DateTimeFormat('en-US', {
      timeZone: canonical,
      hourCycle: 'h23',
      year: 'numeric',
      month: 'numeric',
      day: 'numeric',
      hour: 'numeric',
      minute: 'numeric',
      second: 'numeric',
      weekday: 'short',
    });
    formats.set(canonical, f);
  }
  return f;
}

/** The zone's name as the runtime writes it ("America/New_York" for "america/new_york"); throws for an unknown one. */
export function canonicalTimeZone(name: string): string {
  return new Intl.DateTimeFormat('en-US', { timeZone: name }).resolvedOptions().timeZone;
}

/** How many zones have a formatter made (for the test that spellings do not grow it). */
export const zonesFormatted = (): number => formats.size;

/** True for an IANA zone name this runtime knows. */
export function isTimeZone(name: string): boolean {
  try {
    formatIn(name);
    return true;
  } catch {
    return false;
  }
}

/** The wall-clock time at `at` in `timeZone`. */
export function wallTime(at: number, timeZone: string): WallTime {
  const parts: Record<string, string> = {};
  for (const p of formatIn(timeZone).formatToParts(at)) parts[p.type] = p.value;
  return {
    year: Number(parts.year),
    month: Number(parts.month),
    day: Number(parts.day),
    hour: Number(parts.hour),
    minute: Number(parts.minute),
    second: Number(parts.second),
    weekday: WEEKDAYS.indexOf(parts.weekday ?? ''),
  };
}

/** How far `timeZone` is ahead of UTC at `at` (ms). */
function offsetAt(at: number, timeZone: string): number {
  const w = wallTime(at, timeZone);
  const asUtc = Date.UTC(w.year, w.month - 1, w.day, w.hour, w.minute, w.second);
  return asUtc - Math.floor(at / 1000) * 1000;
}

/**
 * The instant a wall-clock time of `timeZone` names (month and day may overflow: Date.UTC carries them). A time
 * a spring-forward skips (02:30 on the change) is the instant an hour later by the clock, as a wall clock moved.
 */
export function zonedInstant(
  timeZone: string,
  y: number,
  month: number,
  day: number,
  hour: number,
  minute: number,
): number {
  const naive = Date.UTC(y, month - 1, day, hour, minute);
  const first = naive - offsetAt(naive, timeZone);
  const second = naive - offsetAt(first, timeZone);
  if (second === first) return first;
  // Across a change: the candidate whose clock reads the time asked, or (a skipped time) the later one.
  const reads = (at: number) => {
    const w = wallTime(at, timeZone);
    return w.hour === hour && w.minute === minute;
  };
  if (reads(second) && !reads(first)) return second;
  if (reads(first) && !reads(second)) return first;
  return Math.max(first, second);
}

/** The first run after `now` (epoch ms). */
export function nextRunAfter(s: Schedule, now: number): number {
  const [hh, mm] = s.timeOfDay.split(':').map(Number) as [number, number];
  if (s.interval === 'minute') return Math.floor(now / 60_000) * 60_000 + 60_000;
  const w = wallTime(now, s.timeZone);
  if (s.interval === 'hour') {
    // This hour's minute `mm` by the zone's clock (zones a half hour off UTC included), or the next hour's.
    const thisHour = now - ((w.minute * 60 + w.second) * 1000 + (now % 1000)) + mm * 60_000;
    return thisHour > now ? thisHour : thisHour + 3_600_000;
  }
  const ahead = s.interval === 'week' ? (s.weekday - w.weekday + 7) % 7 : 0;
  const step = s.interval === 'week' ? 7 : 1;
  for (let days = ahead; ; days += step) {
    const at = zonedInstant(s.timeZone, w.year, w.month, w.day + days, hh, mm);
    if (at > now) return at;
  }
}

/** When the calendar month that holds `now` began in `timeZone` (the monthly cap's window). */
export function monthStart(now: number, timeZone: string): number {
  const w = wallTime(now, timeZone);
  return zonedInstant(timeZone, w.year, w.month, 1, 0, 0);
}
