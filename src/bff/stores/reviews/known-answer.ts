import type { MatchExplanation, Property } from '../../../contract/index.ts';
import type { StoredAnswer } from '../../reviews/look-up-row.ts';
import { readStoredAnswer } from './to-api.ts';

/**
 * A row's stored answer as the rows page gives it with `cells=0`: the export's plain checks (not the schema's
 * parse, a copy of every object), then only the keys the contract knows, as the schema's parse leaves them. The
 * checks let a key they do not know by, and this page is the API's, not only the review page's (hostile review
 * H16b-F2). A property's attributes are checked key by key already.
 */
export function readKnownAnswer(text: string | null): StoredAnswer | undefined {
  const a = readStoredAnswer(text);
  if (!a) return undefined;
  return {
    outcome: a.outcome,
    ...(a.property ? { property: knownProperty(a.property) } : {}),
    ...(a.match !== undefined ? { match: a.match === null ? null : knownMatch(a.match) } : {}),
    ...(a.candidates
      ? {
          candidates: a.candidates.map(({ id, address, confidence }) =>
            confidence === undefined ? { id, address } : { id, address, confidence },
          ),
        }
      : {}),
    ...(a.error
      ? {
          error: {
            code: a.error.code,
            message: a.error.message,
            ...(a.error.resetAt !== undefined ? { resetAt: a.error.resetAt } : {}),
            ...(a.error.total !== undefined ? { total: a.error.total } : {}),
            ...(a.error.reason !== undefined ? { reason: a.error.reason } : {}),
          },
        }
      : {}),
    ...(a.cached !== undefined ? { cached: a.cached } : {}),
    ...(a.retrievedAt !== undefined ? { retrievedAt: a.retrievedAt } : {}),
  };
}

function knownProperty(p: Property): Property {
  const { id, address, source, sourceKind, confidence, lastVerified, attributes } = p;
  return { id, address, source, sourceKind, confidence, lastVerified, attributes };
}

function knownMatch(m: MatchExplanation): MatchExplanation {
  return {
    typed: m.typed,
    matched: m.matched,
    changes: m.changes.map(({ kind, part, typed, matched }) => ({ kind, part, typed, matched })),
    ...(m.quality !== undefined ? { quality: m.quality } : {}),
    ...(m.reason !== undefined ? { reason: m.reason } : {}),
  };
}
