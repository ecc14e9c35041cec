import type { ImportedResult, PreviousResult } from '../../../contract/index.ts';

/**
 * What a row said in the previous run, when its record changed: another property, source or confidence, a
 * newer verification, or another outcome. Undefined when nothing a reviewer relies on changed.
 */
export function previousIfChanged(
  before: ImportedResult | undefined,
  now: ImportedResult,
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
