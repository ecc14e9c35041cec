import { useSecondsUntil } from '../../../hooks/use-seconds-until.ts';
import { lookupsLeftAt, useRateLimit } from '../../../lib/rate-limit-store.ts';
import { allowanceInWords, secondsInWords } from '../../../lib/rate-limit-wording.ts';

/**
 * Lookups left for this key and when the window resets, as the BFF last reported it (every answer, refusals
 * included, reports it): "58 of 60 lookups left · resets in 42 s".
 */
export function RateLimitMeter() {
  const rate = useRateLimit();
  const secondsLeft = useSecondsUntil(rate?.resetAt);
  if (!rate) return null;
  // Re-rendered every second by the countdown, so "now" is current.
  const remaining = lookupsLeftAt(rate, Date.now());
  const share = rate.limit > 0 ? remaining / rate.limit : 0;
  const tone = share > 0.5 ? 'bg-emerald-600' : share > 0.15 ? 'bg-amber-500' : 'bg-red-600';
  const left = rate.limit > 0 ? `${remaining} of ${rate.limit} lookups left` : 'No lookups left';
  const short = rate.limit > 0 ? `${remaining} of ${rate.limit} left` : left;
  // A reset stated in whole seconds, counted up, can read one more than the window ("61 s" of a minute's).
  const shown = rate.windowS ? Math.min(secondsLeft, rate.windowS) : secondsLeft;
  const resets = shown > 0 ? ` · resets in ${secondsInWords(shown)}` : '';
  return (
    <span
      className="inline-flex items-center gap-2 text-xs text-slate-700 dark:text-slate-300"
      title={`The property service allows your key ${allowanceInWords(rate)}.`}
    >
      <meter
        className="sr-only"
        aria-label="Lookups left"
        min={0}
        max={Math.max(rate.limit, 1)}
        value={remaining}
      />
      <span
        aria-hidden="true"
        className="relative h-2 w-16 shrink-0 overflow-hidden rounded-full bg-slate-200 dark:bg-slate-700"
      >
        {/* React writes style through the CSSOM, which the strict CSP allows (unlike style attributes in HTML). */}
        <span
          className={`absolute inset-y-0 left-0 ${tone}`}
          style={{ width: `${Math.round(share * 100)}%` }}
        />
      </span>
      <span className="tabular-nums lg:max-xl:hidden">{`${left}${resets}`}</span>
      {/* From 1024 to 1279 px the account shares its row with every link: without "lookups", the line fits. */}
      <span className="hidden tabular-nums lg:max-xl:inline">{`${short}${resets}`}</span>
    </span>
  );
}
