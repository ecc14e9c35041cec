import type { PreviousResult } from '../../../contract/index.ts';
import type { StoredAnswer } from '../../reviews/look-up-row.ts';

/**
 * What a row said in the previous run, when its record changed: another property, source or confidence, a
 * newer verification, or another outcome. Undefined when nothing a reviewer relies on changed.
 */
export function previousIfChanged(
  before: StoredAnswer | undefined,
  now: StoredAnswer,
): PreviousResult | undefined {
  if (!before) return undefined;
  const a = before.property;
  const b = now.property;
  const changed =
    before.outcome !== now.outcome ||
    a?.id !== b?.id ||
    a?.source !== b?.source ||
    a?.confidence !== b?.confidence ||
    a?.lastVerified !== b?.lastVerified;
  if (!changed) return undefined;
  return {
    outcome: before.outcome,
    propertyId: a?.id ?? null,
    source: a?.source ?? null,
    confidence: a?.confidence ?? null,
    lastVerified: a?.lastVerified ?? null,
  };
}
