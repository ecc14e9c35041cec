import type { MatchChange, MatchExplanation } from '../match.ts';
import type { MatchQuality } from '../match-quality.ts';
import { isDirectionalWord as isDirectional, isSuffixWord as isSuffix } from './usps.ts';

/* Working out a match's quality from its explanation (run by the BFF: the USPS tables stay out of the browser). */

const upper = (s: string) => s.toUpperCase().replace(/[.,]/g, '');

/** Edit distance with a swap of neighbouring letters as one edit. Words are short: no early exit needed. */
function distance(a: string, b: string): number {
  const d: number[][] = Array.from({ length: a.length + 1 }, (_, i) => [i]);
  for (let j = 1; j <= b.length; j++) (d[0] as number[])[j] = j;
  for (let i = 1; i <= a.length; i++) {
    const row = d[i] as number[];
    const prev = d[i - 1] as number[];
    for (let j = 1; j <= b.length; j++) {
      let v = Math.min(
        (prev[j] as number) + 1,
        (row[j - 1] as number) + 1,
        (prev[j - 1] as number) + (a[i - 1] === b[j - 1] ? 0 : 1),
      );
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1])
        v = Math.min(v, ((d[i - 2] as number[])[j - 2] as number) + 1);
      row[j] = v;
    }
  }
  return (d[a.length] as number[])[b.length] as number;
}

/** One word a misspelling of the other: an edit for every three letters, rounded down, and at least one. */
export function isTypo(a: string, b: string): boolean {
  return distance(a, b) <= Math.max(1, Math.floor(Math.max(a.length, b.length) / 3));
}

const letters = (s: string) => upper(s).replace(/[^A-Z0-9]/g, '');
const words = (s: string) => upper(s).split(/\s+/).filter(Boolean);

/**
 * A part that names another place than the one typed, in any part (a street, a city): a directional or a place
 * word replaced by another of its kind (W → E, West Orange → East Orange, Lake City → Park City, Rd → Ct), a
 * word replaced by one that is no misspelling of it (Oak → Elm, Springfield → Chicago; an initial for its word,
 * Luther → L, is kept), or a directional alone added to or dropped from a city (Orange → East Orange).
 */
function changesMeaning(c: MatchChange): boolean {
  // Only a directional put to or taken from a typed city: a city added whole was not typed at all.
  if (c.kind !== 'corrected') return c.part === 'city' && words(c.typed || c.matched).every(isDirectional);
  const [typed, matched] = [upper(c.typed), upper(c.matched)];
  if (isDirectional(typed) && isDirectional(matched)) return true;
  if (isSuffix(typed) && isSuffix(matched)) return true;
  const [a, b] = [letters(typed), letters(matched)];
  const initial = (a.length === 1 && b.startsWith(a)) || (b.length === 1 && a.startsWith(b));
  return !initial && !isTypo(a, b);
}

export function matchQuality(explanation: Pick<MatchExplanation, 'changes'> | null): MatchQuality {
  if (!explanation) return 'exact';
  const { changes } = explanation;
  if (changes.some(changesMeaning)) return 'changed_meaning';
  const added = new Set(changes.filter((c) => c.kind === 'added').map((c) => c.part));
  if (added.has('city') && added.has('state') && added.has('zip')) return 'street_only';
  return changes.every((c) => c.kind === 'added') ? 'exact' : 'corrected';
}

const arrow = (c: MatchChange) => `${c.typed || '(none)'} → ${c.matched || '(none)'}`;

/** Why, in words, for the places that say so ("W → E: another side of the street"). */
export function lookReason(explanation: Pick<MatchExplanation, 'changes'> | null): string | null {
  if (!explanation) return null;
  const changed = explanation.changes.filter(changesMeaning);
  if (changed.length > 0)
    return `${changed.map(arrow).join(', ')}: the service's record names a different ${changed.some((c) => c.part !== 'street') ? 'place' : 'street part'} than the one typed, possibly another property`;
  if (matchQuality(explanation) === 'street_only')
    return 'matched from the street line alone (no city, state or ZIP given): the same street may exist elsewhere';
  return null;
}
