/**
 * What the property feature lends other features (the review shows its records, badges and words): the one
 * module another feature may import from here (scripts/structure-check.ts holds it), so the folders behind it
 * can move without breaking a neighbour. The app's routes compose features and may import any module.
 */
export { resolveQueryOptions } from './api/resolve-property.ts';
export { ConfidenceBadge, ConfidenceMark, SourceBadge, VerificationBadge } from './components/badges.tsx';
export { searchLink } from './components/candidate-list.tsx';
export { MatchNotice } from './components/match-notice.tsx';
export { PropertyRecord } from './components/property-record.tsx';
export { notAStreetAddress } from './lib/street-address.ts';
export {
  AGEING_MAX_DAYS,
  ageInDays,
  FRESH_MAX_DAYS,
  type FreshnessTier,
  longDate,
  relativeAge,
  tierFor,
} from './lib/verification.ts';
export {
  ATTRIBUTES,
  agencyOf,
  attributeText,
  CONFIDENCE_RANK,
  CONFIDENCE_WORD,
  CONFIDENCES,
  confidenceText,
  humanizeField,
  sourceKindRank,
  sourceKindText,
} from './lib/vocabulary.ts';
