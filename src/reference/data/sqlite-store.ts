import type Database from 'better-sqlite3';
import type { UpstreamCandidate, UpstreamProperty } from '../../contract/index.ts';
import type { PropertyStore, ResolveOutcome, SearchResult } from '../store.ts';
import { PROPERTY_COLUMNS } from './database.ts';
import { editDistance, type ParsedAddress, parseAddress, tokenize, typoAllowance } from './normalize.ts';
import { standardToken, UNIT_DESIGNATORS } from './usps.ts';

interface Row extends UpstreamProperty {
  city_key: string;
  unit_key: string;
}

const MAX_CANDIDATES = 10;
const SEARCH_CANDIDATES = 1000;

interface SearchRow extends UpstreamProperty {
  rid: number;
  street_key: string;
  city_key: string;
  unit_key: string;
}

/** A row of the street table, raw: zip, street key, city key, state. */
type StreetRow = [zip: string, streetKey: string, cityKey: string, state: string];

function getOrCreate<K, V>(map: Map<K, V>, key: K, create: () => V): V {
  let value = map.get(key);
  if (value === undefined) {
    value = create();
    map.set(key, value);
  }
  return value;
}

/**
 * Which streets are in which ZIP, city and state, in memory (a few MB for a million properties) so that a
 * typo can be corrected against the streets of the place the person named without a query per street.
 */
class PlaceIndex {
  readonly #byZip = new Map<string, string[]>();
  readonly #byCity = new Map<string, Set<string>>();
  readonly #byState = new Map<string, Set<string>>();
  readonly #citiesByState = new Map<string, Set<string>>();
  /** Every street name by its length, for inputs that name no place. */
  readonly #byLength = new Map<number, string[]>();

  constructor(rows: Iterable<StreetRow>) {
    const all = new Set<string>();
    for (const [zip, street, city, state] of rows) {
      getOrCreate(this.#byZip, zip, () => []).push(street);
      getOrCreate(this.#byCity, `${state}|${city}`, () => new Set()).add(street);
      getOrCreate(this.#byState, state, () => new Set()).add(street);
      getOrCreate(this.#citiesByState, state, () => new Set()).add(city);
      all.add(street);
    }
    for (const s of all) getOrCreate(this.#byLength, s.length, () => []).push(s);
  }

  /** Street names that a typo of `street` may stand for, in the place named. */
  streetsNear(parsed: ParsedAddress, city: string[], allowance: number, street = ''): Iterable<string> {
    if (parsed.zip) return this.#byZip.get(parsed.zip) ?? [];
    if (parsed.state && city.length > 0) {
      const name = city.join(' ');
      const cityAllowance = typoAllowance(name);
      const out: string[] = [];
      for (const c of this.#citiesByState.get(parsed.state) ?? []) {
        if (editDistance(c, name, cityAllowance) <= cityAllowance)
          out.push(...(this.#byCity.get(`${parsed.state}|${c}`) ?? []));
      }
      return out;
    }
    if (parsed.state) return this.#byState.get(parsed.state) ?? [];
    return this.#ofLengths(street.length - allowance, street.length + allowance);
  }

  /** Every street name whose length is in [min, max], without copying the lists. */
  *#ofLengths(min: number, max: number): Iterable<string> {
    for (let len = min; len <= max; len++) yield* this.#byLength.get(len) ?? [];
  }
}

/** Address resolution and search over the reference SQLite database. */
export class SqlitePropertyStore implements PropertyStore {
  readonly #byAddress: Database.Statement<[string, string], Row>;
  readonly #byAddressInState: Database.Statement<[string, string, string], Row>;
  readonly #byAddressInZip: Database.Statement<[string, string, string], Row>;
  readonly #search: Database.Statement<[string], SearchRow>;
  readonly #count: number;
  readonly #places: PlaceIndex;

  constructor(db: Database.Database) {
    const cols = `${PROPERTY_COLUMNS.join(', ')}, city_key, unit_key`;
    this.#byAddress = db.prepare(`SELECT ${cols} FROM property WHERE street_key = ? AND street_number = ?`);
    this.#byAddressInState = db.prepare(
      `SELECT ${cols} FROM property WHERE street_key = ? AND street_number = ? AND state = ?`,
    );
    this.#byAddressInZip = db.prepare(
      `SELECT ${cols} FROM property WHERE street_key = ? AND street_number = ? AND zip = ?`,
    );
    // Candidates in index order, bounded so a one-letter prefix stays fast; ranked in JavaScript below.
    this.#search = db.prepare(
      `SELECT ${PROPERTY_COLUMNS.map((c) => `p.${c}`).join(', ')}, p.rid, p.street_key, p.city_key, p.unit_key
       FROM (SELECT rowid FROM address_fts WHERE address_fts MATCH ? LIMIT ${SEARCH_CANDIDATES}) f
       JOIN property p ON p.rid = f.rowid`,
    );
    this.#count = (db.prepare('SELECT count(*) AS n FROM property').get() as { n: number }).n;
    // Streamed as raw rows: materialising 200,000 row objects at once would double the start-up peak.
    this.#places = new PlaceIndex(
      db
        .prepare('SELECT zip, street_key, city_key, state FROM street')
        .raw()
        .iterate() as Iterable<StreetRow>,
    );
  }

  count(): number {
    return this.#count;
  }

  resolve(address: string): ResolveOutcome {
    const parsed = parseAddress(address);
    let outcome = this.#resolveParsed(parsed);
    // "123 Main St NE" reads NE as Nebraska: if that finds nothing, read it as part of the street.
    if (outcome === null && parsed.state && !parsed.zip && parsed.city === null) {
      outcome = this.#resolveParsed({
        ...parsed,
        state: null,
        rest: [...parsed.rest, ...parsed.stateTokens],
      });
    }
    return outcome ?? { kind: 'not_found', candidates: this.#suggest(address) };
  }

  #resolveParsed(parsed: ParsedAddress): ResolveOutcome | null {
    if (!parsed.house || parsed.rest.length === 0) return null;
    const splits: { street: string; city: string[] }[] = [];
    if (parsed.city) splits.push({ street: parsed.rest.join(' '), city: parsed.city });
    else {
      for (let k = parsed.rest.length; k >= 1; k--) {
        splits.push({ street: parsed.rest.slice(0, k).join(' '), city: parsed.rest.slice(k) });
      }
    }
    for (const split of splits) {
      const rows = this.#matchLocality(this.#lookup(split.street, parsed), parsed, split.city);
      if (rows.length > 0) return this.#decide(rows, parsed);
    }
    // No exact street: allow a typo in the street name, among the streets of the place named.
    let best: { street: string; city: string[]; distance: number } | null = null;
    for (const split of splits) {
      const allowance = typoAllowance(split.street);
      if (allowance === 0) continue;
      const [first, second] = split.street;
      for (const known of this.#places.streetsNear(parsed, split.city, allowance, split.street)) {
        // A typo rarely hits both of the first two letters (a swap of them keeps both): skip the rest cheaply.
        if (known[0] !== first && known[1] !== second && known[0] !== second) continue;
        const d = editDistance(split.street, known, allowance);
        if (d <= allowance && (!best || d < best.distance))
          best = { street: known, city: split.city, distance: d };
      }
    }
    if (best) {
      const rows = this.#matchLocality(this.#lookup(best.street, parsed), parsed, best.city);
      if (rows.length > 0) return this.#decide(rows, parsed);
    }
    return null;
  }

  /** Keeps the rows in the ZIP, state and city the input named; the city may carry a typo. */
  #matchLocality(rows: Row[], parsed: ParsedAddress, city: string[]): Row[] {
    let out = rows;
    if (parsed.zip) out = out.filter((r) => r.zip === parsed.zip);
    if (parsed.state) out = out.filter((r) => r.state === parsed.state);
    if (city.length > 0) {
      const name = city.join(' ');
      const exact = out.filter((r) => r.city_key === name);
      if (exact.length > 0) return exact;
      const allowance = typoAllowance(name);
      // With a ZIP the ZIP decides; a city that is nothing like the ZIP's is still a mismatch.
      out = out.filter((r) => editDistance(r.city_key, name, allowance) <= allowance);
    }
    return out;
  }

  #lookup(streetKey: string, parsed: ParsedAddress): Row[] {
    const house = parsed.house as string;
    if (parsed.zip) return this.#byAddressInZip.all(streetKey, house, parsed.zip);
    if (parsed.state) return this.#byAddressInState.all(streetKey, house, parsed.state);
    return this.#byAddress.all(streetKey, house);
  }

  #decide(rows: Row[], parsed: ParsedAddress): ResolveOutcome {
    const buildings = new Map<string, Row[]>();
    for (const r of rows)
      getOrCreate(buildings, `${r.zip}|${r.street_name}|${r.street_number}`, () => []).push(r);
    const wanted = parsed.unit ?? '';
    const exact = rows.filter((r) => r.unit_key === wanted);
    if (exact.length === 1) return { kind: 'found', property: strip(exact[0] as Row) };
    if (exact.length > 1)
      return { kind: 'ambiguous', candidates: exact.slice(0, MAX_CANDIDATES).map(candidate) };
    if (buildings.size > 1) {
      const heads = [...buildings.values()].map(
        (units) => units.find((u) => u.unit_key === '') ?? (units[0] as Row),
      );
      return { kind: 'ambiguous', candidates: heads.slice(0, MAX_CANDIDATES).map(candidate) };
    }
    const units = [...buildings.values()][0] as Row[];
    const building = units.find((u) => u.unit_key === '') ?? (units[0] as Row);
    const others = units
      .filter((u) => u.unit_key !== '')
      .slice(0, MAX_CANDIDATES)
      .map(candidate);
    if (parsed.unit) return { kind: 'unit_not_found', building: candidate(building), candidates: others };
    // A building known only by its units: which unit was meant?
    return { kind: 'ambiguous', candidates: others };
  }

  /** "Did you mean": the closest addresses that share the most of what was typed, dropping words from the front. */
  #suggest(address: string): UpstreamCandidate[] {
    const words = tokenize(address).filter((t) => t !== ',');
    for (let from = 0; from < words.length - 1; from++) {
      const found = this.search(words.slice(from).join(' '), 5, 0).items;
      if (found.length > 0) return found.map(candidate);
    }
    return [];
  }

  search(query: string, limit: number, offset: number): SearchResult {
    const words = searchWords(query);
    if (words.length === 0) return { items: [], more: false };
    const ranked = this.#search
      .all(ftsQuery(words))
      .map((row) => ({ row, score: searchScore(words, row) }))
      .sort((a, b) => b.score - a.score || a.row.rid - b.row.rid);
    const page = ranked.slice(offset, offset + limit).map(({ row }) => {
      const { rid: _r, street_key: _s, city_key: _c, unit_key: _u, ...property } = row;
      return property;
    });
    return { items: page, more: ranked.length > offset + limit };
  }
}

function candidate(r: UpstreamProperty): UpstreamCandidate {
  return { property_id: r.property_id, address: r.address };
}

function strip(r: Row): UpstreamProperty {
  const { city_key: _c, unit_key: _u, ...property } = r;
  return property;
}

/** A partial address as the words the index holds: normal form, no unit designators or punctuation. */
export function searchWords(query: string): string[] {
  return tokenize(query)
    .filter((t) => t !== ',' && t !== '#' && !(t in UNIT_DESIGNATORS))
    .map(standardToken)
    .map((t) => t.replace(/[^A-Z0-9]/g, ''))
    .filter((t) => t !== '')
    .slice(0, 12);
}

/**
 * Every word must match, the last as a prefix since the person may still be typing. Quoting each word keeps
 * FTS5 syntax in the input from being interpreted.
 */
export function ftsQuery(words: string[]): string {
  return words.map((w, i) => (i === words.length - 1 ? `"${w}"*` : `"${w}"`)).join(' ');
}

/**
 * "Best first" for a partial address: a typed number that is the house number counts most, then words that
 * match whole (not just as a prefix), then the shorter address (fewer words the person did not type).
 */
export function searchScore(words: string[], row: SearchRow): number {
  const tokens =
    `${row.street_number} ${row.street_key} ${row.unit_key} ${row.city_key} ${row.state} ${row.zip}`
      .split(' ')
      .filter((t) => t !== '');
  let score = 0;
  if (words[0] === row.street_number) score += 4;
  for (const w of words) if (tokens.includes(w)) score += 2;
  if (row.unit_key === '') score += 1;
  return score - tokens.length * 0.01;
}
