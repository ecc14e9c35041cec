import { useQuery } from '@tanstack/react-query';
import { useEffect, useState } from 'react';
import type { Property } from '../../../../contract/index.ts';
import { useDebounced } from '../../../hooks/use-debounced.ts';
import { lookupsLeftAt, useRateLimit } from '../../../lib/rate-limit-store.ts';
import { notAStreetAddress } from '../../property/index.ts';
import { searchQueryOptions } from '../api/search-properties.ts';
import { useRecentSearches } from '../lib/recent-searches.ts';

export type Option =
  | { kind: 'recent'; address: string }
  | { kind: 'match'; address: string; property: Property };

/** Suggestions cost lookups from the plan: asked for after a pause in typing, not at every keystroke. */
const DEBOUNCE_MS = 400;
const MIN_CHARS = 3;

/**
 * Lookups kept for searches the person sends: below this many left in the window, suggestions pause (a tenth
 * of the limit, at least three).
 */
function suggestionReserve(limit: number): number {
  return Math.max(3, Math.ceil(limit / 10));
}

/**
 * Whether suggestions pause to save the window's last lookups: few left (as the meter counts them: a window
 * past its reset is full again), woken at the reset to ask again.
 */
function useSuggestionPause(): boolean {
  const rate = useRateLimit();
  const [, wake] = useState(0);
  const paused = rate !== null && lookupsLeftAt(rate, Date.now()) <= suggestionReserve(rate.limit);
  const resetAt = paused ? Date.parse(rate.resetAt) : 0;
  useEffect(() => {
    if (!paused) return;
    const timer = setTimeout(() => wake((n) => n + 1), Math.max(0, resetAt - Date.now()) + 50);
    return () => clearTimeout(timer);
  }, [paused, resetAt]);
  return paused;
}

/**
 * What the field suggests for `text`: this browser's recent searches that contain it, then the service's
 * matches, asked for only for typed text (never for what the page put in the field: each request costs a
 * lookup), after a pause, at three characters or more, and not while suggestions are paused to save lookups.
 */
export function useSuggestions(input: { text: string; value: string; typed: boolean; open: boolean }): {
  options: Option[];
  saving: boolean;
} {
  const { text, value, typed, open } = input;
  const recent = useRecentSearches();
  const debounced = useDebounced(text.trim(), DEBOUNCE_MS);
  const saving = useSuggestionPause();
  const wantsMatches =
    !saving &&
    typed &&
    open &&
    debounced.length >= MIN_CHARS &&
    debounced === text.trim() &&
    debounced !== value.trim() &&
    // Two streets joined name no property: the service would only suggest streets that share a word.
    notAStreetAddress(debounced) !== 'intersection';
  const matches = useQuery({ ...searchQueryOptions(debounced), enabled: wantsMatches });
  const needle = text.trim().toLowerCase();
  const options: Option[] = [
    ...recent
      .filter((a) => needle === '' || a.toLowerCase().includes(needle))
      .filter((a) => a.toLowerCase() !== value.trim().toLowerCase() || needle === '')
      .slice(0, 5)
      .map((address): Option => ({ kind: 'recent', address })),
    ...(wantsMatches && matches.data ? matches.data.items.slice(0, 8) : [])
      .filter((p) => !recent.some((r) => r.toLowerCase() === p.address.toLowerCase()))
      .map((property): Option => ({ kind: 'match', address: property.address, property })),
  ];
  return { options, saving };
}
