import type { MatchChange, MatchExplanation } from './match.ts';
import type { MatchQuality } from './match-quality.ts';
import { DIRECTIONALS, USPS_SUFFIXES } from './usps.ts';

/* Working out a match's quality from its explanation (run by the BFF: the USPS tables stay out of the browser). */

const DIRECTIONAL_WORDS = new Set([...Object.keys(DIRECTIONALS), ...Object.values(DIRECTIONALS)]);
const SUFFIX_WORDS = new Set(USPS_SUFFIXES.split(/[;\s]+/).filter(Boolean));
const upper = (s: string) => s.toUpperCase().replace(/[.,]/g, '');

/** A street word replaced by another of the same kind that points elsewhere: W → E, Rd → Ct. */
function changesMeaning(c: MatchChange): boolean {
  if (c.kind !== 'corrected' || c.part !== 'street') return false;
  const [typed, matched] = [upper(c.typed), upper(c.matched)];
  return (
    (DIRECTIONAL_WORDS.has(typed) && DIRECTIONAL_WORDS.has(matched)) ||
    (SUFFIX_WORDS.has(typed) && SUFFIX_WORDS.has(matched))
  );
}

export function matchQuality(explanation: Pick<MatchExplanation, 'changes'> | null): MatchQuality {
  if (!explanation) return 'exact';
  const { changes } = explanation;
  if (changes.some(changesMeaning)) return 'changed_meaning';
  const added = new Set(changes.filter((c) => c.kind === 'added').map((c) => c.part));
  if (added.has('city') && added.has('state') && added.has('zip')) return 'street_only';
  return changes.every((c) => c.kind === 'added') ? 'exact' : 'corrected';
}

/** Why, in words, for the places that say so ("W → E: another side of the street"). */
export function lookReason(explanation: Pick<MatchExplanation, 'changes'> | null): string | null {
  if (!explanation) return null;
  const changed = explanation.changes.filter(changesMeaning);
  if (changed.length > 0)
    return `${changed.map((c) => `${c.typed} → ${c.matched}`).join(', ')}: the service's record names a different street part than the one typed, possibly another property`;
  if (matchQuality(explanation) === 'street_only')
    return 'matched from the street line alone (no city, state or ZIP given): the same street may exist elsewhere';
  return null;
}
