import { useSyncExternalStore } from 'react';
import type { RateLimit } from '../../contract/index.ts';

/**
 * The upstream rate-limit budget as the BFF last reported it. Every answer that carries `rateLimit`
 * updates it (api-client does that), so the header meter is right whichever screen asked.
 */
let current: RateLimit | null = null;
const listeners = new Set<() => void>();

export function publishRateLimit(next: RateLimit | null) {
  if (next === null) return;
  current = next;
  for (const l of listeners) l();
}

/** A 429: nothing left until `resetAt`; the limit stays what we last knew. */
export function markRateLimitExhausted(resetAt: string) {
  publishRateLimit({ limit: current?.limit ?? 0, remaining: 0, resetAt });
}

export function resetRateLimit() {
  current = null;
  for (const l of listeners) l();
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
