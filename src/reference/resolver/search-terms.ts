import { UNIT_DESIGNATORS } from '../../contract/index.ts';
import { tokenize } from './normalize.ts';
import { standardToken } from './usps.ts';

/*
 * The typeahead search's terms: what the words of a partial address are, the FTS5 query they make, and how a
 * candidate row is ranked against them.
 */

/** A partial address as the words the index holds: normal form, no unit designators or punctuation. */
export function searchWords(query: string): string[] {
  return tokenize(query)
    .filter((t) => t !== ',' && t !== '#' && !(t in UNIT_DESIGNATORS))
    .map(standardToken)
    .map((t) => t.replace(/[^A-Z0-9]/g, ''))
    .filter((t) => t !== '')
    .slice(0, 12);
}

/**
 * Every word must match, the last as a prefix since the person may still be typing. Quoting each word keeps
 * FTS5 syntax in the input from being interpreted.
 */
export function ftsQuery(words: string[]): string {
  return words.map((w, i) => (i === words.length - 1 ? `"${w}"*` : `"${w}"`)).join(' ');
}

/**
 * "Best first" for a partial address: a typed number that is the house number counts most, then words that
 * match whole (not just as a prefix), then the shorter address (fewer words the person did not type).
 */
export function searchScore(
  words: string[],
  row: Record<'street_number' | 'street_key' | 'unit_key' | 'city_key' | 'state' | 'zip', string>,
): number {
  const tokens =
    `${row.street_number} ${row.street_key} ${row.unit_key} ${row.city_key} ${row.state} ${row.zip}`
      .split(' ')
      .filter((t) => t !== '');
  let score = 0;
  if (words[0] === row.street_number) score += 4;
  for (const w of words) if (tokens.includes(w)) score += 2;
  if (row.unit_key === '') score += 1;
  return score - tokens.length * 0.01;
}
