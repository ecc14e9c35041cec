import { NUMBERLESS_DESIGNATORS, zipCell } from '../../../../contract/index.ts';
import { classifyHeader, type HeaderCell, isWeak, type Role } from './header-names.ts';

export { classifyHeader, foldHeader } from './header-names.ts';

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

/** Records looked at for the header: a title line and a blank line or two may come before it. */
export const HEADER_SEARCH = 8;

/** How many of a record's cells name a column PropLens reads (a street, a city, a parcel number …). */
const namedCells = (record: readonly string[]) =>
  record.filter((cell) => {
    const { role } = classifyHeader(cell);
    return role !== null && role !== 'other' && !isWeak(cell);
  }).length;

/**
 * Which record is the header, or null: among the first few, the one whose cells name the most address columns
 * ("Travis County … export" and a blank line above "APN, …, Situs Street, …" are a title, not the header);
 * without one, the first record when it has no digit anywhere while most of the records after it carry some
 * (addresses have house numbers; header names do not).
 */
export function findHeader(records: readonly string[][]): number | null {
  let best: number | null = null;
  let most = 0;
  records.slice(0, HEADER_SEARCH).forEach((record, i) => {
    const named = namedCells(record);
    // Below the first record, one cell named like a column ("APT" in a unit column) is data, unless it is the
    // record's only cell (a one-column file's "Address" under a title).
    const filled = record.filter((cell) => cell.trim() !== '').length;
    if (i > 0 && named < 2 && named < filled) return;
    if (named > most) {
      best = i;
      most = named;
    }
  });
  if (best !== null) return best;
  const first = records[0];
  if (!first || first.some((cell) => /\d/.test(cell))) return null;
  const sample = records.slice(1, 21);
  if (sample.length === 0) return null;
  return sample.filter((r) => r.some((cell) => /\d/.test(cell))).length * 2 >= sample.length ? 0 : null;
}

/** Whether the first record is the header (see findHeader). */
export const detectHeader = (records: readonly string[][]): boolean => findHeader(records) === 0;

const HOUSE_NUMBER = /^\s*\d+[a-z]?\s+\S/i;
const STARTS_WITH_DIGIT = /^\s*\d/;
const US_STATE_CODE =
  /^(?:A[KLRZS]|C[AOT]|D[CE]|FL|G[AU]|HI|I[ADLN]|K[SY]|LA|M[ADEINOPST]|N[CDEHJMVY]|O[HKR]|P[AR]|RI|S[CD]|T[NX]|UT|V[AIT]|W[AIVY])$/i;

/** The choice, and whether it came from the header's names (sure) or only from the cells' values (a guess). */
export interface ColumnGuess {
  choice: ColumnChoice;
  byHeader: boolean;
}

/** Whether the choice reads a column named as a mailing (owner's) address: not the property's. */
export function readsMailing(header: readonly string[], choice: ColumnChoice): boolean {
  const street = choice.kind === 'single' ? choice.column : choice.street;
  return classifyHeader(header[street] ?? '').mailing;
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
  // The property's column for a role: a "Situs …" one first, then an unqualified one, never a mailing one;
  // when the file names no property address at all, its mailing columns together (the form says so).
  const property = (role: Role) => {
    const own = header.findIndex((h) => h.role === role && h.property);
    return own !== -1 ? own : header.findIndex((h) => h.role === role && !h.mailing);
  };
  const mailingOnly =
    property('address') === -1 &&
    property('street') === -1 &&
    header.some((h) => h.mailing && (h.role === 'address' || h.role === 'street')) &&
    // A column not named as an address whose cells are ("Collateral: 12 Main St") is the property's.
    !header.some((h, c) => !h.mailing && share(c, HOUSE_NUMBER) > 0);
  const pick = (role: Role) => {
    const found = mailingOnly ? header.findIndex((h) => h.role === role && h.mailing) : property(role);
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
      (h, i) => h.role === 'number' && h.mailing === mailingOnly && Math.abs(i - streetColumn) === 1,
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
  return { choice: guessByValues(body, header, { parcel, city, state, zip, unit }), byHeader: false };
}

/**
 * No address column by name: the column whose cells most often start with a house number (a mailing column
 * only when no other has any), joined with the ZIP, state and city columns, by name or else by their values.
 */
function guessByValues(
  body: readonly string[][],
  header: readonly HeaderCell[],
  named: {
    parcel: number | null;
    city: number | null;
    state: number | null;
    zip: number | null;
    unit: number | null;
  },
): ColumnChoice {
  const { parcel, city, state, zip, unit } = named;
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
    return { kind: 'single', column: best, parcel };
  // Letters alone do not make a city (owner names are letters too): a city column sits just before the state
  // or ZIP column, as every layout writes them, and is not named for something else ("Owner", "Name").
  const beforePlace = [stateFound, zipFound].filter((c): c is number => c !== null).map((c) => c - 1);
  const cityFound =
    city ??
    beforePlace.find(
      (c) =>
        c >= 0 &&
        c !== best &&
        c !== parcel &&
        header[c]?.role == null &&
        !header[c]?.mailing &&
        body.some((r) => (r[c] ?? '').trim() !== '') &&
        body.every((r) => /^(?:[\p{L}][\p{L}\s.'-]*)?$/u.test((r[c] ?? '').trim())) &&
        !body.every((r) => US_STATE_CODE.test((r[c] ?? '').trim())),
    ) ??
    null;
  return {
    kind: 'parts',
    street: best,
    number: null,
    city: cityFound,
    state: stateFound,
    zip: zipFound,
    unit,
    parcel,
  };
}

/** The guessed choice alone (see guessMapping). */
export const guessColumns = (records: readonly string[][], hasHeader: boolean): ColumnChoice =>
  guessMapping(records, hasHeader).choice;

/** Designators that take no number (USPS Publication 28, C2): "REAR", "BSMT" are a unit as they stand. */
const isNumberless = (cell: string) =>
  Object.hasOwn(NUMBERLESS_DESIGNATORS, cell.replace(/\.$/, '').toUpperCase());
/** What a unit column holds when a row has none: "0", "-", "N/A", "NONE", "NULL". */
const NO_UNIT = /^(?:0+|-+|\.+|n\/?a|none|null|nil)$/i;

/**
 * A unit cell as the street's secondary part: "4B" → "Unit 4B"; "Apt 4B", "#4B" and numberless designators
 * ("REAR") as they are; a placeholder ("0", "N/A") is no unit.
 */
const unitPart = (cell: string) => {
  if (cell === '' || NO_UNIT.test(cell)) return '';
  return isNumberless(cell) || /^(?:#|[A-Za-z]{2,}\.?\s)/.test(cell) ? cell : `Unit ${cell}`;
};

/**
 * A cell's text for an address: a line break inside it (Excel's Alt+Enter: "580 Morales Rd⏎New York") joins
 * its lines with ", ", as the address would be written on one line; tabs and other spacing are spaces.
 */
const addressText = (cell: string) =>
  cell
    .replace(/\s*,?\s*(?:\r\n|\r|\n|\u2028|\u2029)+\s*/g, ', ')
    .replace(/[\t\v\f]+/g, ' ')
    .trim()
    .replace(/^,\s*|,$/g, '')
    .trim();

/** A house number that is none: 0 is what assessor exports put on a vacant lot. */
const NO_NUMBER = /^0+$/;

/** The address a record stands for under `choice`: "12 Main St, city, ST ZIP", parts that are blank left out. */
export function joinAddress(record: readonly string[], choice: ColumnChoice): string {
  const cell = (i: number | null | undefined) => (i == null ? '' : addressText(record[i] ?? ''));
  if (choice.kind === 'single') return cell(choice.column);
  const stateZip = [cell(choice.state), zipCell(cell(choice.zip))].filter((s) => s !== '').join(' ');
  const number = cell(choice.number);
  const street = [NO_NUMBER.test(number) ? '' : number, cell(choice.street), unitPart(cell(choice.unit))]
    .filter((s) => s !== '')
    .join(' ');
  return [street, cell(choice.city), stateZip].filter((s) => s !== '').join(', ');
}

/**
 * Why a record has no street to look up under `choice`, or null when it has one: `blank`, the street cell is
 * empty (a city and ZIP alone name a place, not a property: nothing to look up); `vacant`, its house number is
 * 0, as assessor exports write a vacant lot (looked up by its parcel number when it has one).
 */
export function missingStreet(record: readonly string[], choice: ColumnChoice): 'blank' | 'vacant' | null {
  const street = addressText(record[choice.kind === 'single' ? choice.column : choice.street] ?? '');
  if (street === '') return 'blank';
  if (/^0+\s/.test(street)) return 'vacant';
  const number = choice.kind === 'parts' && choice.number != null ? record[choice.number] : undefined;
  return number !== undefined && NO_NUMBER.test(number.trim()) ? 'vacant' : null;
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
  const header = hasHeader ? (records[0] ?? []) : [];
  const found: ColumnChoice[] = [];
  for (let c = 0; c < width; c++) {
    // A column named for something else ("Owner", "Name", "ID") is not offered, whatever its cells hold.
    if (c === parcel || classifyHeader(header[c] ?? '').role === 'other') continue;
    const cells = body.map((r) => (r[c] ?? '').trim()).filter((v) => v !== '');
    const addressLike = cells.filter((v) => HOUSE_NUMBER.test(v) || (/\d/.test(v) && /\p{L}{3}/u.test(v)));
    if (cells.length === 0 || addressLike.length * 3 < cells.length) continue;
    if (withPlace) found.push({ ...current, street: c, number: null });
    found.push({ kind: 'single', column: c, parcel });
  }
  const same = JSON.stringify(current);
  return found.filter((choice) => JSON.stringify(choice) !== same);
}
