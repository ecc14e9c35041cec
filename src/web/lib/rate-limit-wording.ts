import type { RateLimit } from '../../contract/index.ts';

/**
 * The rate limit in words that are true whatever the upstream's window: "60 lookups a minute", "4 lookups
 * every 12 seconds". The BFF states the window plainly (whole minutes as such: RateLimit.windowS).
 */
export function windowInWords(windowS: number): string {
  const unit = (n: number, one: string, many: string) => (n === 1 ? one : `every ${n} ${many}`);
  if (windowS % 3600 === 0) return unit(windowS / 3600, 'an hour', 'hours');
  if (windowS % 60 === 0) return unit(windowS / 60, 'a minute', 'minutes');
  return unit(windowS, 'a second', 'seconds');
}

export function allowanceInWords(rate: RateLimit | null): string {
  if (!rate || rate.limit === 0) return 'a limited number of lookups';
  const lookups = `${rate.limit} lookup${rate.limit === 1 ? '' : 's'}`;
  return rate.windowS ? `${lookups} ${windowInWords(rate.windowS)}` : `${lookups} per rate-limit window`;
}

/** "42 s", "95 s", "3 min 5 s": a wait, readable at a glance (seconds up to two minutes, as they tick). */
export function secondsInWords(seconds: number): string {
  if (seconds < 120) return `${seconds} s`;
  const m = Math.floor(seconds / 60);
  const s = seconds % 60;
  return s === 0 ? `${m} min` : `${m} min ${s} s`;
}
