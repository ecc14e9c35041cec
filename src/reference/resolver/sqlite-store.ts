import type Database from 'better-sqlite3';
import { LRUCache } from 'lru-cache';
import type { NotFoundReason, UpstreamCandidate, UpstreamProperty } from '../../contract/index.ts';
import { PROPERTY_COLUMNS } from '../dataset/database.ts';
import { PARCEL_PATTERN, parcelIndex } from '../dataset/parcels.ts';
import type { PropertyStore, ResolveOutcome, SearchResult } from '../store.ts';
import { type ParsedAddress, parseAddress, tokenize } from './normalize.ts';
import { PlaceIndex, type Scope, type StreetCandidate, type TypedPlace, type ZipRow } from './place-index.ts';
import { byPlace, decide, decideAll, type Resolution, type Row } from './resolution.ts';
import { ftsQuery, searchScore, searchWords } from './search-terms.ts';
import { nameForm, rank, typedStreets } from './street-score.ts';

interface FullRow extends UpstreamProperty, Row {}

/** Candidates named in an ambiguous or unit-not-found answer; the rest are reached through search. */
const MAX_CANDIDATES = 10;
const SUGGESTIONS = 5;
const SEARCH_CANDIDATES = 1000;

const PROPERTY_ID = /^pi_[0-9a-z]{8}$/i;
const ZIP_ONLY = /^(\d{5})(?:-?\d{4})?$/;

/** The streets an address names, best score first, and the rows at its house number on them. */
interface Match {
  streets: StreetCandidate[];
  rows: Row[];
}

interface Split {
  street: string[];
  /** The street's words as typed. */
  streetRaw: string[];
  place: TypedPlace;
}

/** Address resolution and search over the reference SQLite database. */
export class SqlitePropertyStore implements PropertyStore {
  readonly #byAddress: Database.Statement<[string, string], Row>;
  readonly #byAddressInState: Database.Statement<[string, string, string], Row>;
  readonly #byAddressInZip: Database.Statement<[string, string, string], Row>;
  readonly #byId: Database.Statement<[string], Row>;
  readonly #withParcel: Database.Statement<[number], Row & { parcel_number: string }>;
  readonly #parcelAt: Database.Statement<[string, string, string, string], Row>;
  readonly #inZip: Database.Statement<[string], Row>;
  readonly #onStreetInZip: Database.Statement<[string, string], Row>;
  readonly #onStreetInState: Database.Statement<[string, string], Row>;
  readonly #nearestOnStreet: Database.Statement<[string, string, number], Row>;
  readonly #byRids: Database.Statement<[string], FullRow>;
  readonly #search: Database.Statement<[string], Row>;
  readonly #count: number;
  readonly #places: PlaceIndex;
  /** Ordered rids of recent list queries, so paging through a long list sorts it once. */
  readonly #lists = new LRUCache<string, number[]>({ max: 64 });

  constructor(db: Database.Database) {
    const cols = 'rid, zip, state, city_key, street_key, street_number, unit_key';
    const select = <P extends unknown[]>(where: string) =>
      db.prepare<P, Row>(`SELECT ${cols} FROM property WHERE ${where}`);
    this.#byRids = db.prepare<[string], FullRow>(
      `SELECT ${PROPERTY_COLUMNS.join(', ')}, ${cols} FROM property WHERE rid IN (SELECT value FROM json_each(?))`,
    );
    this.#byAddress = select<[string, string]>('street_key = ? AND street_number = ?');
    this.#byAddressInState = select<[string, string, string]>(
      'street_key = ? AND street_number = ? AND state = ?',
    );
    this.#byAddressInZip = select<[string, string, string]>(
      'street_key = ? AND street_number = ? AND zip = ?',
    );
    this.#byId = select<[string]>('property_id = ?');
    this.#withParcel = db.prepare(`SELECT ${cols}, parcel_number FROM property WHERE rid = ?`);
    this.#parcelAt = select<[string, string, string, string]>(
      'zip = ? AND street_key = ? AND street_number = ? AND parcel_number = ?',
    );
    this.#inZip = select<[string]>('zip = ?');
    this.#onStreetInZip = select<[string, string]>('zip = ? AND street_key = ?');
    this.#onStreetInState = select<[string, string]>('street_key = ? AND state = ?');
    // "Did you mean": the street's houses nearest the number typed, buildings rather than their units.
    this.#nearestOnStreet = select<[string, string, number]>(
      `street_key = ? AND unit_key = '' AND zip IN (SELECT value FROM json_each(?))
       ORDER BY abs(CAST(street_number AS INTEGER) - ?), rid LIMIT ${SUGGESTIONS}`,
    );
    // Candidates in index order, bounded so a one-letter prefix stays fast; ranked in JavaScript below.
    this.#search = db.prepare<[string], Row>(
      `SELECT ${cols.replace(/(\w+)/g, 'p.$1')}
       FROM (SELECT rowid FROM address_fts WHERE address_fts MATCH ? LIMIT ${SEARCH_CANDIDATES}) f
       JOIN property p ON p.rid = f.rowid`,
    );
    this.#count = (db.prepare('SELECT count(*) AS n FROM property').get() as { n: number }).n;
    // One row per ZIP with its streets joined: a native call per street row would take most of a warm start.
    this.#places = new PlaceIndex(
      db
        .prepare(`SELECT zip, city_key, state, group_concat(street_key, '|') FROM street GROUP BY zip`)
        .raw()
        .all() as ZipRow[],
    );
  }

  count(): number {
    return this.#count;
  }

  resolve(address: string): ResolveOutcome {
    const r = this.#resolve(address);
    switch (r.kind) {
      case 'found':
        return { kind: 'found', property: strip(this.#full([r.row])[0] as FullRow) };
      case 'ambiguous':
        return {
          kind: 'ambiguous',
          candidates: this.#full(r.rows.slice(0, MAX_CANDIDATES)).map(candidate),
          total: r.rows.length,
        };
      case 'unit_not_found': {
        const [building, ...units] = this.#full([r.building, ...r.units.slice(0, MAX_CANDIDATES)]);
        return {
          kind: 'unit_not_found',
          building: candidate(building as FullRow),
          candidates: units.map(candidate),
        };
      }
      case 'not_found':
        return {
          kind: 'not_found',
          candidates: this.#full(r.near.length > 0 ? r.near : this.#suggest(address)).map(candidate),
          ...(r.reason ? { reason: r.reason } : {}),
        };
    }
  }

  /** The whole records of these rows, in the same order. */
  #full(rows: readonly Pick<Row, 'rid'>[]): FullRow[] {
    if (rows.length === 0) return [];
    const byRid = new Map(this.#byRids.all(JSON.stringify(rows.map((r) => r.rid))).map((r) => [r.rid, r]));
    return rows.map((r) => byRid.get(r.rid) as FullRow);
  }

  #resolve(address: string): Resolution {
    const text = address.trim();
    // A property id or parcel number pasted from a record ("Copy ID") finds that record.
    if (PROPERTY_ID.test(text)) return decideAll(this.#byId.all(text.toLowerCase()));
    if (PARCEL_PATTERN.test(text)) return decideAll(this.#byParcel(text));
    // A ZIP code alone names every property in it: which one?
    const zip = ZIP_ONLY.exec(text)?.[1];
    if (zip) return decideAll(this.#inZip.all(zip).sort(byPlace));

    const parsed = parseAddress(text);
    let match = this.#match(parsed);
    // "123 Main St NE" reads NE as Nebraska, "210 Todd Ct 60473" CT as Connecticut, "240 Washington 38332"
    // the state of Washington: if that finds nothing, read those words as part of the street.
    if (match === null && parsed.state && parsed.city === null) {
      match = this.#match({
        ...parsed,
        state: null,
        rest: [...parsed.rest, ...parsed.stateTokens],
        raw: { ...parsed.raw, rest: [...parsed.raw.rest, ...parsed.raw.stateTokens] },
      });
    }
    if (match && match.rows.length > 0) return decide(match.rows, parsed.unit);
    // Right street, number and ZIP, but a neighbouring city ("621 North Rd, Hampton, VA 23608" for a record in
    // Newport News, which shares the ZIP): the ZIP, street and number agreeing outweigh the city.
    const inZip = parsed.zip ? this.#match(parsed, { cityIgnored: true }) : null;
    if (inZip && inZip.rows.length > 0) return decide(inZip.rows, parsed.unit);
    const near = match ? this.#nearest(match.streets, parsed) : [];
    const reason = this.#notFoundReason(parsed, match);
    return { kind: 'not_found', near, ...(reason ? { reason } : {}) };
  }

  /**
   * Why nothing matched, when the place named says: a ZIP code the data holds nothing in; the street known in
   * the place named (its ZIP code, or a city) but not the number; the place known but not the street. Nothing
   * when no place was named, the place named contradicts itself (a ZIP code of another state), or the street was
   * only found somewhere else.
   */
  #notFoundReason(parsed: ParsedAddress, match: Match | null): NotFoundReason | undefined {
    if (!parsed.house) return undefined;
    if (parsed.zip && !this.#places.zip(parsed.zip)) return 'place_not_covered';
    if (match) {
      const zip = parsed.zip;
      const inPlaceNamed = match.streets.every((c) => c.scope.zips && (!zip || c.scope.zips.includes(zip)));
      return inPlaceNamed ? 'no_such_house' : undefined;
    }
    // The street was not found in the ZIP code named; but a ZIP code in another state than the one named (a typo
    // in either) says nothing about the street: "no such street in 29417" would be false when it is there.
    if (parsed.zip) {
      const state = this.#places.zip(parsed.zip)?.state;
      return !parsed.state || state === parsed.state ? 'no_such_street' : undefined;
    }
    if (parsed.city && parsed.state) {
      const city = nameForm(parsed.city, parsed.raw.city ?? parsed.city).std;
      return this.#places.hasCity(parsed.state, city) ? 'no_such_street' : undefined;
    }
    return undefined;
  }

  /** The record of a parcel number: its building's is found by position (see parcels.ts), a unit's beside it. */
  #byParcel(parcel: string): Row[] {
    const index = parcelIndex(parcel);
    const building = index === null ? undefined : this.#withParcel.get(index + 1);
    const base = parcel.split('-').slice(0, 3).join('-');
    if (!building || building.parcel_number !== base) return [];
    if (base === parcel) return [building];
    return this.#parcelAt.all(building.zip, building.street_key, building.street_number, parcel);
  }

  /** The ways to read the words before the state as street and city: "congress ave austin" has no comma. */
  #splits(parsed: ParsedAddress, cityIgnored = false): Split[] {
    const { rest, raw } = parsed;
    const place = (city: string[], cityRaw: string[]) => ({
      zip: parsed.zip,
      state: parsed.state,
      city: city.length > 0 && !cityIgnored ? nameForm(city, cityRaw) : null,
    });
    if (parsed.city) {
      return [{ street: rest, streetRaw: raw.rest, place: place(parsed.city, raw.city ?? parsed.city) }];
    }
    const splits: Split[] = [];
    for (let k = rest.length; k >= 1; k--) {
      splits.push({
        street: rest.slice(0, k),
        streetRaw: raw.rest.slice(0, k),
        place: place(rest.slice(k), raw.rest.slice(k)),
      });
    }
    return splits;
  }

  /**
   * The streets the address names and the rows at its house number on them. A street spelt exactly in the
   * place named decides alone; otherwise every street within a typo of what was typed is scored, and only
   * the best-scored ones count: a house number missing there is not found, never taken from a street that
   * fits worse (a neighbour).
   */
  #match(parsed: ParsedAddress, reading: { cityIgnored?: boolean } = {}): Match | null {
    const streets = this.#streets(parsed, true, reading.cityIgnored);
    if (streets === null) return null;
    const house = parsed.house as string;
    const rows = new Map<number, Row>();
    for (const c of streets) {
      for (const r of this.#rowsAt(c.street.key, house, c.scope)) rows.set(r.rid, r);
    }
    return { streets, rows: [...rows.values()] };
  }

  /** The best-scored streets the address names; null when none is close enough. */
  #streets(parsed: ParsedAddress, needsHouse = true, cityIgnored = false): StreetCandidate[] | null {
    if ((needsHouse && !parsed.house) || parsed.rest.length === 0) return null;
    const splits = this.#splits(parsed, cityIgnored);
    for (const { street, place } of splits) {
      const key = street.join(' ');
      const scope = this.#places.exact(key, place);
      const info = scope && this.#places.street(key);
      if (scope && info) return [{ street: info, scope, score: { mistakes: 0, missing: 0 } }];
    }
    let all = splits.flatMap(({ street, streetRaw, place }) =>
      this.#places.candidates(typedStreets(street, streetRaw), place),
    );
    if (all.length === 0 && parsed.zip) {
      // The ZIP has no such street, or the city is nothing like the ZIP's: a mistyped ZIP. Where a city was
      // named, look there (in the ZIP's state when none was typed).
      const state = parsed.state ?? this.#places.zip(parsed.zip)?.state ?? null;
      all = splits
        .filter((s) => s.place.city !== null)
        .flatMap(({ street, streetRaw, place }) =>
          this.#places.candidates(typedStreets(street, streetRaw), { ...place, zip: null, state }),
        );
    }
    if (all.length === 0) return null;
    const best = Math.min(...all.map((c) => rank(c.score)));
    const tier = all.filter((c) => rank(c.score) - best < 1e-9);
    // The same street may come from two readings of the words: keep it once per place.
    const seen = new Set<string>();
    return tier.filter((c) => {
      const id = `${c.street.key}|${c.scope.zips?.join(',') ?? ''}|${c.scope.state ?? ''}`;
      if (seen.has(id)) return false;
      seen.add(id);
      return true;
    });
  }

  #rowsAt(streetKey: string, house: string, scope: Scope): Row[] {
    if (scope.zips) return scope.zips.flatMap((z) => this.#byAddressInZip.all(streetKey, house, z));
    if (scope.state) return this.#byAddressInState.all(streetKey, house, scope.state);
    return this.#byAddress.all(streetKey, house);
  }

  #rowsOnStreet(streetKey: string, scope: Scope): Row[] {
    if (scope.zips) return scope.zips.flatMap((z) => this.#onStreetInZip.all(z, streetKey));
    if (scope.state) return this.#onStreetInState.all(streetKey, scope.state);
    return [];
  }

  /**
   * "Did you mean": on the street recognised, the houses whose numbers are nearest the one typed. Only in a
   * named city or ZIP: a street across a state or the country is better served by the text search.
   */
  #nearest(streets: StreetCandidate[], parsed: ParsedAddress): Row[] {
    const house = Number.parseInt(parsed.house ?? '', 10);
    if (!Number.isFinite(house)) return [];
    const near = streets.flatMap((c) =>
      c.scope.zips ? this.#nearestOnStreet.all(c.street.key, JSON.stringify(c.scope.zips), house) : [],
    );
    const distance = (r: Row) => Math.abs(Number.parseInt(r.street_number, 10) - house);
    return near.sort((a, b) => distance(a) - distance(b) || byPlace(a, b)).slice(0, SUGGESTIONS);
  }

  /** "Did you mean": the closest addresses that share the most of what was typed, dropping words from the front. */
  #suggest(address: string): Row[] {
    const words = tokenize(address).filter((t) => t !== ',');
    for (let from = 0; from < words.length - 1; from++) {
      const found = this.#ranked(searchWords(words.slice(from).join(' '))).slice(0, SUGGESTIONS);
      if (found.length > 0) return found;
    }
    return [];
  }

  search(query: string, limit: number, offset: number): SearchResult {
    const key = query.trim().toUpperCase().replace(/\s+/g, ' ');
    let rids = this.#lists.get(key);
    if (rids === undefined) {
      const list = this.#list(query);
      rids = list.rids;
      if (list.sorted) this.#lists.set(key, rids);
    }
    const page = rids.slice(offset, offset + limit).map((rid) => ({ rid }));
    return { items: this.#full(page).map(strip), more: rids.length > offset + limit };
  }

  /**
   * The whole ordered list a search query stands for, as rids. `sorted`: a list worth keeping for the next
   * page (a ZIP's, a street's or an ambiguous address's, sorted from thousands of rows); typeahead text is
   * ranked afresh each time.
   */
  #list(query: string): { rids: number[]; sorted: boolean } {
    const r = this.#resolve(query);
    const parsed = parseAddress(query);
    const sorted = (rows: Row[]) => ({ rids: rows.map((x) => x.rid), sorted: true });
    const text = query.trim();
    // An id, a parcel, a ZIP code: exactly what resolve finds (a ZIP's properties, by street and number).
    if (PROPERTY_ID.test(text) || PARCEL_PATTERN.test(text) || ZIP_ONLY.test(text)) {
      return sorted(r.kind === 'found' ? [r.row] : r.kind === 'ambiguous' ? r.rows : []);
    }
    // The same candidates, in the same order, as the 409 that resolve answers: "Show more" pages through them.
    if (r.kind === 'ambiguous') return sorted(r.rows);
    if (r.kind === 'unit_not_found') return sorted([r.building, ...r.units]);
    // A street with its city and state, or its ZIP: every property on it (an area to walk).
    if (r.kind !== 'found' && !parsed.house && (parsed.zip || parsed.state)) {
      const area = this.#area(parsed);
      if (area.length > 0) return sorted(area);
    }
    // A building with units of its own: the building, then its units (what "show its units" lists).
    if (r.kind === 'found' && r.row.unit_key === '') {
      const { street_key, street_number, zip } = r.row;
      const units = this.#byAddressInZip.all(street_key, street_number, zip);
      if (units.length > 1) return sorted(units.sort(byPlace));
    }
    const ranked = this.#ranked(searchWords(query)).map((x) => x.rid);
    // Found: that record first (it may carry a typo no prefix matches), then what the words still match,
    // since the person may still be typing.
    if (r.kind === 'found')
      return { rids: [r.row.rid, ...ranked.filter((rid) => rid !== r.row.rid)], sorted: false };
    return { rids: ranked, sorted: false };
  }

  /** Every property on the street named, in the place named, by number and unit. */
  #area(parsed: ParsedAddress): Row[] {
    const streets = this.#streets(parsed, false)?.filter((c) => c.scope.zips || c.scope.state);
    if (!streets || streets.length === 0) return [];
    // A state alone is too wide for an area unless a city was named with it.
    if (!parsed.zip && !streets.every((c) => c.scope.zips)) return [];
    const rows = new Map<number, Row>();
    for (const c of streets) for (const r of this.#rowsOnStreet(c.street.key, c.scope)) rows.set(r.rid, r);
    return [...rows.values()].sort(byPlace);
  }

  /** FTS candidates for the words, best first. */
  #ranked(words: string[]): Row[] {
    if (words.length === 0) return [];
    return this.#search
      .all(ftsQuery(words))
      .map((row) => ({ row, score: searchScore(words, row) }))
      .sort((a, b) => b.score - a.score || a.row.rid - b.row.rid)
      .map(({ row }) => row);
  }
}

function candidate(r: FullRow): UpstreamCandidate {
  return { property_id: r.property_id, address: r.address, confidence: r.confidence };
}

function strip(r: FullRow): UpstreamProperty {
  const { rid: _r, street_key: _s, city_key: _c, unit_key: _u, ...property } = r;
  return property;
}
