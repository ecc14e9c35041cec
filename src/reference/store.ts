import type { UpstreamCandidate, UpstreamProperty } from '../contract/index.ts';

export type ResolveOutcome =
  | { kind: 'found'; property: UpstreamProperty }
  /** More than one property fits, e.g. "100 Main St" with no city: never pick one arbitrarily. */
  | { kind: 'ambiguous'; candidates: UpstreamCandidate[] }
  /** Nothing fits; candidates are "did you mean" suggestions, possibly none. */
  | { kind: 'not_found'; candidates: UpstreamCandidate[] }
  /** The building is known but has no such unit. */
  | { kind: 'unit_not_found'; building: UpstreamCandidate; candidates: UpstreamCandidate[] };

export interface SearchResult {
  items: UpstreamProperty[];
  /** True when there are results after these. */
  more: boolean;
}

/** What the HTTP layer needs from the database. */
export interface PropertyStore {
  resolve(address: string): ResolveOutcome;
  /** Candidates for a partial address, best first; `offset` into the stable ranked list. */
  search(query: string, limit: number, offset: number): SearchResult;
  count(): number;
}
