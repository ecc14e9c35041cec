import { type Candidate, type Property, US_STATES } from '../../../../contract/index.ts';

/** A candidate with where it is, read from its one-line address: what a list is ordered and grouped by. */
export interface PlacedCandidate extends Candidate {
  street: string;
  city: string | null;
  state: string | null;
}

/**
 * Street line, city and state of a one-line US address ("100 Main St, Hope, AK 99605"). An address in
 * another shape keeps its street line and has no place: it is listed, under "Elsewhere", never dropped.
 */
export function placeOf(address: string): { street: string; city: string | null; state: string | null } {
  const parts = address.split(',').map((p) => p.trim());
  const street = parts[0] ?? address;
  if (parts.length < 2) return { street, city: null, state: null };
  const last = parts[parts.length - 1] as string;
  const stateZip = /^([A-Za-z]{2})(?:\s+\d{5}(?:-\d{4})?)?$/.exec(last);
  const code = stateZip?.[1]?.toUpperCase();
  const state = code && Object.hasOwn(US_STATES, code) ? code : null;
  const city = state ? (parts.length >= 3 ? (parts[parts.length - 2] as string) : null) : last;
  return { street, city: city || null, state };
}

export const placed = (c: Candidate): PlacedCandidate => ({ ...c, ...placeOf(c.address) });

/** A search result as a candidate: its own parts where the service sent them. */
export function candidateOf(p: Property): PlacedCandidate {
  const fromAddress = placeOf(p.address);
  const state = p.attributes.state?.toUpperCase();
  return {
    id: p.id,
    address: p.address,
    confidence: p.confidence,
    street: fromAddress.street,
    city: p.attributes.city ?? fromAddress.city,
    state: state && Object.hasOwn(US_STATES, state) ? state : fromAddress.state,
  };
}

export const stateName = (code: string | null) => (code ? (US_STATES[code] ?? code) : 'Elsewhere');

const collator = new Intl.Collator('en-US', { numeric: true, sensitivity: 'base' });

/** By state (its name, as people read the list), then city, then address; places unknown last. */
export function byPlace(a: PlacedCandidate, b: PlacedCandidate): number {
  if ((a.state === null) !== (b.state === null)) return a.state === null ? 1 : -1;
  return (
    collator.compare(stateName(a.state), stateName(b.state)) ||
    collator.compare(a.city ?? '', b.city ?? '') ||
    collator.compare(a.address, b.address)
  );
}

/** Sorted and grouped by state, in that order. */
export function groupByState(
  candidates: readonly PlacedCandidate[],
): { state: string | null; items: PlacedCandidate[] }[] {
  const groups: { state: string | null; items: PlacedCandidate[] }[] = [];
  for (const c of [...candidates].sort(byPlace)) {
    const last = groups[groups.length - 1];
    if (last && last.state === c.state) last.items.push(c);
    else groups.push({ state: c.state, items: [c] });
  }
  return groups;
}

/** Candidates from several answers as one list: the first of each id wins. */
export function mergeById(...lists: readonly (readonly PlacedCandidate[])[]): PlacedCandidate[] {
  const seen = new Set<string>();
  const out: PlacedCandidate[] = [];
  for (const list of lists) {
    for (const c of list) {
      if (seen.has(c.id)) continue;
      seen.add(c.id);
      out.push(c);
    }
  }
  return out;
}

/** A five-digit ZIP code, alone (ZIP+4 accepted): a search for an area, not an address. */
export function zipOnly(text: string): string | null {
  return /^\s*(\d{5})(?:-\d{4})?\s*$/.exec(text)?.[1] ?? null;
}
