import { US_STATES } from '../../contract/index.ts';
import {
  DIRECTIONALS,
  ORDINALS,
  USPS_SUFFIXES,
  ABBREVIATED_WORDS as WORDS,
} from '../../contract/server/index.ts';

export { DIRECTIONALS, ORDINALS };

/**
 * USPS Publication 28 vocabulary: street suffixes (C1), directionals (B) and state names (A) from the
 * contract's tables, and secondary unit designators (C2). Everything is upper case.
 */

/** Any accepted spelling of a suffix -> its standard abbreviation, e.g. AVENUE, AVEN, AV -> AVE. */
export const SUFFIX_ABBR = new Map<string, string>();
/** A standard suffix abbreviation -> the suffix written out, e.g. RIV -> RIVER, DR -> DRIVE. */
export const SUFFIX_LONG = new Map<string, string>();
for (const group of USPS_SUFFIXES.split(';')) {
  const [std, long, ...others] = group.split(' ') as [string, string, ...string[]];
  for (const spelling of [std, long, ...others]) SUFFIX_ABBR.set(spelling, std);
  SUFFIX_LONG.set(std, long);
}

/** State names by USPS code, in the upper case the normaliser works in. */
export const STATES: Readonly<Record<string, string>> = Object.fromEntries(
  Object.entries(US_STATES).map(([code, name]) => [code, name.toUpperCase()]),
);

/** State spellings, longest first, as token lists: ["NEW","YORK"] -> NY, ["NY"] -> NY, ["WASH", "D", "C"]... */
export const STATE_SPELLINGS: { tokens: string[]; code: string }[] = Object.entries(STATES)
  .flatMap(([code, name]) => [
    { tokens: name.split(' '), code },
    { tokens: [code], code },
  ])
  .concat([
    { tokens: ['WASHINGTON', 'DC'], code: 'DC' },
    { tokens: ['D', 'C'], code: 'DC' },
  ])
  .sort((a, b) => b.tokens.length - a.tokens.length);

/** One token in its standard form: suffixes, directionals, ordinals and a few words abbreviated. */
export function standardToken(token: string): string {
  return DIRECTIONALS[token] ?? ORDINALS[token] ?? WORDS[token] ?? SUFFIX_ABBR.get(token) ?? token;
}

const DIRECTIONAL_LONG = new Map(Object.entries(DIRECTIONALS).map(([long, short]) => [short, long]));
const WORDS_LONG = new Map(Object.entries(WORDS).map(([long, short]) => [short, long]));
const ORDINALS_LONG = new Map(Object.entries(ORDINALS).map(([long, short]) => [short, long]));

export function isDirectional(standard: string): boolean {
  return DIRECTIONAL_LONG.has(standard);
}

export function isSuffix(standard: string): boolean {
  return SUFFIX_LONG.has(standard);
}

/**
 * A standard token written out again: RIV -> RIVER, N -> NORTH, 2ND -> SECOND, MT -> MOUNT. Typos happen in what people
 * write, the long words: "Rivre Rd" is one swap from RIVER ROAD, but three edits from the standard RIV RD.
 * ST reads as STREET (also SAINT's abbreviation; both sides of a comparison get the same reading).
 */
export function longToken(standard: string): string {
  return (
    SUFFIX_LONG.get(standard) ??
    DIRECTIONAL_LONG.get(standard) ??
    ORDINALS_LONG.get(standard) ??
    WORDS_LONG.get(standard) ??
    standard
  );
}
