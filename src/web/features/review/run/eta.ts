import type { RateLimit } from '../../../../contract/index.ts';

/**
 * How many lookups a minute the review can go at: what the rate limit allows (limit per window, when the BFF
 * knows the window), else what it has lately done. Null when neither is known yet.
 */
export function lookupsPerMinute(rateLimit: RateLimit | null, recentPerMinute: number): number | null {
  if (rateLimit?.windowS && rateLimit.limit > 0) return (rateLimit.limit * 60) / rateLimit.windowS;
  return recentPerMinute > 0 ? recentPerMinute : null;
}

function formatRate(perMinute: number): string {
  const n =
    perMinute >= 10
      ? Math.round(perMinute).toLocaleString('en-US')
      : perMinute.toLocaleString('en-US', { maximumFractionDigits: 1 });
  return `${n} ${n === '1' ? 'lookup' : 'lookups'} a minute`;
}

/** "about 14 min left at 60 lookups a minute" (cached rows may make it quicker: hence "about"). */
export function describeEta(lookupsLeft: number, perMinute: number): string {
  const minutes = lookupsLeft / perMinute;
  let left: string;
  if (minutes < 1) left = 'less than a minute left';
  else if (minutes < 60) left = `about ${Math.ceil(minutes)} min left`;
  else {
    const h = Math.floor(minutes / 60);
    const m = Math.ceil(minutes - h * 60);
    left = m === 0 || m === 60 ? `about ${m === 60 ? h + 1 : h} h left` : `about ${h} h ${m} min left`;
  }
  return `${left} at ${formatRate(perMinute)}`;
}
