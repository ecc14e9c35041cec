import type { Confidence, PropertyType, SourceKind, UpstreamProperty } from '../../contract/index.ts';
import { sourceFor } from './agencies.ts';
import { AS_OF_MS, DAY_MS, isoDay } from './as-of.ts';
import { drawFacts } from './facts.ts';
import { loadPlaces, loadStreetNames, type Place } from './gazetteer.ts';
import { parcelNumber } from './parcels.ts';
import { createRng, hash32, type Rng } from './prng.ts';
import { NO_MAIN_STREET, REAL_STREETS } from './real-streets.ts';
import { type Fixed, METRO_ZIPS, SHOWCASE } from './showcase.ts';

/**
 * The reference dataset, deterministic from (seed, count): the same records, ids and dates on every
 * machine. Dates are counted back from a fixed "data as of" day, not from the clock.
 */
export { DATA_AS_OF, isoDay } from './as-of.ts';
export { SHOWCASE } from './showcase.ts';

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

/** A bijective scramble of the index, so ids look opaque yet never collide. */
function propertyId(index: number, seed: number): string {
  const x = (Math.imul(index ^ 0x5bd1e995, 0x9e3779b1) ^ seed) >>> 0;
  return `pi_${x.toString(36).padStart(7, '0')}${(index % 36).toString(36)}`;
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

export interface Street {
  display: string;
  nextHouse: number;
  step: number;
  /** House numbers the showcase holds on this street. */
  taken: ReadonlySet<number>;
}

export interface GenerateOptions {
  count: number;
  seed: number;
}

/** What the generator carries from record to record: its random stream and the next record's index. */
interface Run {
  rng: Rng;
  seed: number;
  count: number;
  index: number;
}

export function* generateProperties({ count, seed }: GenerateOptions): Generator<GeneratedProperty> {
  const run: Run = { rng: createRng(seed), seed, count, index: 0 };
  const all = loadPlaces();
  // About 40 properties per ZIP code, over a deterministic sample of real ZIP codes (drawn first: the
  // stream's order is the dataset).
  const sampled = samplePlaces(run.rng, all, Math.max(1, Math.min(all.length, Math.ceil(count / 40))));
  // A showcased ZIP code is drawn as often as its weight says: a downtown holds hundreds of properties.
  const places = sampled.flatMap((p) => Array<Place>(REAL_STREETS[p.zip]?.weight ?? 1).fill(p));
  yield* showcaseRecords(run, new Map(all.map((p) => [p.zip, p])));
  const streetsOf = streetBook(seed, all);
  while (run.index < count && places.length > 0) {
    const place = places[Math.floor(run.rng.next() * places.length)] as Place;
    const street = run.rng.pick(streetsOf(place));
    const house = nextHouse(street);
    yield* recordsAt(run, place, house, street.display);
  }
}

/** The street's next house number, past the showcase's: a landmark's address holds the landmark alone. */
function nextHouse(street: Street): string {
  let house = street.nextHouse;
  while (street.taken.has(house)) house += street.step;
  street.nextHouse = house + street.step;
  return String(house);
}

/** The showcase records (the demo's and tests' known addresses), each building followed by its units. */
function* showcaseRecords(run: Run, byZip: Map<string, Place>): Generator<GeneratedProperty> {
  for (const s of SHOWCASE) {
    const place = byZip.get(s.zip);
    if (!place) continue;
    const forced = { kind: s.kind, ageDays: s.ageDays };
    if (run.index >= run.count) return;
    const building = emit(run, place, s.house, s.street, null, s.type, {
      forced,
      fixed: s.fixed,
      units: s.units?.ids.length,
    });
    yield building;
    for (const unit of s.units?.ids ?? []) {
      if (run.index >= run.count) return;
      yield emit(run, place, s.house, s.street, unit, s.units?.type ?? 'apartment_unit', {
        buildingParcel: building.parcel_number,
        forced,
        yearBuilt: building.year_built,
      });
    }
  }
}

/**
 * `n` places drawn without repeats (a Fisher-Yates shuffle, then the first n). A sample large enough to spare
 * the room (ten times their number) always holds the well-known metro ZIP codes, in place of the last drawn.
 */
export function samplePlaces(rng: Rng, all: Place[], n: number): Place[] {
  const pool = [...all];
  for (let i = pool.length - 1; i > 0; i--) {
    const j = Math.floor(rng.next() * (i + 1));
    [pool[i], pool[j]] = [pool[j] as Place, pool[i] as Place];
  }
  const picked = pool.slice(0, n);
  if (n < METRO_ZIPS.length * 10) return picked;
  const metro = new Set(METRO_ZIPS);
  const have = new Set(picked.map((p) => p.zip));
  const missing = all.filter((p) => metro.has(p.zip) && !have.has(p.zip));
  for (let i = picked.length - 1; i >= 0 && missing.length > 0; i--) {
    if (!metro.has((picked[i] as Place).zip)) picked[i] = missing.pop() as Place;
  }
  return picked;
}

/**
 * Each ZIP code's streets. A showcased ZIP code has its real ones (real-streets.ts). Elsewhere names are dealt
 * per three-digit ZIP area (the ZIP codes around one another) without repeats, so neighbouring ZIP codes never
 * read as copies of one another; a town has at most one Main St, and the cities listed as having none get
 * none. Dealt in ZIP order over every ZIP code of the area, sampled or not, so a ZIP code's streets follow
 * from the seed alone, not from which ZIP code the stream asked for first.
 */
export function streetBook(seed: number, all: Place[]): (place: Place) => Street[] {
  const { curated, surnames, suffixes } = loadStreetNames();
  const taken = new Map<string, Set<number>>();
  for (const s of SHOWCASE) {
    const key = `${s.zip}|${s.street}`;
    taken.set(key, (taken.get(key) ?? new Set()).add(Number(s.house)));
  }
  const areas = new Map<string, Place[]>();
  for (const p of all) {
    const area = p.zip.slice(0, 3);
    const list = areas.get(area);
    if (list) list.push(p);
    else areas.set(area, [p]);
  }
  // A town's Main St is in its first ZIP code, and only some towns have one.
  const mainStreetZip = new Set<string>();
  const towns = new Set<string>();
  for (const p of all) {
    const town = `${p.city}|${p.state}`;
    if (towns.has(town)) continue;
    towns.add(town);
    if (!NO_MAIN_STREET.has(town) && createRng(hash32(`${seed}:main:${town}`)).chance(0.35))
      mainStreetZip.add(p.zip);
  }
  const namesByZip = new Map<string, string[]>();
  const dealArea = (area: string) => {
    const r = createRng(hash32(`${seed}:area:${area}`));
    const zips = areas.get(area) ?? [];
    // Real names stay with their ZIP codes: none is dealt to a neighbour as a made-up street.
    const used = new Set(zips.flatMap((p) => REAL_STREETS[p.zip]?.streets ?? []));
    for (const p of zips) {
      const real = REAL_STREETS[p.zip];
      if (real) {
        namesByZip.set(p.zip, [...real.streets]);
        continue;
      }
      const n = r.int(4, 12);
      const names: string[] = [];
      // "Main St" is in many towns, which makes "100 Main St" without a city honestly ambiguous; but a town
      // has one.
      if (mainStreetZip.has(p.zip)) names.push('Main St');
      while (names.length < n) {
        const name = r.chance(0.6) ? r.pick(curated) : `${r.pick(surnames)} ${r.pick(suffixes)}`;
        if (used.has(name)) continue;
        used.add(name);
        names.push(name);
      }
      namesByZip.set(p.zip, names);
    }
  };
  const streetsByZip = new Map<string, Street[]>();
  return (place) => {
    let streets = streetsByZip.get(place.zip);
    if (!streets) {
      if (!namesByZip.has(place.zip)) dealArea(place.zip.slice(0, 3));
      const r = createRng(hash32(`${seed}:${place.zip}`));
      streets = (namesByZip.get(place.zip) ?? []).map((display) => ({
        display,
        nextHouse:
          (display === 'Main St' ? 100 : r.int(1, 60) * 10 + r.pick([0, 1])) + blockOf(place.zip, display),
        step: r.pick([2, 2, 4, 6, 10, 20]),
        taken: taken.get(`${place.zip}|${display}`) ?? new Set(),
      }));
      streetsByZip.set(place.zip, streets);
    }
    return streets;
  };
}

/**
 * A real street that runs through several showcased ZIP codes (Guadalupe St: 78701, 78705, 78751) is numbered
 * on from one to the next, 2,000 a ZIP code in the order listed, so "241 E 7th St, Austin" is one property.
 */
function blockOf(zip: string, street: string): number {
  const through = REAL_STREET_ZIPS.get(street) ?? [];
  return through.length > 1 ? Math.max(0, through.indexOf(zip)) * 2000 : 0;
}

/** Each real street's showcased ZIP codes, in the order listed. */
const REAL_STREET_ZIPS = new Map<string, string[]>();
for (const [zip, { streets }] of Object.entries(REAL_STREETS)) {
  for (const street of streets) REAL_STREET_ZIPS.set(street, [...(REAL_STREET_ZIPS.get(street) ?? []), zip]);
}

/** The records at one house number: mostly one property; now and then a building, then one per unit. */
function* recordsAt(run: Run, place: Place, house: string, street: string): Generator<GeneratedProperty> {
  const { rng, count } = run;
  if (rng.next() < 0.05 && count - run.index > 3) {
    const units = Math.min(count - run.index - 1, rng.int(2, 24));
    const condo = rng.chance(0.4);
    const head = emit(run, place, house, street, null, condo ? 'condominium' : 'multi_family', { units });
    yield head;
    const floors = units > 8;
    for (let u = 1; u <= units && run.index < count; u++) {
      const unit = floors ? `${Math.ceil(u / 4)}${String(((u - 1) % 4) + 1).padStart(2, '0')}` : String(u);
      yield emit(run, place, house, street, unit, condo ? 'condominium' : 'apartment_unit', {
        buildingParcel: head.parcel_number,
        yearBuilt: head.year_built,
      });
    }
    return;
  }
  const type = rng.weighted<PropertyType>([
    ['single_family', 70],
    ['townhouse', 10],
    ['mobile_home', 4],
    ['vacant_land', 6],
    ['multi_family', 10],
  ]);
  yield emit(run, place, house, street, null, type);
}

interface EmitOptions {
  /** A unit's parcel number is its building's with the unit added. */
  buildingParcel?: string;
  forced?: { kind: SourceKind; ageDays: number };
  fixed?: Fixed;
  /** A building whose units have records of their own: its size is theirs together, its rooms are theirs. */
  units?: number;
  /** A unit is as old as its building. */
  yearBuilt?: number | null;
}

/** One record: its source and age drawn (or forced), its facts drawn to fit its type and place. */
function emit(
  run: Run,
  place: Place,
  house: string,
  streetDisplay: string,
  unit: string | null,
  type: PropertyType,
  options: EmitOptions = {},
): GeneratedProperty {
  const { rng } = run;
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
  const facts = drawFacts(rng, place, type, unit, { units, yearBuilt: options.yearBuilt });
  const unitLabel = unit
    ? ` ${/^[A-Z]$|^\d+$/.test(unit) && type === 'condominium' ? 'Unit' : 'Apt'} ${unit}`
    : '';
  const parcel =
    unit && options.buildingParcel ? options.buildingParcel : parcelNumber(place.countyFips, run.index);
  return {
    property_id: propertyId(run.index++, run.seed),
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
    ...facts,
    unit_count: unit ? null : (units ?? null),
    street_display: streetDisplay,
    ...fixed,
  };
}
