import { useSyncExternalStore } from 'react';
import type { RateLimit } from '../../contract/index.ts';
import { onAccountChange } from './account-scope.ts';

/**
 * The upstream rate-limit budget as the BFF last reported it. Every answer that carries `rateLimit`, errors
 * included, updates it (api-client does that), so the header meter is right whichever screen asked.
 */
let current: RateLimit | null = null;
const listeners = new Set<() => void>();

// Resets are read from the upstream in whole seconds (and skew-corrected), so one window's resetAt can differ
// by about a second between answers.
const SAME_WINDOW_MS = 1500;

function set(next: RateLimit | null) {
  current = next;
  for (const l of listeners) l();
}

/**
 * Answers can arrive out of order (a suggestion and a lookup in flight together): one from a window that has
 * already been replaced is ignored, and within one window the lowest count left is the truth, since the
 * count only goes down until the reset.
 */
export function publishRateLimit(next: RateLimit | null) {
  if (next === null) return;
  if (current && current.limit === next.limit) {
    const delta = Date.parse(next.resetAt) - Date.parse(current.resetAt);
    if (delta < -SAME_WINDOW_MS) return;
    if (Math.abs(delta) <= SAME_WINDOW_MS) {
      next = { ...next, remaining: Math.min(next.remaining, current.remaining) };
      if (next.windowS === undefined && current.windowS !== undefined) next.windowS = current.windowS;
    }
  }
  set(next);
}

/** A 429: nothing left until `resetAt`; the limit and window stay what we last knew. */
export function markRateLimitExhausted(resetAt: string) {
  const exhausted: RateLimit = { limit: current?.limit ?? 0, remaining: 0, resetAt };
  if (current?.windowS !== undefined) exhausted.windowS = current.windowS;
  set(exhausted);
}

export function resetRateLimit() {
  set(null);
}

// Another account's budget is not this one's.
onAccountChange(({ cleared }) => {
  if (cleared) resetRateLimit();
});

/** Lookups left at `now` (epoch ms): past the reset the window is full again, whatever we last heard. */
export function lookupsLeftAt(rate: RateLimit, now: number): number {
  return Date.parse(rate.resetAt) <= now && rate.limit > 0 ? rate.limit : rate.remaining;
}

export function currentRateLimit(): RateLimit | null {
  return current;
}

export function useRateLimit(): RateLimit | null {
  return useSyncExternalStore(
    (l) => {
      listeners.add(l);
      return () => listeners.delete(l);
    },
    () => current,
    () => current,
  );
}
