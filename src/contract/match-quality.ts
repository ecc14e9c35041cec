/*
 * How good a match is, beside the record's confidence: a risky match must not look as trustworthy as an exact
 * one. In the manner of Google's address validation verdict (inputGranularity, hasReplacedComponents) and
 * Smarty's footnotes: what the person typed is kept apart from what the service put in its place.
 */

/**
 * exact: as typed, or only completed by the service (a ZIP, a suffix added);
 * corrected: spelling fixed (a typo, a dropped word) with the meaning kept;
 * changed_meaning: a part that names a different place was replaced, in any part, the city too (a directional
 *   W → E or West Orange → East Orange, a place word Rd → Ct or Lake City → Park City, a word that is no
 *   misspelling of the one typed): possibly another property — needs a look;
 * street_only: matched from a street line with no city, state or ZIP: one of possibly many such streets —
 *   needs a look.
 */
export const MATCH_QUALITIES = ['exact', 'corrected', 'changed_meaning', 'street_only'] as const;
export type MatchQuality = (typeof MATCH_QUALITIES)[number];

export const MATCH_QUALITY_TEXT: Record<MatchQuality, string> = {
  exact: 'Exact',
  corrected: 'Corrected (spelling)',
  changed_meaning: 'Changed meaning',
  street_only: 'Street only',
};

/** A match a reviewer should look at before relying on it. */
export const needsLook = (q: MatchQuality) => q === 'changed_meaning' || q === 'street_only';

/**
 * The quality of a match the BFF explained (it sends `quality` with the explanation, so the browser needs none of
 * the USPS tables); explanations kept before it did fall back to exact or corrected.
 */
export function qualityOf(
  explanation: { changes: readonly { kind: string }[]; quality?: MatchQuality } | null | undefined,
): MatchQuality {
  if (!explanation) return 'exact';
  return (
    explanation.quality ?? (explanation.changes.every((c) => c.kind === 'added') ? 'exact' : 'corrected')
  );
}
