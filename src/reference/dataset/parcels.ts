/**
 * Parcel numbers as a county assessor writes them: the county's FIPS code, a book and a parcel in it
 * ("48453-271-8281"), and a unit's number after its building's ("48453-271-8281-0004"). The book and parcel are
 * a scramble of the record's position in the dataset that can be undone, so a parcel number typed into the
 * search box finds its record by primary key: no index over a million parcel numbers to build or keep.
 */

const SPACE = 10_000_000;
/** Prime to SPACE (odd, not a multiple of 5), so the scramble is a bijection on 0..SPACE-1. */
const FACTOR = 3_141_593;
const OFFSET = 2_718_281;

function inverse(a: number, m: number): number {
  let [r0, r1, t0, t1] = [m, a % m, 0, 1];
  while (r1 !== 0) {
    const q = Math.floor(r0 / r1);
    [r0, r1] = [r1, r0 - q * r1];
    [t0, t1] = [t1, t0 - q * t1];
  }
  return ((t0 % m) + m) % m;
}
const FACTOR_INVERSE = inverse(FACTOR, SPACE);

/** The parcel number of the record at `index` (0-based, below 10 million) in a county. */
export function parcelNumber(countyFips: string, index: number): string {
  const x = (index * FACTOR + OFFSET) % SPACE;
  return `${countyFips}-${String(Math.floor(x / 10_000)).padStart(3, '0')}-${String(x % 10_000).padStart(4, '0')}`;
}

export const PARCEL_PATTERN = /^(\d{5})-(\d{3})-(\d{4})(?:-([0-9A-Z]{4}))?$/;

/** Where the building of a parcel number stands in the dataset (0-based), or null if it is not one. */
export function parcelIndex(parcel: string): number | null {
  const m = PARCEL_PATTERN.exec(parcel);
  if (!m) return null;
  const x = Number(m[2]) * 10_000 + Number(m[3]);
  return (((x - OFFSET + SPACE) % SPACE) * FACTOR_INVERSE) % SPACE;
}
