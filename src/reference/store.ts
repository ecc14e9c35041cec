import type { NotFoundReason, UpstreamCandidate, UpstreamProperty } from '../contract/index.ts';

export type ResolveOutcome =
  | { kind: 'found'; property: UpstreamProperty }
  /**
   * More than one property fits, e.g. "100 Main St" with no city: never pick one arbitrarily. The first
   * candidates by state, city and address, and how many there are in all; `search` with the same text lists
   * every one of them in that order.
   */
  | { kind: 'ambiguous'; candidates: UpstreamCandidate[]; total: number }
  /** Nothing fits; candidates are "did you mean" suggestions, possibly none. */
  | { kind: 'not_found'; candidates: UpstreamCandidate[]; reason?: NotFoundReason }
  /** The building is known but has no such unit; candidates are its units. */
  | { kind: 'unit_not_found'; building: UpstreamCandidate; candidates: UpstreamCandidate[] };

export interface SearchResult {
  items: UpstreamProperty[];
  /** True when there are results after these. */
  more: boolean;
}

/** What the HTTP layer needs from the database. */
export interface PropertyStore {
  /** An address however typed, a property id or a parcel number; a ZIP code alone lists its properties. */
  resolve(address: string): ResolveOutcome;
  /**
   * Candidates for a partial address, best first; `offset` into the stable list. A ZIP code lists its
   * properties, a street with its city and state (or ZIP) that street's, and text that `resolve` finds
   * ambiguous lists every candidate in the same order.
   */
  search(query: string, limit: number, offset: number): SearchResult;
  count(): number;
}
