import { useRateLimit } from '../../../lib/rate-limit-store.ts';
import { useSecondsUntil } from '../../../lib/use-seconds-until.ts';

/** Remaining upstream requests for this key and when the window resets, as the BFF last reported. */
export function RateLimitMeter() {
  const rate = useRateLimit();
  const secondsLeft = useSecondsUntil(rate?.resetAt);
  if (!rate) return null;
  // Past the reset the window is full again, whatever we last heard.
  const remaining = secondsLeft === 0 && rate.limit > 0 ? rate.limit : rate.remaining;
  const share = rate.limit > 0 ? remaining / rate.limit : 0;
  const tone = share > 0.5 ? 'bg-emerald-600' : share > 0.15 ? 'bg-amber-500' : 'bg-red-600';
  const label = rate.limit > 0 ? `${remaining} of ${rate.limit} requests left` : 'No requests left';
  return (
    <span
      className="inline-flex items-center gap-2 text-xs text-slate-700 dark:text-slate-300"
      title="Property service rate limit for your key"
    >
      <meter
        className="sr-only"
        aria-label="Requests left"
        min={0}
        max={Math.max(rate.limit, 1)}
        value={remaining}
      >
        {label}
      </meter>
      <span
        aria-hidden="true"
        className="relative h-2 w-16 overflow-hidden rounded-full bg-slate-200 dark:bg-slate-700"
      >
        {/* React writes style through the CSSOM, which the strict CSP allows (unlike style attributes in HTML). */}
        <span
          className={`absolute inset-y-0 left-0 ${tone}`}
          style={{ width: `${Math.round(share * 100)}%` }}
        />
      </span>
      <span className="tabular-nums">
        {rate.limit > 0 ? `${remaining}/${rate.limit}` : '0'} ·{' '}
        {secondsLeft > 0 ? `resets in ${secondsLeft} s` : 'reset'}
      </span>
    </span>
  );
}
