import { zipCell } from '../../../../contract/index.ts';

/** A table as read from a file or a paste: its non-blank records (the header, if any, first). */
export interface CsvTable {
  records: string[][];
  /**
   * Each record's row as a spreadsheet numbers it, 1-based: the file's records counted from the first, the header
   * and blank records included (a cell with a line break inside quotes is still one row, as in Excel); an XLSX
   * sheet's own row numbers; a paste's line numbers.
   */
  rowNumbers: number[];
  /** Records with nothing but blank cells. */
  blankLines: number;
  /** ',' ';' or '\t' (or another delimiter papaparse found); '' for a workbook's sheet. */
  delimiter: string;
  /** Most cells in any record. */
  columns: number;
}

/**
 * Which cells make the address: one column, or street / city / state / ZIP columns joined; and the parcel
 * number column, looked up when a row has no address.
 */
export type ColumnChoice = (
  | { kind: 'single'; column: number }
  | {
      kind: 'parts';
      street: number;
      /** A house-number column of a split layout ("Situs No" beside "Situs Street"), joined before the street. */
      number?: number | null;
      city: number | null;
      state: number | null;
      zip: number | null;
      /** A unit / secondary column (apartment, suite), joined to the street. */
      unit?: number | null;
    }
) & { parcel?: number | null };

export type PartsChoice = Extract<ColumnChoice, { kind: 'parts' }>;

/**
 * A header cell folded for matching: accents dropped (NFKD, so "Dirección" is "direccion"), ß as ss, "#" as
 * "no", anything else not a letter or digit a space.
 */
export const foldHeader = (cell: string) =>
  cell
    .normalize('NFKD')
    .replace(/\p{M}/gu, '')
    .replace(/ß/g, 'ss')
    .toLowerCase()
    .replace(/#/g, ' no ')
    .replace(/[^a-z0-9]+/g, ' ')
    .trim();

type Role = 'address' | 'street' | 'number' | 'city' | 'state' | 'zip' | 'unit' | 'parcel' | 'other';

const set = (...names: string[]) => new Set(names);
/** Header names by role, folded, in English, German, Spanish and French (and what assessors' exports use). */
const ROLES: [Role, Set<string>][] = [
  [
    'address',
    set('address', 'addr', 'full address', 'location', 'adresse', 'direccion', 'domicilio', 'anschrift'),
  ],
  [
    'street',
    set(
      'street',
      'street address',
      'address line 1',
      'address 1',
      'addr1',
      'addr 1',
      'street 1',
      'street1',
      'street name',
      'line 1',
      'strasse',
      'str',
      'strassenname',
      'calle',
      'via',
      'rue',
      'voie',
    ),
  ],
  [
    'number',
    set(
      'no',
      'nr',
      'num',
      'number',
      'house number',
      'house no',
      'house num',
      'house nbr',
      'street number',
      'street no',
      'street num',
      'st no',
      'hausnr',
      'hausnummer',
      'haus nr',
      'hnr',
      'numero',
      'num ext',
      'numero exterior',
      'no de rue',
      'numero de rue',
    ),
  ],
  [
    'city',
    set(
      'city',
      'town',
      'municipality',
      'locality',
      'ort',
      'stadt',
      'gemeinde',
      'wohnort',
      'ciudad',
      'municipio',
      'localidad',
      'poblacion',
      'ville',
      'commune',
      'localite',
    ),
  ],
  ['state', set('state', 'st', 'province', 'region', 'bundesland', 'estado', 'provincia', 'etat', 'prov')],
  [
    'zip',
    set(
      'zip',
      'zip code',
      'zipcode',
      'zip5',
      'zip 5',
      'postal code',
      'postcode',
      'post code',
      'plz',
      'postleitzahl',
      'cp',
      'c p',
      'codigo postal',
      'code postal',
    ),
  ],
  [
    'unit',
    set(
      'unit',
      'unit no',
      'unit number',
      'apt',
      'apt no',
      'apartment',
      'suite',
      'ste',
      'address line 2',
      'address 2',
      'addr2',
      'street 2',
      'secondary',
      'whg',
      'whg nr',
      'wohnung',
      'wohnungsnr',
      'wohnungsnummer',
      'piso',
      'depto',
      'departamento',
      'apartamento',
      'appartement',
      'appt',
    ),
  ],
  [
    'parcel',
    set(
      'apn',
      'ain',
      'parcel',
      'parcel number',
      'parcel no',
      'parcel id',
      'parcel num',
      'parcelid',
      'parcel apn',
      'assessor parcel number',
      'pin',
      'pid',
      'folio',
      'folio number',
      'map lot',
      'flurstuck',
      'flurstucksnummer',
      'flurstuck nr',
      'referencia catastral',
      'parcelle',
    ),
  ],
  ['other', set('name', 'id', 'owner', 'note', 'notes', 'kind', 'type', 'county', 'country', 'land', 'pais')],
];

/** Words before a column's name that say which address it is: the property's, or a mailing one (not it). */
const PROPERTY_WORDS = set('situs', 'property', 'prop', 'site', 'physical', 'premises', 'location');
const MAILING_WORDS = set('mailing', 'mail', 'owner', 'owners', 'billing', 'correspondence', 'tax');

interface HeaderCell {
  role: Role | null;
  /** Named as a mailing / owner address: never the property's. */
  mailing: boolean;
  /** Named as the property's ("Situs …", "Property …"). */
  property: boolean;
}

/** Names a data cell may hold too ("No" in a yes/no column): not enough alone to call a row a header. */
const WEAK_NAMES = set('no', 'nr', 'num', 'number', 'n');
const isWeak = (cell: string) => WEAK_NAMES.has(foldHeader(cell));

/** What a header cell names: "Situs City" is the property's city; "Mailing Address" is not the property's. */
export function classifyHeader(cell: string): HeaderCell {
  const words = foldHeader(cell).split(' ');
  let mailing = false;
  let property = false;
  while (words.length > 1 && (PROPERTY_WORDS.has(words[0] ?? '') || MAILING_WORDS.has(words[0] ?? ''))) {
    const word = words.shift() ?? '';
    if (MAILING_WORDS.has(word)) mailing = true;
    else property = true;
  }
  const name = words.join(' ');
  const role = ROLES.find(([, names]) => names.has(name))?.[0] ?? null;
  return { role, mailing, property };
}

/**
 * Whether the first record is a header: a cell named like a known column, or no digit anywhere in it while
 * most of the records after it carry some (addresses have house numbers; header names do not).
 */
export function detectHeader(records: readonly string[][]): boolean {
  const first = records[0];
  if (!first) return false;
  if (first.some((cell) => classifyHeader(cell).role !== null && !isWeak(cell))) return true;
  if (first.some((cell) => /\d/.test(cell))) return false;
  const sample = records.slice(1, 21);
  if (sample.length === 0) return false;
  return sample.filter((r) => r.some((cell) => /\d/.test(cell))).length * 2 >= sample.length;
}

const HOUSE_NUMBER = /^\s*\d+[a-z]?\s+\S/i;
const STARTS_WITH_DIGIT = /^\s*\d/;
const US_STATE_CODE =
  /^(?:A[KLRZS]|C[AOT]|D[CE]|FL|G[AU]|HI|I[ADLN]|K[SY]|LA|M[ADEINOPST]|N[CDEHJMVY]|O[HKR]|P[AR]|RI|S[CD]|T[NX]|UT|V[AIT]|W[AIVY])$/i;

/** The choice, and whether it came from the header's names (sure) or only from the cells' values (a guess). */
export interface ColumnGuess {
  choice: ColumnChoice;
  byHeader: boolean;
}

/**
 * The columns most likely to hold the property's address: by header name (street / house number / city / state /
 * ZIP columns joined when there is no whole-address column beside them; a mailing address never over the
 * property's), else the column whose cells most often start with a house number.
 */
export function guessMapping(records: readonly string[][], hasHeader: boolean): ColumnGuess {
  const header = (hasHeader ? (records[0] ?? []) : []).map(classifyHeader);
  const body = records.slice(hasHeader ? 1 : 0, 200);
  const share = (column: number, test: RegExp) => {
    const cells = body.map((r) => r[column] ?? '').filter((c) => c.trim() !== '');
    return cells.length === 0 ? 0 : cells.filter((c) => test.test(c)).length / cells.length;
  };
  // The property's column for a role: a "Situs …" one first, then an unqualified one, never a mailing one.
  const pick = (role: Role) => {
    const own = header.findIndex((h) => h.role === role && h.property);
    const plain = header.findIndex((h) => h.role === role && !h.mailing);
    const found = own !== -1 ? own : plain;
    return found === -1 ? null : found;
  };
  const whole = pick('address');
  const street = pick('street');
  const parcel = pick('parcel');
  const city = pick('city');
  const state = pick('state');
  const zip = pick('zip');
  const unit = pick('unit');
  const streetColumn = street ?? whole;
  if (streetColumn !== null) {
    // A house-number column beside a street column that holds no numbers itself ("Straße;Hausnr."), or one
    // named the property's ("Situs No"); a bare "No." elsewhere is a row counter or a record's id.
    const beside = header.findIndex(
      (h, i) => h.role === 'number' && !h.mailing && Math.abs(i - streetColumn) === 1,
    );
    const named = header.findIndex((h) => h.role === 'number' && h.property);
    const numbered = beside !== -1 ? beside : named;
    const number = numbered !== -1 && share(streetColumn, STARTS_WITH_DIGIT) < 0.5 ? numbered : null;
    const noPlace = city === null && state === null && zip === null;
    if (street === null && noPlace && number === null)
      return { choice: { kind: 'single', column: streetColumn, parcel }, byHeader: true };
    return {
      choice: { kind: 'parts', street: streetColumn, number, city, state, zip, unit, parcel },
      byHeader: true,
    };
  }
  // No address column by name: the column whose cells most often start with a house number, a mailing
  // column only when no other has any.
  const width = Math.max(1, ...body.map((r) => r.length));
  let best = 0;
  let bestScore = -1;
  for (let c = 0; c < width; c++) {
    if (c === parcel) continue;
    const score = body.filter((r) => HOUSE_NUMBER.test(r[c] ?? '')).length * (header[c]?.mailing ? 0.001 : 1);
    if (score > bestScore) {
      best = c;
      bestScore = score;
    }
  }
  // Headers nobody named ("Lage;Gemeinde;Kennz."): ZIP and state columns are known by their values, so a
  // street column is not sent alone when the file has the rest.
  const byValue = (test: (cell: string) => boolean) => {
    for (let c = 0; c < width; c++) {
      if (c === best || c === parcel || header[c]?.mailing) continue;
      const cells = body.map((r) => (r[c] ?? '').trim()).filter((v) => v !== '');
      if (cells.length > 0 && cells.filter(test).length >= cells.length * 0.8) return c;
    }
    return null;
  };
  const zipFound = zip ?? byValue((v) => /^\d{5}(?:-\d{4})?$|^\d{3,4}$/.test(v));
  const stateFound = state ?? byValue((v) => US_STATE_CODE.test(v));
  if (zipFound === null && stateFound === null && city === null)
    return { choice: { kind: 'single', column: best, parcel }, byHeader: false };
  const cityFound = city ?? byValue((v) => /^[\p{L}][\p{L}\s.'-]*$/u.test(v) && !US_STATE_CODE.test(v));
  return {
    choice: {
      kind: 'parts',
      street: best,
      number: null,
      city: cityFound,
      state: stateFound,
      zip: zipFound,
      unit,
      parcel,
    },
    byHeader: false,
  };
}

/** The guessed choice alone (see guessMapping). */
export const guessColumns = (records: readonly string[][], hasHeader: boolean): ColumnChoice =>
  guessMapping(records, hasHeader).choice;

/** A unit cell as the street's secondary part: "4B" → "Unit 4B"; "Apt 4B", "#4B" as they are. */
const unitPart = (cell: string) => (/^(?:#|[A-Za-z]{2,}\.?\s)/.test(cell) ? cell : `Unit ${cell}`);

/** The address a record stands for under `choice`: "12 Main St, city, ST ZIP", parts that are blank left out. */
export function joinAddress(record: readonly string[], choice: ColumnChoice): string {
  const cell = (i: number | null | undefined) => (i == null ? '' : (record[i] ?? '').trim());
  if (choice.kind === 'single') return cell(choice.column);
  const stateZip = [cell(choice.state), zipCell(cell(choice.zip))].filter((s) => s !== '').join(' ');
  const unit = cell(choice.unit);
  const street = [cell(choice.number), cell(choice.street), unit ? unitPart(unit) : '']
    .filter((s) => s !== '')
    .join(' ');
  return [street, cell(choice.city), stateZip].filter((s) => s !== '').join(', ');
}

/** A record's parcel number under `choice`, when a parcel column is mapped and the cell is filled. */
export function parcelOf(record: readonly string[], choice: ColumnChoice): string | undefined {
  const cell = choice.parcel == null ? '' : (record[choice.parcel] ?? '').trim();
  return cell === '' ? undefined : cell;
}

/**
 * Whether addresses say where they are: a ZIP, a state or a town after a comma. Most of a sample without that
 * is a street-only list ("12 Main St"), which matches in many towns.
 */
export function lacksPlace(addresses: readonly string[]): boolean {
  const filled = addresses.filter((a) => a !== '').slice(0, 20);
  if (filled.length === 0) return false;
  const placed = filled.filter(
    (a) => /\b\d{5}(?:-\d{4})?\b/.test(a) || /,\s*\S/.test(a) || /\b[A-Z]{2}\s*$/.test(a),
  );
  return placed.length * 2 < filled.length;
}

/**
 * Choices worth showing beside the one made when it is unsure: each column whose cells look like addresses (a
 * house number, or letters and digits), on its own, and as the street of the chosen place columns when there
 * are some. The one made is not among them.
 */
export function plausibleChoices(
  records: readonly string[][],
  hasHeader: boolean,
  current: ColumnChoice,
): ColumnChoice[] {
  const body = records.slice(hasHeader ? 1 : 0, 200);
  const width = Math.max(0, ...body.map((r) => r.length));
  const parcel = current.parcel ?? null;
  const withPlace =
    current.kind === 'parts' && (current.city !== null || current.state !== null || current.zip !== null);
  const found: ColumnChoice[] = [];
  for (let c = 0; c < width; c++) {
    if (c === parcel) continue;
    const cells = body.map((r) => (r[c] ?? '').trim()).filter((v) => v !== '');
    const addressLike = cells.filter((v) => HOUSE_NUMBER.test(v) || (/\d/.test(v) && /\p{L}{3}/u.test(v)));
    if (cells.length === 0 || addressLike.length * 3 < cells.length) continue;
    if (withPlace) found.push({ ...current, street: c, number: null });
    found.push({ kind: 'single', column: c, parcel });
  }
  const same = JSON.stringify(current);
  return found.filter((choice) => JSON.stringify(choice) !== same);
}
