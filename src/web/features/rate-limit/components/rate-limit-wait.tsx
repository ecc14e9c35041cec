import type { ReactNode } from 'react';
import { useSecondsUntil } from '../../../hooks/use-seconds-until.ts';
import { useRateLimit } from '../../../lib/rate-limit-store.ts';
import { secondsInWords } from '../../../lib/rate-limit-wording.ts';

/**
 * A lookup in flight while the budget is spent: the BFF is holding it until the window resets (up to
 * MAX_RATE_LIMIT_WAIT_S), so say so with a live countdown instead of a skeleton that seems stuck. Knows it
 * from the last rate limit reported: nothing left, and the reset still ahead. Otherwise shows `children`.
 */
export function RateLimitWait({ children }: { children: ReactNode }) {
  const rate = useRateLimit();
  const secondsLeft = useSecondsUntil(rate && rate.remaining === 0 ? rate.resetAt : null);
  if (secondsLeft === 0) return children;
  return (
    <div className="space-y-4">
      <div className="rounded-lg border border-amber-300 bg-amber-50 p-4 text-sm text-amber-950 dark:border-amber-700 dark:bg-amber-950/60 dark:text-amber-100">
        <p className="flex items-center gap-2 font-semibold">
          <svg aria-hidden="true" viewBox="0 0 20 20" className="size-4 shrink-0 motion-safe:animate-spin">
            <circle cx="10" cy="10" r="7" fill="none" stroke="currentColor" strokeWidth="2" opacity="0.3" />
            <path d="M10 3a7 7 0 0 1 7 7" fill="none" stroke="currentColor" strokeWidth="2" />
          </svg>
          <span className="tabular-nums">
            {/* A no-break space keeps "14 s" together when the line wraps on a phone. */}
            {`Waiting for the rate limit to reset, ${secondsInWords(secondsLeft).replace(' ', '\u00a0')}`}
          </span>
        </p>
        <p className="mt-1">
          Your key’s lookups for this window are used up. The search is queued and runs as soon as the window
          resets; there is nothing to do.
        </p>
      </div>
      {children}
    </div>
  );
}
