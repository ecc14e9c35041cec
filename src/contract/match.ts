import * as z from 'zod/mini';
import { MATCH_QUALITIES } from './match-quality.ts';

/*
 * Explaining a match: what the service's record says differently from what the person typed.
 *
 * Worked out in one place, ./server/explain-match.ts, and called by the BFF, which attaches it to the resolve
 * answer. The BFF rather than the browser because (1) the USPS vocabulary it needs would cost the browser's
 * 120 KB budget a few KB for every visitor, and (2) every client of the BFF (the search screen, review rows, a
 * future API user) then gets the same explanation. This module is what the browser reads of it: the schemas,
 * `matchKind` and `describeMatch`.
 *
 * "Beyond case, punctuation and standard abbreviations": both sides are reduced to USPS Publication 28
 * standard forms (suffixes, directionals, ordinals, Saint/Mount/Fort, state names, unit designators), then
 * aligned word by word. Words that differ become "corrected" (typed -> matched), words only the record has
 * become "added" (inferred), and words only the person typed become "ignored".
 */

export const MatchPart = z.enum(['house', 'street', 'unit', 'city', 'state', 'zip']);
export type MatchPart = z.infer<typeof MatchPart>;

export const MatchChange = z.object({
  kind: z.enum(['corrected', 'added', 'ignored']),
  part: MatchPart,
  /** As typed; empty when added. */
  typed: z.string(),
  /** As in the record; empty when ignored. */
  matched: z.string(),
});
export type MatchChange = z.infer<typeof MatchChange>;

export const MatchExplanation = z.object({
  /** What the person typed, so it stays recoverable once the field shows the matched address. */
  typed: z.string(),
  /** The record's address. */
  matched: z.string(),
  /** At least one: an exact or merely normalised match has no explanation at all. */
  changes: z.array(MatchChange),
  /** How good the match is (worked out with the explanation, by the BFF); absent in older ones. */
  quality: z.optional(z.enum(MATCH_QUALITIES)),
  /** With a match that needs a look: why, in words. */
  reason: z.optional(z.string()),
});
export type MatchExplanation = z.infer<typeof MatchExplanation>;

const ADDED_LABEL: Partial<Record<MatchPart, string>> = {
  house: 'house number ',
  city: 'city ',
  state: 'state ',
  zip: 'ZIP ',
};

/**
 * How the record's address relates to what was typed, in one word: as typed (up to case, punctuation and
 * standard abbreviations), corrected (something typed was changed or left out: worth a second look), or
 * completed (the service only added parts, such as the ZIP).
 */
export type MatchKind = 'as_typed' | 'corrected' | 'completed';

export function matchKind(explanation: Pick<MatchExplanation, 'changes'> | null): MatchKind {
  if (!explanation) return 'as_typed';
  return explanation.changes.every((c) => c.kind === 'added') ? 'completed' : 'corrected';
}

/** One line: "corrected: Congres → Congress, Austn → Austin; added: ZIP 78701". */
export function describeMatch(explanation: Pick<MatchExplanation, 'changes'>): string {
  const groups: [MatchChange['kind'], string[]][] = [
    ['corrected', []],
    ['added', []],
    ['ignored', []],
  ];
  for (const c of explanation.changes) {
    const text =
      c.kind === 'corrected'
        ? `${c.typed} → ${c.matched}`
        : c.kind === 'added'
          ? `${ADDED_LABEL[c.part] ?? ''}${c.matched}`
          : c.typed;
    groups.find(([kind]) => kind === c.kind)?.[1].push(text);
  }
  return groups
    .filter(([, items]) => items.length > 0)
    .map(([kind, items]) => `${kind}: ${items.join(', ')}`)
    .join('; ');
}
