import type Database from 'better-sqlite3';
import { createRng, type Rng } from '../dataset/prng.ts';
import { nameTokens } from '../resolver/normalize.ts';
import {
  bestStreetScore,
  knownStreet,
  type NameForm,
  nameForm,
  rank,
  type StreetForm,
  scoreName,
  typedStreets,
} from '../resolver/street-score.ts';
import { isDirectional, STATES, SUFFIX_ABBR } from '../resolver/usps.ts';
import type { PropertyStore } from '../store.ts';

/**
 * What people actually type, generated from the dataset: each case takes a real record and writes its
 * address the way a person might, with one kind of mistake, and says which answer is right. Deterministic
 * from the seed, so `npm run bench` and the unit test measure the same inputs every run.
 */

export const MISTAKE_KINDS = [
  /** Any case, stray punctuation and spacing, the state spelt out. */
  'case-punctuation',
  /** One typo in the street's name: a letter replaced, dropped, added, or two swapped. */
  'typo-street',
  /** One typo in the city, with its state and no ZIP. */
  'typo-city',
  /** The ZIP right and the city misspelt (one or two typos): the ZIP should win. */
  'zip-city-typo',
  /** Two typos: one in the street and one in the city, or two in a long street name. */
  'two-typos',
  /** The street without its suffix: "100 Main, Houston, TX". */
  'no-suffix',
  /** Another suffix than the street's: "River St" for River Rd. */
  'wrong-suffix',
  /** The suffix in another USPS spelling: "Avenue", "Av", "Aven". */
  'suffix-spelling',
  /** A directional spelt out, moved to the other end, or left out. */
  'directional',
  /** A unit written as "Apt 4", "#4", "Unit 4", "Ste 4", anywhere after the street. */
  'unit-form',
  /** City and state, no ZIP. */
  'missing-zip',
  /** The ZIP alone, no city or state. */
  'zip-only',
  /** A house number that the street does not have (often next to one it has): must never find a neighbour. */
  'no-such-house',
] as const;
export type MistakeKind = (typeof MISTAKE_KINDS)[number];

export type Expectation =
  | { kind: 'found'; id: string }
  /** The input fits these records equally well: the candidates, or any one of them found, is right. */
  | { kind: 'ambiguous'; ids: string[] }
  | { kind: 'not_found' };

export interface MessyCase {
  kind: MistakeKind;
  input: string;
  /** The record the input was written from. */
  truth: string;
  expect: Expectation;
}

export interface GenerateOptions {
  /** Cases of each kind (fewer where the dataset has too few fitting records). */
  perKind: number;
  seed: number;
}

interface Record {
  rid: number;
  property_id: string;
  street_number: string;
  street_name: string;
  unit: string | null;
  city: string;
  state: string;
  zip: string;
  street_key: string;
  unit_key: string;
}

/** The parts of an address as typed, before they are written out as one line. */
interface Typed {
  house: string;
  street: string;
  unit: string | null;
  city: string | null;
  state: string | null;
  zip: string | null;
}

const LETTERS = 'abcdefghijklmnopqrstuvwxyz';
const COMMON_SUFFIXES = [
  'St',
  'Ave',
  'Dr',
  'Rd',
  'Ln',
  'Ct',
  'Way',
  'Pl',
  'Blvd',
  'Cir',
  'Ter',
  'Trl',
  'Pkwy',
];
const DIRECTION_WORDS: { [d: string]: string } = {
  N: 'North',
  S: 'South',
  E: 'East',
  W: 'West',
  NE: 'Northeast',
  NW: 'Northwest',
  SE: 'Southeast',
  SW: 'Southwest',
};

/** Every accepted spelling of each standard suffix: AVE -> AV, AVEN, AVENU, AVENUE, AVN, AVNUE. */
const SUFFIX_SPELLINGS = new Map<string, string[]>();
for (const [spelling, std] of SUFFIX_ABBR) {
  if (spelling !== std) (SUFFIX_SPELLINGS.get(std) ?? SUFFIX_SPELLINGS.set(std, []).get(std))?.push(spelling);
}

function titleCase(s: string): string {
  return s.toLowerCase().replace(/\b([a-z])/g, (m) => m.toUpperCase());
}

/** One typo in a word: a letter replaced, dropped, added, or two neighbours swapped. */
export function typo(word: string, rng: Rng): string {
  const upper = word === word.toUpperCase();
  const letter = () => {
    const c = rng.pick([...LETTERS]);
    return upper ? c.toUpperCase() : c;
  };
  for (let attempt = 0; attempt < 20; attempt++) {
    const at = rng.int(0, word.length - 1);
    const op = rng.pick(['substitute', 'delete', 'insert', 'transpose'] as const);
    let out = word;
    if (op === 'substitute') out = word.slice(0, at) + letter() + word.slice(at + 1);
    else if (op === 'delete' && word.length > 2) out = word.slice(0, at) + word.slice(at + 1);
    else if (op === 'insert') out = word.slice(0, at) + letter() + word.slice(at);
    else if (op === 'transpose' && at < word.length - 1)
      out = word.slice(0, at) + (word[at + 1] as string) + (word[at] as string) + word.slice(at + 2);
    // A typo must change the word (swapping two equal letters does not), keep its first letter's case, and
    // stay a word.
    if (out.toUpperCase() !== word.toUpperCase() && out.length > 1) return out;
  }
  return `${word}${letter()}`;
}

/** Typo-able words: letters only, three or more. */
function wordsToMistype(words: string[], skip: (w: string, i: number) => boolean): number[] {
  return words.flatMap((w, i) => (/^[A-Za-z]{3,}$/.test(w) && !skip(w, i) ? [i] : []));
}

/** The street's words that are its name: not its suffix (the last word) nor a directional. */
function nameWordIndexes(street: string): number[] {
  const words = street.split(' ');
  return wordsToMistype(words, (w, i) => i === words.length - 1 || isDirectional(w.toUpperCase()));
}

function mistypeWord(text: string, indexes: number[], rng: Rng, times = 1): string {
  const words = text.split(' ');
  const i = rng.pick(indexes);
  let w = words[i] as string;
  for (let t = 0; t < times; t++) w = typo(w, rng);
  words[i] = w;
  return words.join(' ');
}

/** The place as a person names it: city and state, the ZIP, or all three. */
function somePlace(r: Record, rng: Rng): Pick<Typed, 'city' | 'state' | 'zip'> {
  return rng.weighted([
    [{ city: r.city, state: r.state, zip: null }, 45],
    [{ city: null, state: null, zip: r.zip }, 20],
    [{ city: r.city, state: r.state, zip: r.zip }, 35],
  ] as const);
}

/** One line, written as people do: with or without commas, the state as code or name, any case. */
function render(t: Typed, rng: Rng, messy = false): string {
  const commas = rng.chance(0.7);
  const state = t.state && (rng.chance(messy ? 0.4 : 0.15) ? titleCase(STATES[t.state] ?? t.state) : t.state);
  let line = `${t.house} ${t.street}`;
  const unit = t.unit;
  const unitAtEnd = unit !== null && rng.chance(0.15);
  if (unit && !unitAtEnd) line += `${commas && rng.chance(0.3) ? ',' : ''} ${unit}`;
  if (t.city) line += `${commas ? ',' : ''} ${t.city}`;
  if (state) line += `${commas && t.city ? ',' : ''} ${state}`;
  if (t.zip) line += ` ${t.zip}`;
  if (unit && unitAtEnd) line += ` ${unit}`;
  if (messy) {
    // Stray full stops, doubled spaces, a trailing comma, padding.
    line = line.replace(/\b(St|Ave|Dr|Rd|Ln|Ct|Blvd|Pl|N|S|E|W)\b/g, (m) => (rng.chance(0.5) ? `${m}.` : m));
    line = line.replace(/ /g, () => (rng.chance(0.15) ? '  ' : ' '));
    if (rng.chance(0.2)) line += ',';
    if (rng.chance(0.2)) line = `  ${line} `;
  }
  const casing = rng.weighted([
    ['as-is', messy ? 30 : 70],
    ['lower', messy ? 35 : 15],
    ['upper', messy ? 35 : 15],
  ] as const);
  return casing === 'lower' ? line.toLowerCase() : casing === 'upper' ? line.toUpperCase() : line;
}

function unitText(unit: string, rng: Rng): string {
  return rng.pick([
    `Apt ${unit}`,
    `#${unit}`,
    `# ${unit}`,
    `Unit ${unit}`,
    `Apt. ${unit}`,
    `Ste ${unit}`,
    `Suite ${unit}`,
  ]);
}

/** A streets-and-places table in memory, for the oracle. */
interface PlaceRow {
  zip: string;
  key: string;
  form: StreetForm;
}

interface CityRows {
  form: NameForm;
  rows: PlaceRow[];
}

/**
 * Decides, by brute force over every street of the place named, which answer is right: the records at the
 * house number on the streets that fit the input best. When a mistake makes the input fit another street
 * better than the record it came from, no answer is clearly right and the case is left out.
 */
class Oracle {
  readonly #byZip = new Map<string, { city: NameForm; rows: PlaceRow[] }>();
  readonly #byState = new Map<string, Map<string, CityRows>>();
  readonly #at: Database.Statement<[string, string, string, string], { property_id: string }>;

  constructor(db: Database.Database) {
    const forms = new Map<string, StreetForm>();
    const cityForms = new Map<string, NameForm>();
    const rows = db.prepare('SELECT zip, street_key, city_key, state FROM street').raw().all() as [
      string,
      string,
      string,
      string,
    ][];
    for (const [zip, key, cityKey, state] of rows) {
      let form = forms.get(key);
      if (!form) {
        form = knownStreet(key);
        forms.set(key, form);
      }
      let cityForm = cityForms.get(cityKey);
      if (!cityForm) {
        cityForm = nameForm(cityKey.split(' '));
        cityForms.set(cityKey, cityForm);
      }
      const row = { zip, key, form };
      const z = this.#byZip.get(zip) ?? this.#byZip.set(zip, { city: cityForm, rows: [] }).get(zip);
      z?.rows.push(row);
      const cities = this.#byState.get(state) ?? this.#byState.set(state, new Map()).get(state);
      const c = cities?.get(cityKey) ?? cities?.set(cityKey, { form: cityForm, rows: [] }).get(cityKey);
      c?.rows.push(row);
    }
    this.#at = db.prepare(
      'SELECT property_id FROM property WHERE zip = ? AND street_key = ? AND street_number = ? AND unit_key = ?',
    );
  }

  expect(t: Typed, truth: Record): Expectation | null {
    const street = nameTokens(t.street);
    const readings = typedStreets(street.std, street.raw);
    const typedCity = t.city ? nameTokens(t.city) : null;
    const city = typedCity ? nameForm(typedCity.std, typedCity.raw) : null;
    const pool: { row: PlaceRow; placeMistakes: number }[] = [];
    if (t.zip) {
      const z = this.#byZip.get(t.zip);
      const cityMistakes = z && city ? scoreName(city, z.city, 1) : 0;
      if (!z || cityMistakes === null) return null;
      for (const row of z.rows) pool.push({ row, placeMistakes: cityMistakes });
    } else if (city && t.state) {
      for (const c of this.#byState.get(t.state)?.values() ?? []) {
        const cityMistakes = scoreName(city, c.form);
        if (cityMistakes !== null) for (const row of c.rows) pool.push({ row, placeMistakes: cityMistakes });
      }
    } else return null;
    const scored = pool.flatMap(({ row, placeMistakes }) => {
      const s = bestStreetScore(readings, row.form);
      return s ? [{ row, rank: rank({ mistakes: s.mistakes + placeMistakes, missing: s.missing }) }] : [];
    });
    const unit = t.unit === null ? '' : truth.unit_key;
    const idsAt = (rows: PlaceRow[]) => [
      ...new Set(rows.flatMap((r) => this.#at.all(r.zip, r.key, t.house, unit).map((x) => x.property_id))),
    ];
    const isTruth = (r: PlaceRow) => r.zip === truth.zip && r.key === truth.street_key;
    let tier: PlaceRow[];
    if (scored.some((s) => isTruth(s.row))) {
      const best = Math.min(...scored.map((s) => s.rank));
      tier = scored.filter((s) => s.rank - best < 1e-9).map((s) => s.row);
      // Another street fits the input better than the record's own: no answer is clearly right.
      if (!tier.some(isTruth)) return null;
    } else {
      // Too far from the record's street for the resolver's allowance: a person still expects the record,
      // unless another street fits within it.
      if (scored.length > 0) return null;
      const own = pool.find((p) => isTruth(p.row));
      if (!own) return null;
      tier = [own.row];
    }
    const ids = idsAt(tier);
    if (ids.length === 0) return { kind: 'not_found' };
    if (ids.length === 1) return { kind: 'found', id: ids[0] as string };
    return { kind: 'ambiguous', ids };
  }
}

export interface MessySet {
  cases: MessyCase[];
  /**
   * Inputs generated but left out, by kind: the mistake made the input fit another street better than the
   * record it was written from (e.g. a typo that spells another street of the town), so no answer is right.
   */
  leftOut: { [K in MistakeKind]: number };
}

/** The messy-input set: `perKind` cases of each kind, from records drawn with the seed. */
export function messyCases(db: Database.Database, { perKind, seed }: GenerateOptions): MessySet {
  const rng = createRng(seed);
  const oracle = new Oracle(db);
  const maxRid = (db.prepare('SELECT max(rid) AS n FROM property').get() as { n: number }).n;
  const byRid = db.prepare<[number], Record>(
    `SELECT rid, property_id, street_number, street_name, unit, city, state, zip, street_key, unit_key
     FROM property WHERE rid = ?`,
  );
  const housesOn = db
    .prepare<[string, string], string>('SELECT street_number FROM property WHERE zip = ? AND street_key = ?')
    .pluck();
  const directional = db
    .prepare<[], { zip: string; street_key: string }>(
      `SELECT zip, street_key FROM street
       WHERE street_key GLOB '[NSEW] *' OR street_key GLOB '[NS][EW] *' OR street_key GLOB '* [NSEW]'
          OR street_key GLOB '* [NS][EW]'`,
    )
    .all();
  const onStreet = db.prepare<[string, string], Record>(
    `SELECT rid, property_id, street_number, street_name, unit, city, state, zip, street_key, unit_key
     FROM property WHERE zip = ? AND street_key = ? AND unit_key = '' ORDER BY rid LIMIT 1`,
  );

  const draw = (units: boolean): Record => {
    for (;;) {
      const r = byRid.get(rng.int(1, maxRid));
      if (r && (r.unit_key !== '') === units) return r;
    }
  };

  /** One case of a kind from one record, or null when the record does not lend itself to it. */
  const make = (kind: MistakeKind): { typed: Typed; truth: Record; messy?: boolean } | null => {
    const r = kind === 'unit-form' ? draw(true) : draw(false);
    const base: Typed = { house: r.street_number, street: r.street_name, unit: null, ...somePlace(r, rng) };
    const names = nameWordIndexes(r.street_name);
    const words = r.street_name.split(' ');
    const suffix = (words[words.length - 1] as string).toUpperCase();
    const withoutSuffix = words.slice(0, -1).join(' ');
    switch (kind) {
      case 'case-punctuation':
        return { typed: base, truth: r, messy: true };
      case 'typo-street':
        return names.length === 0
          ? null
          : { typed: { ...base, street: mistypeWord(r.street_name, names, rng) }, truth: r };
      case 'typo-city': {
        const cityWords = wordsToMistype(r.city.split(' '), () => false);
        if (cityWords.length === 0) return null;
        return {
          typed: { ...base, city: mistypeWord(r.city, cityWords, rng), state: r.state, zip: null },
          truth: r,
        };
      }
      case 'zip-city-typo': {
        const cityWords = wordsToMistype(r.city.split(' '), () => false);
        if (cityWords.length === 0) return null;
        const city = mistypeWord(r.city, cityWords, rng, rng.int(1, 2));
        return { typed: { ...base, city, state: r.state, zip: r.zip }, truth: r };
      }
      case 'two-typos': {
        const long = names.filter((i) => (words[i] as string).length >= 8);
        if (long.length > 0 && rng.chance(0.5)) {
          return { typed: { ...base, street: mistypeWord(r.street_name, long, rng, 2) }, truth: r };
        }
        const cityWords = wordsToMistype(r.city.split(' '), () => false);
        if (names.length === 0 || cityWords.length === 0) return null;
        return {
          typed: {
            ...base,
            street: mistypeWord(r.street_name, names, rng),
            city: mistypeWord(r.city, cityWords, rng),
            state: r.state,
            zip: null,
          },
          truth: r,
        };
      }
      case 'no-suffix':
        return { typed: { ...base, street: withoutSuffix }, truth: r };
      case 'wrong-suffix': {
        const other = rng.pick(COMMON_SUFFIXES.filter((s) => s.toUpperCase() !== suffix));
        return { typed: { ...base, street: `${withoutSuffix} ${other}` }, truth: r };
      }
      case 'suffix-spelling': {
        const spellings = SUFFIX_SPELLINGS.get(suffix) ?? [];
        if (spellings.length === 0) return null;
        return { typed: { ...base, street: `${withoutSuffix} ${titleCase(rng.pick(spellings))}` }, truth: r };
      }
      case 'directional': {
        const street = rng.pick(directional);
        const d = street && onStreet.get(street.zip, street.street_key);
        if (!d) return null;
        const w = d.street_name.split(' ');
        // "West Rd" is named West: only a directional in front of or after a name can be moved or left out.
        if (w.length < 3) return null;
        const at = isDirectional((w[0] as string).toUpperCase()) ? 0 : w.length - 1;
        const dir = w[at] as string;
        const rest = w.filter((_, i) => i !== at);
        const street2 = rng.weighted([
          [w.map((x, i) => (i === at ? (DIRECTION_WORDS[dir.toUpperCase()] ?? x) : x)).join(' '), 40],
          [at === 0 ? `${rest.join(' ')} ${dir}` : `${dir} ${rest.join(' ')}`, 30],
          [rest.join(' '), 30],
        ] as const);
        return {
          typed: { house: d.street_number, street: street2, unit: null, ...somePlace(d, rng) },
          truth: d,
        };
      }
      case 'unit-form':
        return { typed: { ...base, unit: unitText(r.unit as string, rng) }, truth: r };
      case 'missing-zip':
        return { typed: { ...base, city: r.city, state: r.state, zip: null }, truth: r };
      case 'zip-only':
        return { typed: { ...base, city: null, state: null, zip: r.zip }, truth: r };
      case 'no-such-house': {
        const houses = new Set(housesOn.all(r.zip, r.street_key));
        const n = Number.parseInt(r.street_number, 10);
        const options = [n + 1, n - 1, n + 2, n - 2, n + 3, n * 10 + 7, 99_999].filter(
          (x) => x > 0 && !houses.has(String(x)),
        );
        if (options.length === 0) return null;
        return { typed: { ...base, house: String(rng.pick(options.slice(0, 3).concat(options))) }, truth: r };
      }
    }
  };

  const cases: MessyCase[] = [];
  const leftOut = Object.fromEntries(MISTAKE_KINDS.map((k) => [k, 0])) as MessySet['leftOut'];
  for (const kind of MISTAKE_KINDS) {
    let made = 0;
    for (let tries = 0; made < perKind && tries < perKind * 20; tries++) {
      const m = make(kind);
      if (!m) continue;
      const expect = oracle.expect(m.typed, m.truth);
      if (!expect) {
        leftOut[kind]++;
        continue;
      }
      cases.push({ kind, input: render(m.typed, rng, m.messy), truth: m.truth.property_id, expect });
      made++;
    }
  }
  return { cases, leftOut };
}

export interface KindFigures {
  cases: number;
  /** The right record, or (where the input fits several equally) the right candidates. */
  right: number;
  /** Another record than the right one: the failure that matters most. */
  wrong: number;
  /** Cases whose right answer is a list of candidates, not one record. */
  ambiguous: number;
  /** Inputs left out of the set: see MessySet.leftOut. */
  leftOut: number;
}

export interface AccuracyReport {
  cases: number;
  kinds: { [K in MistakeKind]: KindFigures };
  /** Shares from 0 to 1. */
  oneTypo: number;
  twoTypos: number;
  noSuffix: number;
  /** Wrong records among all answers. */
  wrongRate: number;
  /** Records found for house numbers that do not exist (must be 0). */
  neighbours: number;
  /** Resolve time over the whole set, ms. */
  p50Ms: number;
  p95Ms: number;
  /** Inputs answered wrongly, for a person to look at. */
  wrongExamples: { kind: MistakeKind; input: string; got: string }[];
  missedExamples: { kind: MistakeKind; input: string; got: string }[];
}

/** Runs every case through the resolver and counts right answers, wrong records and misses. */
export function measureAccuracy(
  store: Pick<PropertyStore, 'resolve'>,
  { cases, leftOut }: MessySet,
): AccuracyReport {
  const kinds = Object.fromEntries(
    MISTAKE_KINDS.map((k) => [k, { cases: 0, right: 0, wrong: 0, ambiguous: 0, leftOut: leftOut[k] }]),
  ) as AccuracyReport['kinds'];
  const times: number[] = [];
  const wrongExamples: AccuracyReport['wrongExamples'] = [];
  const missedExamples: AccuracyReport['missedExamples'] = [];
  let wrong = 0;
  let neighbours = 0;
  for (const c of cases) {
    const t = performance.now();
    const outcome = store.resolve(c.input);
    times.push(performance.now() - t);
    const k = kinds[c.kind];
    k.cases++;
    if (c.expect.kind === 'ambiguous') k.ambiguous++;
    const acceptable =
      c.expect.kind === 'found' ? [c.expect.id] : c.expect.kind === 'ambiguous' ? c.expect.ids : [];
    let right = false;
    let isWrong = false;
    if (outcome.kind === 'found') {
      right = acceptable.includes(outcome.property.property_id);
      isWrong = !right;
      if (isWrong && c.kind === 'no-such-house') neighbours++;
    } else if (c.expect.kind === 'ambiguous' && outcome.kind === 'ambiguous') {
      const ids = c.expect.ids;
      right = outcome.total === ids.length && outcome.candidates.every((x) => ids.includes(x.property_id));
    } else if (c.expect.kind === 'not_found') {
      right = outcome.kind === 'not_found' || outcome.kind === 'unit_not_found';
    }
    if (right) k.right++;
    if (isWrong) {
      k.wrong++;
      wrong++;
    }
    const got = outcome.kind === 'found' ? outcome.property.address : outcome.kind;
    if (isWrong && wrongExamples.length < 20) wrongExamples.push({ kind: c.kind, input: c.input, got });
    else if (!right && !isWrong && missedExamples.length < 40)
      missedExamples.push({ kind: c.kind, input: c.input, got });
  }
  const share = (...ks: MistakeKind[]) => {
    const n = ks.reduce((s, x) => s + kinds[x].cases, 0);
    return n === 0 ? 0 : ks.reduce((s, x) => s + kinds[x].right, 0) / n;
  };
  times.sort((a, b) => a - b);
  const at = (p: number) => times[Math.min(times.length - 1, Math.floor(p * times.length))] ?? 0;
  return {
    cases: cases.length,
    kinds,
    oneTypo: share('typo-street', 'typo-city'),
    twoTypos: share('two-typos'),
    noSuffix: share('no-suffix'),
    wrongRate: cases.length === 0 ? 0 : wrong / cases.length,
    neighbours,
    p50Ms: at(0.5),
    p95Ms: at(0.95),
    wrongExamples,
    missedExamples,
  };
}
