import { formatCount } from '../../../lib/format.ts';
import { useRateLimit } from '../../../lib/rate-limit-store.ts';
import { CustodyOffer } from '../../settings/index.ts';
import { lookupsPerMinute } from '../run/eta.ts';
import type { Draft } from './draft.ts';

const n = formatCount;

/**
 * Lookups a review will spend: one per distinct address (repeats share one; rows refused here or without
 * anything to ask spend none), or one per record of an area. Cached addresses spend none, so it is at most this.
 */
export function lookupsOf(draft: Draft): number {
  if (draft.kind === 'area') return draft.records.length;
  const p = draft.prepared;
  return Math.max(0, p.rows.length - p.refused - p.noAddress - p.duplicates);
}

/** "1,240 lookups at most: about 21 min at 60 lookups a minute" (the account's pace, when known). */
export function costText(lookups: number, perMinute: number | null): string {
  const spend = `${n(lookups)} ${lookups === 1 ? 'lookup' : 'lookups'} at most`;
  if (!perMinute || lookups === 0) return `${spend}.`;
  const minutes = Math.ceil(lookups / perMinute);
  const time =
    lookups < perMinute
      ? 'under a minute'
      : minutes < 60
        ? `about ${minutes} min`
        : `about ${Math.floor(minutes / 60)} h${minutes % 60 ? ` ${minutes % 60} min` : ''}`;
  const rate = `${n(Math.round(perMinute))} ${Math.round(perMinute) === 1 ? 'lookup' : 'lookups'} a minute`;
  return `${spend}: ${time} at ${rate}, your key’s current pace (addresses already cached go faster).`;
}

/** What starting this review will cost, said before Start. */
export function ReviewCost({ draft }: { draft: Draft | null }) {
  const rateLimit = useRateLimit();
  if (!draft) return null;
  const lookups = lookupsOf(draft);
  const perMinute = lookupsPerMinute(rateLimit, 0);
  return (
    <>
      <p className="text-sm" data-testid="review-cost">
        <span className="font-semibold">This review: </span>
        {costText(lookups, perMinute)}
      </p>
      <CustodyOffer minutes={perMinute ? lookups / perMinute : null} />
    </>
  );
}
