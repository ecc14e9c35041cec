import { zipOnly } from './place.ts';

/** The example a person is offered instead: a real street address the demo data holds (the Texas Capitol). */
export const EXAMPLE_ADDRESS = '1100 Congress Ave, Austin, TX 78701';

export type NotAnAddress = 'intersection' | 'no_number';

/** A house number first: "1100 Congress", "12B Elm St", "12-14 Elm St"; not an ordinal street ("6th and …"). */
const HOUSE_NUMBER_FIRST = /^\d+(?:[-/]\d+)?[A-Z]?(?:\s|,|$)/i;
/** Two streets joined ("Congress Ave & 6th St", "6th and Congress", "Lamar at 5th", "Congress/6th") or a corner named. */
const INTERSECTION = /[&@]|\s(?:and|at)\s|[a-z]\s*\/|\b(?:corner|intersection)\b/i;

/**
 * Whether the text cannot be a street address, said before any lookup is spent on it: an intersection or
 * corner ("Congress Ave & 6th St", "corner of 6th and Congress") names no property, and text with no digit at
 * all ("Texas State Capitol", "Willis Tower") has no house number. The service would answer either with
 * streets that merely share a word, which reads as if PropLens misunderstood. A ZIP code, a property id
 * (`pi_…`) or parcel number, and anything starting with a house number go to the service as before.
 */
export function notAStreetAddress(text: string): NotAnAddress | null {
  const t = text.trim();
  if (t === '' || zipOnly(t) !== null || /^pi_/i.test(t) || HOUSE_NUMBER_FIRST.test(t)) return null;
  if (INTERSECTION.test(t)) return 'intersection';
  if (!/\d/.test(t)) return 'no_number';
  return null;
}
