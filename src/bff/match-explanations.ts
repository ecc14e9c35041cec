import { LRUCache } from 'lru-cache';
import type { MatchExplanation, Property } from '../contract/index.ts';
import { explainRecordMatch } from '../contract/server/index.ts';

/**
 * How a typed address matched its record, remembered for the spellings seen lately: explaining takes an
 * alignment of the two addresses (about two thirds of a cached resolve's time when profiled), and agents ask
 * the same addresses again and again. The answer depends only on what was typed and the record's address
 * fields, which make the key; what is returned is shared, so never changed by a caller.
 */
const remembered = new LRUCache<
  string,
  { match: MatchExplanation | null },
  { typed: string; property: Property }
>({
  max: 10_000,
  memoMethod: (_key, _stale, { context: { typed, property } }) => ({
    match: explainRecordMatch(typed, property),
  }),
});

export function explainMatchOf(typed: string, property: Property): MatchExplanation | null {
  const { city, parcelNumber } = property.attributes;
  const key = [typed, property.id, property.address, city ?? '', parcelNumber ?? ''].join('\u0000');
  return remembered.memo(key, { context: { typed, property } }).match;
}
