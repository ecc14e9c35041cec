import { editDistance } from './normalize.ts';
import { isDirectional, isSuffix, longToken } from './usps.ts';

/**
 * How far what someone typed is from a street or place the data knows, counted in mistakes a person makes:
 * a typo in a name (one edit), a wrong suffix or directional (one each). Parts left out are not mistakes
 * ("100 Main, Houston" names Main St) but count a little, so an exact name always beats a shortened one.
 */

/** A name (street core or city) in the two spellings a typo is measured against. */
export interface NameForm {
  /** USPS standard tokens: "RIV", "VLY VW". */
  std: string;
  /** The same written out: "RIVER", "VALLEY VIEW". */
  long: string;
  /** As typed, for typed names ("RAD", which standardises to RADL); a known name's is its written-out form. */
  raw: string;
  letters: number;
  /** Which letters and digits occur in each spelling, one bit each: a cheap bound before an edit distance. */
  stdMask: number;
  longMask: number;
  rawMask: number;
}

function charMask(s: string): number {
  let mask = 0;
  for (let i = 0; i < s.length; i++) mask |= 1 << (s.charCodeAt(i) % 32);
  return mask;
}

function popcount(x: number): number {
  let v = x - ((x >>> 1) & 0x55555555);
  v = (v & 0x33333333) + ((v >>> 2) & 0x33333333);
  return (((v + (v >>> 4)) & 0x0f0f0f0f) * 0x01010101) >>> 24;
}

export function nameForm(tokens: readonly string[], raw?: readonly string[]): NameForm {
  const std = tokens.join(' ');
  const long = tokens.map(longToken).join(' ');
  return {
    std,
    long,
    raw: raw ? raw.join(' ') : long,
    // Letters as written out: typos happen in HILL, not in its standard HL.
    letters: long.replace(/\s/g, '').length,
    stdMask: charMask(std),
    longMask: charMask(long),
    rawMask: raw ? charMask(raw.join(' ')) : charMask(long),
  };
}

/**
 * Distance between two names: the smaller of their distances in standard and in written-out form, so a typo
 * in a word that is also a suffix ("Rivre" for River, stored as RIV) counts as the one edit it is.
 */
export function nameDistance(a: NameForm, b: NameForm, max: number): number {
  if (a.std === b.std) return 0;
  // An edit adds at most one kind of character and removes at most one: names whose character sets differ
  // by more than twice the allowance cannot be within it in that spelling. (No closures here: this runs for
  // thousands of names per typo.)
  let best = max + 1;
  if (popcount(a.stdMask ^ b.stdMask) <= 2 * max) best = editDistance(a.std, b.std, max);
  if (best > 1 && popcount(a.longMask ^ b.longMask) <= 2 * max)
    best = Math.min(best, editDistance(a.long, b.long, best - 1));
  if (best > 1 && a.raw !== a.long && popcount(a.rawMask ^ b.rawMask) <= 2 * max)
    best = Math.min(best, editDistance(a.raw, b.raw, best - 1));
  return best;
}

/** A cheap bound: false when no spelling of the two names can be within `max` edits (see nameDistance). */
export function mayBeNear(a: NameForm, b: NameForm, max: number): boolean {
  const limit = 2 * max;
  return (
    popcount(a.stdMask ^ b.stdMask) <= limit ||
    popcount(a.longMask ^ b.longMask) <= limit ||
    popcount(a.rawMask ^ b.rawMask) <= limit
  );
}

/**
 * Edits a name of this many letters may carry and still be recognised. Short names get one (a typo in
 * "Elm" is still Elm when the place is named), long ones two: beyond that a name is another name.
 */
export function allowance(letters: number): number {
  return letters < 3 ? 0 : letters < 8 ? 1 : 2;
}

/** A street taken apart: "S College St" -> dir S, core COLLEGE, suffix ST. */
export interface StreetForm {
  core: NameForm;
  /** A USPS standard suffix, or a word in the suffix's place that may be a misspelt one. */
  suffix: string | null;
  suffixMisspelt: boolean;
  /** A pre- or post-directional (which side it stands on is not a mistake). */
  dir: string | null;
}

/**
 * A directional at either end, unless it is the street's name: in "W St" or "North Ave" nothing but the
 * suffix would be left.
 */
function split(tokens: readonly string[]): { dir: string | null; rest: string[] } {
  const rest = [...tokens];
  const leavesName = (left: string[]) =>
    left.length > 1 || (left.length === 1 && !isSuffix(left[0] as string));
  let dir: string | null = null;
  if (isDirectional(rest[rest.length - 1] ?? '') && leavesName(rest.slice(0, -1))) dir = rest.pop() as string;
  else if (isDirectional(rest[0] ?? '') && leavesName(rest.slice(1))) dir = rest.shift() as string;
  return { dir, rest };
}

/** A street the data knows, from its standard key ("S COLLEGE ST"). */
export function knownStreet(key: string): StreetForm {
  const { dir, rest } = split(key.split(' '));
  const suffix = rest.length > 1 && isSuffix(rest[rest.length - 1] as string) ? (rest.pop() as string) : null;
  return { core: nameForm(rest), suffix, suffixMisspelt: false, dir };
}

/**
 * The readings of a typed street (standard tokens): with or without a directional at either end, and its last
 * word as its suffix, as a misspelt suffix ("River Stret"), or as part of the name ("Valley View" typed
 * without its Dr; "E Union" without its Ave, where UNION is also a suffix).
 */
export function typedStreets(tokens: readonly string[], raw: readonly string[] = tokens): StreetForm[] {
  const readings: StreetForm[] = [];
  const seen = new Set<string>();
  const n = tokens.length;
  /** A reading from tokens [from, to), the word at `suffixAt` (if any) its suffix. */
  const add = (
    from: number,
    to: number,
    suffixAt: number | null,
    suffixMisspelt: boolean,
    dir: string | null,
  ) => {
    const id = `${from}|${to}|${suffixAt}|${suffixMisspelt}|${dir}`;
    if (to <= from || seen.has(id)) return;
    seen.add(id);
    const suffix =
      suffixAt === null ? null : suffixMisspelt ? (raw[suffixAt] as string) : (tokens[suffixAt] as string);
    readings.push({
      core: nameForm(tokens.slice(from, to), raw.slice(from, to)),
      suffix,
      suffixMisspelt,
      dir,
    });
  };
  const ways: { dir: string | null; from: number; to: number }[] = [{ dir: null, from: 0, to: n }];
  if (n > 1 && isDirectional(tokens[n - 1] as string))
    ways.push({ dir: tokens[n - 1] as string, from: 0, to: n - 1 });
  if (n > 1 && isDirectional(tokens[0] as string)) ways.push({ dir: tokens[0] as string, from: 1, to: n });
  for (const { dir, from, to } of ways) {
    const last = tokens[to - 1] as string;
    if (to - from > 1 && isSuffix(last)) add(from, to - 1, to - 1, false, dir);
    else if (to - from > 1 && /^[A-Z]+$/.test(raw[to - 1] as string)) add(from, to - 1, to - 1, true, dir);
    add(from, to, null, false, dir);
  }
  return readings;
}

export interface Score {
  mistakes: number;
  /** Parts the person left out (suffix, directional): a tie-break, never a mistake. */
  missing: number;
}

/** Orders scores: fewer mistakes first, then fewer parts left out. */
export function rank(s: Score): number {
  return s.mistakes + 0.4 * s.missing;
}

/** The score of one reading against a known street, or null when it is past the name's allowance. */
export function scoreStreet(typed: StreetForm, known: StreetForm): Score | null {
  const allowed = allowance(Math.max(typed.core.letters, known.core.letters));
  let mistakes = 0;
  let missing = 0;
  if (typed.suffix === null) missing += known.suffix === null ? 0 : 1;
  else if (known.suffix === null) mistakes += 1;
  else if (typed.suffixMisspelt) {
    // Only a word one edit from the known suffix, written either way, is read as that suffix misspelt.
    const s = known.suffix;
    if (Math.min(editDistance(typed.suffix, s, 1), editDistance(typed.suffix, longToken(s), 1)) > 1)
      return null;
    mistakes += 1;
  } else if (typed.suffix !== known.suffix) mistakes += 1;
  if (typed.dir === null) missing += known.dir === null ? 0 : 1;
  else if (typed.dir !== known.dir) mistakes += 1;
  if (mistakes > allowed) return null;
  mistakes += nameDistance(typed.core, known.core, allowed - mistakes);
  return mistakes > allowed ? null : { mistakes, missing };
}

/** The best score over a typed street's readings. */
export function bestStreetScore(readings: readonly StreetForm[], known: StreetForm): Score | null {
  let best: Score | null = null;
  for (const r of readings) {
    const s = scoreStreet(r, known);
    if (s && (!best || rank(s) < rank(best))) best = s;
  }
  return best;
}

/** Mistakes in a place name (city), or null past its allowance; `extra` widens it (a ZIP corroborates). */
export function scoreName(typed: NameForm, known: NameForm, extra = 0): number | null {
  const allowed = allowance(Math.max(typed.letters, known.letters)) + extra;
  const d = nameDistance(typed, known, allowed);
  return d > allowed ? null : d;
}
