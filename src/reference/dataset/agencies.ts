import { type SourceKind, US_STATES } from '../../contract/index.ts';
import type { Place } from './gazetteer.ts';
import type { Rng } from './prng.ts';

/**
 * Sources named as the agencies that keep such records there call themselves: in Texas the county's appraisal
 * district values property and the county clerk records deeds; in Connecticut and Massachusetts, where
 * counties keep no property records, the town's assessor does; New York City's five counties are assessed by
 * its Department of Finance. Where a state's own title is not listed, the common one ("Assessor", "Recorder").
 */

/** Each state's tax agency, under its own name (most, but not all, are a "Department of Revenue"). */
const STATE_TAX_AGENCY: Readonly<Record<string, string>> = {
  AR: 'Arkansas Department of Finance and Administration',
  CA: 'California State Board of Equalization',
  CT: 'Connecticut Department of Revenue Services',
  DC: 'DC Office of Tax and Revenue',
  DE: 'Delaware Division of Revenue',
  HI: 'Hawaii Department of Taxation',
  ID: 'Idaho State Tax Commission',
  MD: 'Maryland State Department of Assessments and Taxation',
  ME: 'Maine Revenue Services',
  MI: 'Michigan Department of Treasury',
  ND: 'North Dakota Office of State Tax Commissioner',
  NH: 'New Hampshire Department of Revenue Administration',
  NJ: 'New Jersey Division of Taxation',
  NM: 'New Mexico Taxation and Revenue Department',
  NV: 'Nevada Department of Taxation',
  NY: 'New York State Department of Taxation and Finance',
  OH: 'Ohio Department of Taxation',
  OK: 'Oklahoma Tax Commission',
  RI: 'Rhode Island Division of Taxation',
  TX: 'Texas Comptroller of Public Accounts',
  UT: 'Utah State Tax Commission',
  VA: 'Virginia Department of Taxation',
  VT: 'Vermont Department of Taxes',
  WA: 'Washington State Department of Revenue',
  WV: 'West Virginia State Tax Department',
};

export function stateTaxAgency(state: string, stateName = US_STATES[state] ?? state): string {
  return STATE_TAX_AGENCY[state] ?? `${stateName} Department of Revenue`;
}

/** Who records deeds, by the title the state gives the office (after the county's name). */
const RECORDER_TITLE: Readonly<Record<string, string>> = {
  AZ: 'Recorder',
  CA: 'Recorder',
  CO: 'Clerk and Recorder',
  FL: 'Clerk of the Circuit Court',
  GA: 'Clerk of Superior Court',
  KS: 'Register of Deeds',
  LA: 'Clerk of Court',
  MA: 'Registry of Deeds',
  MI: 'Register of Deeds',
  MN: 'Recorder',
  NC: 'Register of Deeds',
  NE: 'Register of Deeds',
  NV: 'Recorder',
  NY: 'Clerk',
  OR: 'Clerk',
  SC: 'Register of Deeds',
  SD: 'Register of Deeds',
  TN: 'Register of Deeds',
  TX: 'Clerk',
  UT: 'Recorder',
  WA: 'Auditor',
  WI: 'Register of Deeds',
};

const NEW_YORK_CITY = new Set([
  'New York County',
  'Kings County',
  'Queens County',
  'Bronx County',
  'Richmond County',
]);
/** Texas appraisal districts not called "Central": Tarrant's and Bexar's. */
const TEXAS_PLAIN_DISTRICT = new Set(['Tarrant', 'Bexar']);
/** Connecticut's cities (the rest of its places are towns, whose offices say "Town of"). */
const CONNECTICUT_CITIES = new Set([
  'Bridgeport',
  'Bristol',
  'Danbury',
  'Hartford',
  'Meriden',
  'Middletown',
  'Milford',
  'New Britain',
  'New Haven',
  'New London',
  'Norwalk',
  'Norwich',
  'Shelton',
  'Stamford',
  'Torrington',
  'Waterbury',
  'West Haven',
]);
/** Villages that are part of a Connecticut town, whose records the town keeps. */
const CONNECTICUT_VILLAGES: Readonly<Record<string, string>> = {
  'Cos Cob': 'Greenwich',
  'Old Greenwich': 'Greenwich',
  Riverside: 'Greenwich',
  'New Canaan': 'New Canaan',
  Westport: 'Westport',
  Southport: 'Fairfield',
  Mystic: 'Stonington',
  Storrs: 'Mansfield',
};

/** The agency's place as it names itself: "Travis County", or for an independent city, "City of St. Louis". */
function countyAgency(place: Place): string {
  const city = /^(.*) city$/.exec(place.county);
  return city ? `City of ${city[1]}` : place.county;
}

/** Where a town, not a county, keeps the records: "Town of Greenwich", "City of Stamford". */
function townAgency(place: Place): string | null {
  if (place.state === 'CT') {
    const town = CONNECTICUT_VILLAGES[place.city] ?? place.city;
    return `${CONNECTICUT_CITIES.has(town) ? 'City' : 'Town'} of ${town}`;
  }
  if (place.state === 'MA') return `${place.city === 'Boston' ? 'City' : 'Town'} of ${place.city}`;
  return null;
}

function assessorFor(place: Place): string {
  const county = countyAgency(place);
  const town = townAgency(place);
  if (town) return place.state === 'MA' ? `${town} Board of Assessors` : `${town} Assessor`;
  switch (place.state) {
    case 'TX': {
      const name = place.county.replace(/ County$/, '');
      return `${name} ${TEXAS_PLAIN_DISTRICT.has(name) ? '' : 'Central '}Appraisal District`;
    }
    case 'IL':
      return place.county === 'Cook County'
        ? "Cook County Assessor's Office"
        : `${county} Supervisor of Assessments`;
    case 'NY':
      return NEW_YORK_CITY.has(place.county)
        ? 'NYC Department of Finance'
        : `${place.city === place.county.replace(/ County$/, '') ? 'City' : 'Town'} of ${place.city} Assessor`;
    case 'FL':
      return `${county} Property Appraiser`;
    case 'GA':
      return `${county} Board of Tax Assessors`;
    case 'DC':
      return 'DC Office of Tax and Revenue – Real Property Assessment';
    default:
      return `${county} Assessor`;
  }
}

function recorderFor(place: Place): string {
  if (place.state === 'CT') return `${townAgency(place)} Town Clerk – Land Records`;
  if (place.state === 'DC') return 'DC Recorder of Deeds';
  if (place.county === 'Cook County') return "Cook County Clerk's Office – Recordings";
  if (place.state === 'NY' && NEW_YORK_CITY.has(place.county)) return 'NYC Office of the City Register';
  return `${countyAgency(place)} ${RECORDER_TITLE[place.state] ?? 'Recorder of Deeds'}`;
}

/** A place's agencies, worked out once per ZIP code (a million records name some 25,000 places' offices). */
interface Offices {
  assessor: string;
  recorder: string;
  revenue: string;
  /** Connecticut's MLS is statewide, one name; elsewhere a regional or a county's association, picked per record. */
  mls: readonly string[];
  permits: string;
  survey: string;
}

const officesOf = new WeakMap<Place, Offices>();

function offices(place: Place): Offices {
  let o = officesOf.get(place);
  if (!o) {
    o = {
      assessor: assessorFor(place),
      recorder: recorderFor(place),
      revenue: stateTaxAgency(place.state, place.stateName),
      mls:
        place.state === 'CT'
          ? ['SmartMLS']
          : [`${place.stateName} Regional MLS`, `${countyAgency(place)} Association of Realtors MLS`],
      permits: `${townAgency(place) ?? `City of ${place.city}`} Building Permits`,
      survey:
        place.state === 'DC'
          ? 'DC Office of the Surveyor'
          : `${townAgency(place) ?? countyAgency(place)} Surveyor`,
    };
    officesOf.set(place, o);
  }
  return o;
}

/** A record's source, named as a real agency of that kind in that place would be. */
export function sourceFor(kind: SourceKind, place: Place, rng: Rng): string {
  const o = offices(place);
  return kind === 'mls' ? (o.mls.length === 1 ? (o.mls[0] as string) : rng.pick(o.mls)) : o[kind];
}
