import {
  allowance,
  bestStreetScore,
  knownStreet,
  mayBeNear,
  type NameForm,
  nameForm,
  rank,
  type Score,
  type StreetForm,
  scoreName,
  scoreStreet,
} from './street-score.ts';

/** A ZIP code with its city, state and street keys joined by '|' (one row per ZIP: 7 times fewer than streets). */
export type ZipRow = [zip: string, cityKey: string, state: string, streetKeys: string];

export interface StreetInfo {
  key: string;
  form: StreetForm;
  /** The states it is in (Main St: most of them). */
  states: string[];
}

export interface CityInfo {
  key: string;
  state: string;
  form: NameForm;
  streets: Set<StreetInfo>;
  zips: string[];
}

interface ZipInfo {
  city: CityInfo;
  streets: StreetInfo[];
}

/** Where a candidate street was found: its rows are those in these ZIP codes, or in this state, or anywhere. */
export interface Scope {
  zips?: readonly string[];
  state?: string;
}

export interface StreetCandidate {
  street: StreetInfo;
  scope: Scope;
  score: Score;
}

/** What a person typed about the place, in standard tokens. */
export interface TypedPlace {
  zip: string | null;
  state: string | null;
  city: NameForm | null;
}

/** The widest a street's written-out core may differ in length from the typed one and still match. */
const MAX_LENGTH_GAP = 2;
/** The most edits any name is allowed (see allowance). */
const MAX_ALLOWANCE = allowance(Number.POSITIVE_INFINITY);

/**
 * Which streets are in which ZIP, city and state, in memory (a few MB for a million properties), so a typo is
 * corrected against the streets of the place the person named without a query per street.
 */
export class PlaceIndex {
  readonly #streets = new Map<string, StreetInfo>();
  readonly #zips = new Map<string, ZipInfo>();
  readonly #cities = new Map<string, CityInfo>();
  readonly #citiesByState = new Map<string, CityInfo[]>();
  readonly #allCities: CityInfo[] = [];
  /** Every street by the length of its written-out core, for inputs that name a state or no place. */
  readonly #byLength = new Map<number, StreetInfo[]>();

  constructor(rows: Iterable<ZipRow>) {
    // Plain loops without closures: this runs for every street of every ZIP on each start.
    for (const [zip, cityKey, state, streetKeys] of rows) {
      const cityId = `${state}|${cityKey}`;
      let city = this.#cities.get(cityId);
      if (!city) {
        city = { key: cityKey, state, form: nameForm(cityKey.split(' ')), streets: new Set(), zips: [] };
        this.#cities.set(cityId, city);
        const inState = this.#citiesByState.get(state);
        if (inState) inState.push(city);
        else this.#citiesByState.set(state, [city]);
        this.#allCities.push(city);
      }
      city.zips.push(zip);
      const streets: StreetInfo[] = [];
      for (const streetKey of streetKeys.split('|')) {
        let street = this.#streets.get(streetKey);
        if (!street) {
          street = { key: streetKey, form: knownStreet(streetKey), states: [] };
          this.#streets.set(streetKey, street);
        }
        if (!street.states.includes(state)) street.states.push(state);
        city.streets.add(street);
        streets.push(street);
      }
      this.#zips.set(zip, { city, streets });
    }
    for (const s of this.#streets.values()) {
      const len = s.form.core.long.length;
      const same = this.#byLength.get(len);
      if (same) same.push(s);
      else this.#byLength.set(len, [s]);
    }
  }

  street(key: string): StreetInfo | undefined {
    return this.#streets.get(key);
  }

  /** Whether the data has a city of this name (in standard form) in this state. */
  hasCity(state: string, cityStd: string): boolean {
    return this.#cities.has(`${state}|${cityStd}`);
  }

  /** The city and state of a ZIP code the data has. */
  zip(zip: string): { city: string; state: string } | undefined {
    const z = this.#zips.get(zip);
    return z && { city: z.city.key, state: z.city.state };
  }

  /**
   * The place an exactly spelt street is in, if the named place has it: the fast path for a well-typed
   * address. Undefined when the street or place is not spelt exactly as the data has it.
   */
  exact(streetKey: string, place: TypedPlace): Scope | undefined {
    const street = this.#streets.get(streetKey);
    if (!street) return undefined;
    if (place.zip) {
      const z = this.#zips.get(place.zip);
      if (!z?.streets.includes(street) || (place.state && z.city.state !== place.state)) return undefined;
      if (place.city && place.city.std !== z.city.key) return undefined;
      return { zips: [place.zip] };
    }
    if (place.city) {
      if (!place.state) return undefined;
      const c = this.#cities.get(`${place.state}|${place.city.std}`);
      return c?.streets.has(street) ? { zips: c.zips } : undefined;
    }
    if (place.state) return street.states.includes(place.state) ? { state: place.state } : undefined;
    return {};
  }

  /**
   * Every street of the named place within a typo of what was typed, with its score. With a ZIP the ZIP
   * decides and the city only has to resemble the ZIP's (one more edit allowed); a city must be in the state
   * named, or in any state when none is.
   */
  candidates(readings: readonly StreetForm[], place: TypedPlace): StreetCandidate[] {
    const out: StreetCandidate[] = [];
    if (readings.length === 0) return out;
    const add = (street: StreetInfo, scope: Scope, placeMistakes: number) => {
      const s = bestStreetScore(readings, street.form);
      if (s) out.push({ street, scope, score: { mistakes: s.mistakes + placeMistakes, missing: s.missing } });
    };
    if (place.zip) {
      const z = this.#zips.get(place.zip);
      if (!z || (place.state && z.city.state !== place.state)) return out;
      const cityMistakes = place.city ? scoreName(place.city, z.city.form, 1) : 0;
      if (cityMistakes === null) return out;
      for (const street of z.streets) add(street, { zips: [place.zip] }, cityMistakes);
      return out;
    }
    if (place.city) {
      const cities = place.state ? (this.#citiesByState.get(place.state) ?? []) : this.#allCities;
      for (const city of cities) {
        const cityMistakes = scoreName(place.city, city.form);
        if (cityMistakes === null) continue;
        for (const street of city.streets) add(street, { zips: city.zips }, cityMistakes);
      }
      return out;
    }
    // Each reading against the streets whose written-out core is about as long as its own.
    const best = new Map<StreetInfo, Score>();
    for (const reading of readings) {
      const { long, raw } = reading.core;
      const gap = allowance(reading.core.letters + MAX_LENGTH_GAP);
      for (
        let l = Math.min(long.length, raw.length) - gap;
        l <= Math.max(long.length, raw.length) + gap;
        l++
      ) {
        for (const street of this.#byLength.get(l) ?? []) {
          // Thousands of streets: rule most out by their letters before scoring.
          if (!mayBeNear(reading.core, street.form.core, MAX_ALLOWANCE)) continue;
          if (place.state && !street.states.includes(place.state)) continue;
          const s = scoreStreet(reading, street.form);
          const known = best.get(street);
          if (s && (!known || rank(s) < rank(known))) best.set(street, s);
        }
      }
    }
    const scope = place.state ? { state: place.state } : {};
    for (const [street, score] of best) out.push({ street, scope, score });
    return out;
  }
}
