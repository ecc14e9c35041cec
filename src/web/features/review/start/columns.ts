import { zipCell } from '../../../../contract/index.ts';
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
  const cityFound = city ?? byValue((v) => /^[\p{L}][\p{L}\s.'-]*$/u.test(v) && !US_STATE_CODE.test(v));
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
