import Papa from 'papaparse';
import { zipCell } from '../../../../contract/index.ts';
import { InputError, MAX_INPUT_BYTES, MAX_REVIEW_ROWS } from './rows.ts';

/** A CSV/TSV file as read: its non-blank records (the header, if any, first) and what was skipped. */
export interface CsvTable {
  records: string[][];
  /** Records with nothing but blank cells. */
  blankLines: number;
  /** ',' or '\t' (or another delimiter papaparse found). */
  delimiter: string;
  /** Most cells in any record. */
  columns: number;
}

/** Which cells make the address: one column, or street / city / state / ZIP columns joined. */
export type ColumnChoice =
  | { kind: 'single'; column: number }
  | {
      kind: 'parts';
      street: number;
      city: number | null;
      state: number | null;
      zip: number | null;
      /** A unit / secondary column (apartment, suite), joined to the street. */
      unit?: number | null;
    };

const mb = (bytes: number) => `${(bytes / 1024 / 1024).toFixed(1)} MB`;

/**
 * Reads an uploaded file as UTF-8 text, refusing what is not text CSV with a message that says what to do.
 * A UTF-8 BOM is fine (dropped); anything else that is not valid UTF-8 is refused rather than guessed at,
 * so no address is looked up with mangled letters.
 */
export async function readTextFile(file: Blob & { name?: string }): Promise<string> {
  const name = file.name ? `“${file.name}”` : 'The file';
  if (file.size > MAX_INPUT_BYTES) {
    throw new InputError(
      `${name} is ${mb(file.size)}; PropLens reads files up to 20 MB. Split it and start one review for each part.`,
    );
  }
  if (file.size === 0) throw new InputError(`${name} is empty. Choose a CSV file with one address per row.`);
  const bytes = new Uint8Array(await file.arrayBuffer());
  const saveAs = 'In your spreadsheet program choose “Save as”, pick “CSV UTF-8”, and upload that file.';
  if ((bytes[0] === 0xff && bytes[1] === 0xfe) || (bytes[0] === 0xfe && bytes[1] === 0xff)) {
    throw new InputError(`${name} is saved as UTF-16 text, which PropLens does not read. ${saveAs}`);
  }
  // ZIP containers (.xlsx, .ods, .docx), PDF, and anything with NUL bytes are not text.
  const zip = bytes[0] === 0x50 && bytes[1] === 0x4b && bytes[2] === 0x03 && bytes[3] === 0x04;
  const pdf = bytes[0] === 0x25 && bytes[1] === 0x50 && bytes[2] === 0x44 && bytes[3] === 0x46;
  if (zip || pdf || bytes.includes(0)) {
    throw new InputError(
      `${name} is not a text CSV file (it looks like a spreadsheet, PDF or other binary file). ${saveAs}`,
    );
  }
  try {
    // fatal: a byte that is not UTF-8 is an error, not a silent U+FFFD; the BOM is dropped.
    return new TextDecoder('utf-8', { fatal: true }).decode(bytes);
  } catch {
    throw new InputError(
      `${name} is not UTF-8 text (it may be saved as Windows-1252 or Latin-1, so accented letters would be wrong). ${saveAs}`,
    );
  }
}

/**
 * Parses CSV or TSV text with papaparse, chunk by chunk, yielding to the page between chunks so a 20 MB file
 * does not freeze it. The delimiter is detected; quoted fields may hold commas, quotes and line breaks.
 */
export function parseCsv(
  text: string,
  options: { onProgress?: (fraction: number) => void; chunkSize?: number; signal?: AbortSignal } = {},
): Promise<CsvTable> {
  // A file may start with a BOM even after decoding elsewhere, and may end with a line break: neither is data.
  const source = text.replace(/^\uFEFF/, '').replace(/(\r\n|\r|\n)$/, '');
  return new Promise((resolve, reject) => {
    const records: string[][] = [];
    let blankLines = 0;
    let columns = 0;
    let delimiter = ',';
    let failure: InputError | null = null;
    if (source.trim() === '') {
      reject(new InputError('The file has no text in it. Choose a CSV file with one address per row.'));
      return;
    }
    // Papaparse streams a string in chunks too (its types list `chunk` for files only).
    const config: Papa.ParseLocalConfig<string[], Papa.LocalFile> & { worker?: false; download?: false } = {
      chunkSize: options.chunkSize ?? 256 * 1024,
      skipEmptyLines: false,
      chunk(results, parser) {
        delimiter = results.meta.delimiter || delimiter;
        const unclosed = results.errors.find((e) => e.code === 'MissingQuotes');
        if (unclosed) {
          failure = new InputError(
            `Row ${(unclosed.row ?? 0) + 1} opens a quote (") that is never closed, so the rest of the file reads as one cell. Fix that row and upload the file again.`,
          );
          parser.abort();
          return;
        }
        for (const record of results.data) {
          if (record.every((cell) => cell.trim() === '')) {
            blankLines++;
            continue;
          }
          records.push(record);
          columns = Math.max(columns, record.length);
          // One more than the limit: the first record may be a header.
          if (records.length > MAX_REVIEW_ROWS + 1) {
            failure = new InputError(
              `The file has more than ${MAX_REVIEW_ROWS.toLocaleString('en-US')} rows. Split it and start one review for each part.`,
            );
            parser.abort();
            return;
          }
        }
        options.onProgress?.(Math.min(1, results.meta.cursor / source.length));
        if (options.signal?.aborted) {
          failure = new InputError('Reading the file was stopped.');
          parser.abort();
          return;
        }
        // Give the page a turn before the next chunk.
        parser.pause();
        setTimeout(() => parser.resume(), 0);
      },
      complete() {
        if (failure) reject(failure);
        else if (records.length === 0)
          reject(new InputError('The file has no text in it. Choose a CSV file with one address per row.'));
        else resolve({ records, blankLines, delimiter, columns });
      },
    };
    // The config is type-checked above; only the overload for strings lacks `chunk`.
    Papa.parse<string[]>(source, config as never);
  });
}

const norm = (cell: string) =>
  cell
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, ' ')
    .trim();

const HEADER_WORDS =
  /^(?:(?:full|property|site|street|mailing|physical|situs)\s)?(?:address|addr)(?:\s(?:line\s)?1)?$|^(?:street|city|town|state|st|province|zip|zip\s?code|zipcode|postal\s?code|postcode|zip5|unit|apt|county|country|name|id|owner|notes?|kind|type)$/;
const HOUSE_NUMBER = /^\s*\d+[a-z]?\s+\S/i;

/**
 * Whether the first record is a header: a cell named like an address column, or no digit anywhere in it
 * while most of the records after it carry some (addresses have house numbers; header names do not).
 */
export function detectHeader(records: readonly string[][]): boolean {
  const first = records[0];
  if (!first) return false;
  if (first.some((cell) => HEADER_WORDS.test(norm(cell)))) return true;
  if (first.some((cell) => /\d/.test(cell))) return false;
  const sample = records.slice(1, 21);
  if (sample.length === 0) return false;
  return sample.filter((r) => r.some((cell) => /\d/.test(cell))).length * 2 >= sample.length;
}

const findColumn = (header: readonly string[], test: RegExp) => {
  const i = header.findIndex((cell) => test.test(norm(cell)));
  return i === -1 ? null : i;
};

/**
 * The columns most likely to hold the address: by header name (street / city / state / ZIP columns are
 * joined when there is no whole-address column next to them), else the column whose cells most often start
 * with a house number.
 */
export function guessColumns(records: readonly string[][], hasHeader: boolean): ColumnChoice {
  const header = hasHeader ? (records[0] ?? []) : [];
  const street = findColumn(header, /^(?:street(?:\saddress)?|address(?:\sline)?\s?1|addr1|street\s?1)$/);
  const whole = findColumn(
    header,
    /^(?:(?:full|property|site|mailing|physical|situs)\s)?(?:address|addr)$|^(?:full|property|site)\saddress$/,
  );
  const city = findColumn(header, /^(?:city|town|municipality|locality)$/);
  const state = findColumn(header, /^(?:state|st|province|region)$/);
  const zip = findColumn(header, /^(?:zip|zip\s?code|zipcode|zip5|postal\s?code|postcode)$/);
  const unit = findColumn(
    header,
    /^(?:unit|apt|apartment|suite|ste|unit\s?(?:number|no|#)|apt\s?(?:number|no|#)|address\s?line\s?2|addr2|street\s?2|secondary)$/,
  );
  if (whole !== null && street === null) {
    // An "address" column next to city/state/ZIP columns is usually the street line only.
    if (city !== null && (state !== null || zip !== null))
      return { kind: 'parts', street: whole, city, state, zip, unit };
    return { kind: 'single', column: whole };
  }
  if (street !== null) return { kind: 'parts', street, city, state, zip, unit };
  const body = records.slice(hasHeader ? 1 : 0, 200);
  const width = Math.max(1, ...body.map((r) => r.length));
  let best = 0;
  let bestScore = -1;
  for (let c = 0; c < width; c++) {
    const score = body.filter((r) => HOUSE_NUMBER.test(r[c] ?? '')).length;
    if (score > bestScore) {
      best = c;
      bestScore = score;
    }
  }
  // Headers in another language ("Straße;Ort;PLZ"): ZIP and state columns are known by their values, so a
  // street column is not sent alone when the file has the rest.
  const byValue = (test: (cell: string) => boolean) => {
    let found: number | null = null;
    for (let c = 0; c < width && found === null; c++) {
      if (c === best) continue;
      const cells = body.map((r) => (r[c] ?? '').trim()).filter((v) => v !== '');
      if (cells.length > 0 && cells.filter(test).length >= cells.length * 0.8) found = c;
    }
    return found;
  };
  const zipByValue = byValue((v) => /^\d{5}(?:-\d{4})?$|^\d{3,4}$/.test(v));
  const stateByValue = byValue((v) => US_STATE_CODE.test(v));
  if (zipByValue === null && stateByValue === null) return { kind: 'single', column: best };
  const cityByValue = byValue((v) => /^[\p{L}][\p{L}\s.'-]*$/u.test(v) && !US_STATE_CODE.test(v));
  return { kind: 'parts', street: best, city: cityByValue, state: stateByValue, zip: zipByValue, unit: null };
}

const US_STATE_CODE =
  /^(?:A[KLRZS]|C[AOT]|D[CE]|FL|G[AU]|HI|I[ADLN]|K[SY]|LA|M[ADEINOPST]|N[CDEHJMVY]|O[HKR]|P[AR]|RI|S[CD]|T[NX]|UT|V[AIT]|W[AIVY])$/i;

/** A unit cell as the street's secondary part: "4B" → "Unit 4B"; "Apt 4B", "#4B" as they are. */
const unitPart = (cell: string) => (/^(?:#|[A-Za-z]{2,}\.?\s)/.test(cell) ? cell : `Unit ${cell}`);

/** The address a record stands for under `choice`: "street, city, ST ZIP", parts that are blank left out. */
export function joinAddress(record: readonly string[], choice: ColumnChoice): string {
  const cell = (i: number | null) => (i === null ? '' : (record[i] ?? '').trim());
  if (choice.kind === 'single') return cell(choice.column);
  const stateZip = [cell(choice.state), zipCell(cell(choice.zip))].filter((s) => s !== '').join(' ');
  const unit = cell(choice.unit ?? null);
  const street = [cell(choice.street), unit ? unitPart(unit) : ''].filter((s) => s !== '').join(' ');
  return [street, cell(choice.city), stateZip].filter((s) => s !== '').join(', ');
}

/** The addresses of a table, in order, one per data record (blank ones stay blank, to be skipped and counted). */
export function csvAddresses(table: CsvTable, hasHeader: boolean, choice: ColumnChoice): string[] {
  const body = hasHeader ? table.records.slice(1) : table.records;
  if (body.length === 0) throw new InputError('The file has a header row but no addresses under it.');
  const addresses = body.map((r) => joinAddress(r, choice));
  if (addresses.every((a) => a === '')) {
    throw new InputError(
      'The chosen column is empty in every row. Pick the column that holds the addresses (or the street column).',
    );
  }
  return addresses;
}

/**
 * A name for each column, its position first so a narrow select still shows which it is ("1 · Street"; "Column
 * 2" when the header cell is empty or there is no header).
 */
export function columnNames(table: CsvTable, hasHeader: boolean): string[] {
  const header = hasHeader ? (table.records[0] ?? []) : [];
  return Array.from({ length: table.columns }, (_, i) => {
    const name = (header[i] ?? '').trim();
    return name === '' ? `Column ${i + 1}` : `${i + 1} · ${name}`;
  });
}

/** Each column's first filled cell below the header (within the first 20 rows), to show what a column holds. */
export function columnExamples(table: CsvTable, hasHeader: boolean): (string | null)[] {
  const rows = table.records.slice(hasHeader ? 1 : 0, (hasHeader ? 1 : 0) + 20);
  return Array.from(
    { length: table.columns },
    (_, i) => rows.map((r) => (r[i] ?? '').trim()).find((cell) => cell !== '') ?? null,
  );
}
