import type { Confidence, PropertyType, SourceKind, UpstreamProperty } from '../../contract/index.ts';
import { loadPlaces, loadStreetNames, type Place } from './gazetteer.ts';
import { parcelNumber } from './parcels.ts';
import { createRng, hash32, type Rng } from './prng.ts';

/**
 * The reference dataset, deterministic from (seed, count): the same records, ids and dates on every
 * machine. Dates are counted back from a fixed "data as of" day, not from the clock.
 */
export const DATA_AS_OF = '2026-11-01';
const AS_OF_MS = Date.parse(`${DATA_AS_OF}T00:00:00Z`);
const DAY_MS = 86_400_000;

export interface GeneratedProperty extends UpstreamProperty {
  /** For the index: the street without number, city or unit, as shown ("N Main St"). */
  street_display: string;
}

/**
 * Confidence "reflects source quality and recency" (the interface doc). Our documented rule:
 * quality points — assessor 3, recorder of deeds 3, state revenue department 2, MLS 2, building permits 1;
 * recency penalty — verified within 1 year: 0, within 3 years: -1, older: -2.
 * 3 or more points: high; 2: medium; 1 or fewer: low.
 */
export const SOURCE_QUALITY: Record<SourceKind, number> = {
  assessor: 3,
  recorder: 3,
  survey: 3,
  revenue: 2,
  mls: 2,
  permits: 1,
};

export function confidenceFor(kind: SourceKind, ageDays: number): Confidence {
  const penalty = ageDays <= 365 ? 0 : ageDays <= 3 * 365 ? 1 : 2;
  const points = SOURCE_QUALITY[kind] - penalty;
  return points >= 3 ? 'high' : points === 2 ? 'medium' : 'low';
}

export function isoDay(ms: number): string {
  return new Date(ms).toISOString().slice(0, 10);
}

/** A bijective scramble of the index, so ids look opaque yet never collide. */
function propertyId(index: number, seed: number): string {
  const x = (Math.imul(index ^ 0x5bd1e995, 0x9e3779b1) ^ seed) >>> 0;
  return `pi_${x.toString(36).padStart(7, '0')}${(index % 36).toString(36)}`;
}

function sourceFor(kind: SourceKind, place: Place, rng: Rng): string {
  switch (kind) {
    case 'assessor':
      return `${place.county} Assessor`;
    case 'recorder':
      return `${place.county} Recorder of Deeds`;
    case 'revenue':
      return `${place.stateName} Department of Revenue`;
    case 'mls':
      return rng.pick([`${place.stateName} Regional MLS`, `Greater ${place.city} Multiple Listing Service`]);
    case 'permits':
      return `City of ${place.city} Building Permits`;
    case 'survey':
      return `${place.county} Surveyor`;
  }
}

function ageInDays(rng: Rng): number {
  const band = rng.weighted([
    [[0, 90], 35],
    [[91, 365], 25],
    [[366, 3 * 365], 25],
    [[3 * 365 + 1, 8 * 365], 15],
  ] as const);
  return rng.int(band[0], band[1]);
}

/** State price tiers, dollars per square foot of living area. */
const PRICE_PER_SQFT: Record<string, number> = {
  CA: 520,
  HI: 560,
  MA: 420,
  NY: 380,
  WA: 390,
  DC: 500,
  NJ: 300,
  CO: 330,
  OR: 300,
  MD: 250,
  CT: 250,
  VA: 250,
  UT: 290,
  FL: 260,
  AZ: 250,
  NV: 240,
  TX: 180,
  IL: 170,
  GA: 170,
  NC: 180,
  PA: 160,
  MN: 190,
  MI: 140,
  OH: 130,
  IN: 120,
  MO: 130,
  AL: 120,
  MS: 105,
  AR: 110,
  WV: 100,
  KY: 120,
  LA: 130,
  OK: 115,
};

interface Street {
  display: string;
  nextHouse: number;
  step: number;
}

export interface GenerateOptions {
  count: number;
  seed: number;
}

/** What a showcase record states outright instead of drawing at random. */
type Fixed = Partial<
  Pick<
    UpstreamProperty,
    | 'year_built'
    | 'living_area_sqft'
    | 'lot_size_sqft'
    | 'bedrooms'
    | 'bathrooms'
    | 'assessed_value'
    | 'last_sale_date'
    | 'last_sale_price'
  >
>;

export interface Showcase {
  house: string;
  street: string;
  zip: string;
  kind: SourceKind;
  ageDays: number;
  type: PropertyType;
  /** Facts of a famous building, so its record fits it. */
  fixed?: Fixed;
  /** Units with records of their own, after the building's. */
  units?: { type: PropertyType; ids: string[] };
}

/**
 * Hand-made records at fixed addresses, so demos and tests have known addresses at every confidence: high
 * (the Texas Capitol), medium (Willis Tower), low and old (742 Evergreen Ter), a building with units (615
 * Bourbon St). Landmarks get records that fit them: what they are, their size, when they were built.
 */
export const SHOWCASE: readonly Showcase[] = [
  {
    house: '1100',
    street: 'Congress Ave',
    zip: '78701',
    kind: 'assessor',
    ageDays: 12,
    type: 'government',
    // The Texas State Capitol: completed 1888, about 360,000 sq ft on 22 acres of grounds; public land is
    // exempt, so it has no taxable value and was never sold.
    fixed: {
      year_built: 1888,
      living_area_sqft: 360_000,
      lot_size_sqft: 958_320,
      bedrooms: null,
      bathrooms: null,
      assessed_value: null,
      last_sale_date: null,
      last_sale_price: null,
    },
  },
  {
    house: '233',
    street: 'S Wacker Dr',
    zip: '60606',
    kind: 'recorder',
    ageDays: 540,
    type: 'commercial',
    // Willis Tower: an office tower completed 1973, 4.48 million sq ft on a 3-acre block, sold in 2015.
    fixed: {
      year_built: 1973,
      living_area_sqft: 4_477_800,
      lot_size_sqft: 129_600,
      bedrooms: null,
      bathrooms: null,
      assessed_value: 1_020_000_000,
      last_sale_date: '2015-03-31',
      last_sale_price: 1_300_000_000,
    },
  },
  {
    house: '1600',
    street: 'Pennsylvania Ave NW',
    zip: '20500',
    kind: 'survey',
    ageDays: 30,
    type: 'government',
    // The White House: first occupied 1800, about 55,000 sq ft, 16 family and guest rooms and 35 bathrooms on
    // 18 acres; federal, never assessed or sold.
    fixed: {
      year_built: 1800,
      living_area_sqft: 55_000,
      lot_size_sqft: 784_080,
      bedrooms: 16,
      bathrooms: 35,
      assessed_value: null,
      last_sale_date: null,
      last_sale_price: null,
    },
  },
  {
    house: '742',
    street: 'Evergreen Ter',
    zip: '97477',
    kind: 'permits',
    ageDays: 1460,
    type: 'single_family',
  },
  { house: '1313', street: 'Mockingbird Ln', zip: '63101', kind: 'mls', ageDays: 200, type: 'townhouse' },
  {
    house: '615',
    street: 'Bourbon St',
    zip: '70116',
    kind: 'revenue',
    ageDays: 800,
    type: 'multi_family',
    // A French Quarter house divided into four apartments.
    fixed: { year_built: 1895 },
    units: { type: 'apartment_unit', ids: ['1', '2', '3', '4'] },
  },
];

export function* generateProperties({ count, seed }: GenerateOptions): Generator<GeneratedProperty> {
  const rng = createRng(seed);
  const all = loadPlaces();
  const byZip = new Map(all.map((p) => [p.zip, p]));
  const { curated, surnames, suffixes } = loadStreetNames();

  // About 40 properties per ZIP code, over a deterministic sample of real ZIP codes.
  const zipCount = Math.max(1, Math.min(all.length, Math.ceil(count / 40)));
  const pool = [...all];
  for (let i = pool.length - 1; i > 0; i--) {
    const j = Math.floor(rng.next() * (i + 1));
    [pool[i], pool[j]] = [pool[j] as Place, pool[i] as Place];
  }
  const places = pool.slice(0, zipCount);
  const streetsByZip = new Map<string, Street[]>();
  const streetsOf = (place: Place): Street[] => {
    let streets = streetsByZip.get(place.zip);
    if (!streets) {
      const r = createRng(hash32(`${seed}:${place.zip}`));
      const n = r.int(4, 12);
      const names = new Set<string>();
      // "Main St" is in many towns, which makes "100 Main St" without a city honestly ambiguous.
      if (r.chance(0.35)) names.add('Main St');
      while (names.size < n) {
        names.add(r.chance(0.6) ? r.pick(curated) : `${r.pick(surnames)} ${r.pick(suffixes)}`);
      }
      streets = [...names].map((display) => ({
        display,
        nextHouse: display === 'Main St' ? 100 : r.int(1, 60) * 10 + r.pick([0, 1]),
        step: r.pick([2, 2, 4, 6, 10, 20]),
      }));
      streetsByZip.set(place.zip, streets);
    }
    return streets;
  };

  let index = 0;
  const emit = (
    place: Place,
    house: string,
    streetDisplay: string,
    unit: string | null,
    type: PropertyType,
    options: {
      /** A unit's parcel number is its building's with the unit added. */
      buildingParcel?: string;
      forced?: { kind: SourceKind; ageDays: number };
      fixed?: Fixed;
      /** A building whose units have records of their own: its size is theirs together, its rooms are theirs. */
      units?: number;
      /** A unit is as old as its building. */
      yearBuilt?: number | null;
    } = {},
  ): GeneratedProperty => {
    const { forced, fixed, units } = options;
    const kind =
      forced?.kind ??
      rng.weighted<SourceKind>([
        ['assessor', 40],
        ['recorder', 18],
        ['revenue', 10],
        ['mls', 20],
        ['permits', 10],
        ['survey', 2],
      ]);
    const age = forced?.ageDays ?? ageInDays(rng);
    const isLand = type === 'vacant_land';
    const isUnit = type === 'apartment_unit' || (type === 'condominium' && unit !== null);
    const drawnYear = isLand
      ? null
      : rng.weighted([
          [rng.int(1890, 1945), 15],
          [rng.int(1946, 1979), 35],
          [rng.int(1980, 2009), 35],
          [rng.int(2010, 2025), 15],
        ] as const);
    const yearBuilt = options.yearBuilt === undefined ? drawnYear : options.yearBuilt;
    const living = isLand
      ? null
      : units
        ? units * rng.int(60, 110) * 10
        : isUnit
          ? rng.int(45, 160) * 10
          : rng.int(70, 420) * 10;
    // About one bedroom per 750 sq ft (a 2,400 sq ft house has 3), studios only under 600 sq ft.
    const beds =
      living === null || units
        ? null
        : Math.max(living < 600 ? 0 : 1, Math.min(6, Math.round(living / 750 + rng.next() * 1.2 - 0.6)));
    const baths = beds === null ? null : Math.max(1, Math.round((beds * 0.75 + rng.next() * 0.8) * 2) / 2);
    const perSqft = PRICE_PER_SQFT[place.state] ?? 150;
    const lot = isUnit ? null : rng.int(isLand ? 40 : 25, isLand ? 4000 : 400) * 100;
    const market =
      living !== null ? living * perSqft * (0.7 + rng.next() * 0.6) : (lot ?? 0) * perSqft * 0.08;
    const assessed = Math.round((market * (0.75 + rng.next() * 0.2)) / 100) * 100;
    const sold = rng.chance(0.8);
    const saleAgeDays = rng.int(30, 365 * Math.min(40, yearBuilt ? 2026 - yearBuilt : 30));
    const unitLabel = unit
      ? ` ${/^[A-Z]$|^\d+$/.test(unit) && type === 'condominium' ? 'Unit' : 'Apt'} ${unit}`
      : '';
    const parcel =
      unit && options.buildingParcel ? options.buildingParcel : parcelNumber(place.countyFips, index);
    const record: GeneratedProperty = {
      property_id: propertyId(index++, seed),
      address: `${house} ${streetDisplay}${unitLabel}, ${place.city}, ${place.state} ${place.zip}`,
      street_number: house,
      street_name: streetDisplay,
      unit,
      city: place.city,
      state: place.state,
      zip: place.zip,
      county: place.county,
      source: sourceFor(kind, place, rng),
      source_kind: kind,
      confidence: confidenceFor(kind, age),
      last_verified: isoDay(AS_OF_MS - age * DAY_MS),
      parcel_number: unit ? `${parcel}-${unit.padStart(4, '0')}` : parcel,
      property_type: type,
      year_built: yearBuilt,
      living_area_sqft: living,
      lot_size_sqft: lot,
      bedrooms: beds,
      bathrooms: baths,
      assessed_value: assessed,
      last_sale_date: sold ? isoDay(AS_OF_MS - saleAgeDays * DAY_MS) : null,
      last_sale_price: sold ? Math.round((market * (0.6 + rng.next() * 0.4)) / 1000) * 1000 : null,
      street_display: streetDisplay,
      ...fixed,
    };
    return record;
  };

  for (const s of SHOWCASE) {
    const place = byZip.get(s.zip);
    if (!place) continue;
    const forced = { kind: s.kind, ageDays: s.ageDays };
    if (index >= count) return;
    const building = emit(place, s.house, s.street, null, s.type, {
      forced,
      fixed: s.fixed,
      units: s.units?.ids.length,
    });
    yield building;
    for (const unit of s.units?.ids ?? []) {
      if (index >= count) return;
      yield emit(place, s.house, s.street, unit, s.units?.type ?? 'apartment_unit', {
        buildingParcel: building.parcel_number,
        forced,
        yearBuilt: building.year_built,
      });
    }
  }

  while (index < count) {
    const place = places[Math.floor(rng.next() * places.length)] as Place;
    const street = rng.pick(streetsOf(place));
    const house = String(street.nextHouse);
    street.nextHouse += street.step;
    const building = rng.next();
    if (building < 0.05 && count - index > 3) {
      // A multi-unit building: its own record, then one per unit.
      const units = Math.min(count - index - 1, rng.int(2, 24));
      const condo = rng.chance(0.4);
      const head = emit(place, house, street.display, null, condo ? 'condominium' : 'multi_family', {
        units,
      });
      yield head;
      const floors = units > 8;
      for (let u = 1; u <= units && index < count; u++) {
        const unit = floors ? `${Math.ceil(u / 4)}${String(((u - 1) % 4) + 1).padStart(2, '0')}` : String(u);
        yield emit(place, house, street.display, unit, condo ? 'condominium' : 'apartment_unit', {
          buildingParcel: head.parcel_number,
          yearBuilt: head.year_built,
        });
      }
    } else {
      const type = rng.weighted<PropertyType>([
        ['single_family', 70],
        ['townhouse', 10],
        ['mobile_home', 4],
        ['vacant_land', 6],
        ['multi_family', 10],
      ]);
      yield emit(place, house, street.display, null, type);
    }
  }
}
