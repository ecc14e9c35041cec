import Papa from 'papaparse';
import { formatCount } from '../../../lib/format.ts';
import { type ColumnChoice, type CsvTable, joinAddress, missingStreet, parcelOf } from './columns.ts';
import { InputError, MAX_INPUT_BYTES, MAX_REVIEW_ROWS, type RowInput } from './rows.ts';

export type { ColumnChoice, CsvTable } from './columns.ts';
export { detectHeader, findHeader, guessColumns, guessMapping, joinAddress } from './columns.ts';

/** How a text file's bytes were read: UTF-8, or Windows-1252 when they are not UTF-8 (Excel's CSV in Europe). */
export type TextEncoding = 'utf-8' | 'windows-1252';

const mb = (bytes: number) => `${(bytes / 1024 / 1024).toFixed(1)} MB`;
const SAVE_AS = 'In your spreadsheet program choose “Save as”, pick “CSV UTF-8”, and upload that file.';

/** A file's name for messages: “homes.csv”, or "The file" for a blob without one. */
export const fileLabel = (file: { name?: string }) => (file.name ? `“${file.name}”` : 'The file');

/** Whether the bytes are a ZIP container (XLSX, ODS, DOCX all are). */
export const isZip = (bytes: Uint8Array) =>
  bytes[0] === 0x50 && bytes[1] === 0x4b && bytes[2] === 0x03 && bytes[3] === 0x04;

/** The file's bytes, refusing an empty one and one over 20 MB with a message that says what to do. */
export async function readBytes(file: Blob & { name?: string }): Promise<Uint8Array> {
  const name = fileLabel(file);
  if (file.size > MAX_INPUT_BYTES) {
    throw new InputError(
      `${name} is ${mb(file.size)}; PropLens reads files up to 20 MB. Split it and start one review for each part.`,
    );
  }
  if (file.size === 0) throw new InputError(`${name} is empty. Choose a CSV file with one address per row.`);
  return new Uint8Array(await file.arrayBuffer());
}

/** A text file read: its text, how, and (UTF-8 with a few lines that are not) which lines were read otherwise. */
export interface DecodedText {
  text: string;
  encoding: TextEncoding;
  /** Lines (1-based, as the file's lines) that were not UTF-8 in a UTF-8 file, read as Windows-1252. */
  otherLines?: number[];
}

const utf8 = new TextDecoder('utf-8', { fatal: true });
/** Windows-1252's letters at 0x80–0x9F (€ ‚ ƒ „ … † ‡ ˆ ‰ Š ‹ Œ Ž ‘ ’ “ ” • – — ˜ ™ š › œ ž Ÿ); five are unused. */
const CP1252_HIGH =
  '\u20ac\u0081\u201a\u0192\u201e\u2026\u2020\u2021\u02c6\u2030\u0160\u2039\u0152\u008d\u017d\u008f' +
  '\u0090\u2018\u2019\u201c\u201d\u2022\u2013\u2014\u02dc\u2122\u0161\u203a\u0153\u009d\u017e\u0178';
const latin = new TextDecoder('windows-1252');
/** Windows-1252 as browsers read it; Node's decoder reads that label as Latin-1, so 0x80–0x9F are mapped here. */
const cp1252 = {
  decode: (bytes: Uint8Array) =>
    latin.decode(bytes).replace(/[\u0080-\u009f]/g, (c) => CP1252_HIGH[c.charCodeAt(0) - 0x80] ?? c),
};

/**
 * A text file's bytes as text, refusing what is not text CSV with a message that says what to do. UTF-8 (a BOM
 * dropped) is read as such; bytes that are not valid UTF-8 are read as Windows-1252, which is what Excel writes
 * for "CSV" in Western Europe and the Americas (every byte is a letter there, so nothing is refused, and the form
 * says how it was read). A file that is UTF-8 but for a few lines (two files put together, a cell pasted from an
 * old system) is UTF-8: those lines alone are read as Windows-1252, and named. UTF-16, PDF and other binary
 * files are refused.
 */
export function decodeText(bytes: Uint8Array, name = 'The file'): DecodedText {
  if ((bytes[0] === 0xff && bytes[1] === 0xfe) || (bytes[0] === 0xfe && bytes[1] === 0xff)) {
    throw new InputError(`${name} is saved as UTF-16 text, which PropLens does not read. ${SAVE_AS}`);
  }
  // An OLE container: Excel 97-2003 (.xls), or an XLSX saved with a password (Excel encrypts it into one).
  if (bytes[0] === 0xd0 && bytes[1] === 0xcf && bytes[2] === 0x11 && bytes[3] === 0xe0) {
    throw new InputError(
      `${name} is an Excel 97-2003 workbook (.xls) or one protected by a password, which PropLens does not read. Open it in Excel, remove any password, and save it as “Excel Workbook (.xlsx)” or “CSV UTF-8”.`,
    );
  }
  // ZIP containers other than XLSX (.ods, .docx), PDF, and anything with NUL bytes are not text.
  const pdf = bytes[0] === 0x25 && bytes[1] === 0x50 && bytes[2] === 0x44 && bytes[3] === 0x46;
  if (isZip(bytes) || pdf || bytes.includes(0)) {
    throw new InputError(
      `${name} is not a CSV or XLSX file (it looks like a PDF, an OpenDocument or Word file, or another binary file). ${SAVE_AS}`,
    );
  }
  try {
    // fatal: a byte that is not UTF-8 is an error, not a silent U+FFFD; the BOM is dropped.
    return { text: utf8.decode(bytes), encoding: 'utf-8' };
  } catch {
    return decodeByLine(bytes);
  }
}

/**
 * Bytes that are not wholly UTF-8, line by line: a line with letters beyond ASCII that is valid UTF-8 says the
 * file is UTF-8 (Windows-1252 text almost never is), and then only the lines that are not are read as
 * Windows-1252; with no such line the whole file is Windows-1252.
 */
function decodeByLine(bytes: Uint8Array): DecodedText {
  const body = bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf ? bytes.subarray(3) : bytes;
  const parts: string[] = [];
  const otherLines: number[] = [];
  let utf8Lines = 0;
  let start = 0;
  for (let line = 1; start <= body.length; line++) {
    const end = body.indexOf(0x0a, start);
    const stop = end === -1 ? body.length : end + 1;
    const bytesOfLine = body.subarray(start, stop);
    if (bytesOfLine.some((b) => b >= 0x80)) {
      try {
        parts.push(utf8.decode(bytesOfLine));
        utf8Lines++;
      } catch {
        parts.push(cp1252.decode(bytesOfLine));
        otherLines.push(line);
      }
    } else parts.push(cp1252.decode(bytesOfLine));
    start = stop;
    if (end === -1) break;
  }
  if (utf8Lines === 0) return { text: cp1252.decode(body), encoding: 'windows-1252' };
  return { text: parts.join(''), encoding: 'utf-8', otherLines };
}

/** Reads an uploaded text file (see decodeText). */
export async function readTextFile(file: Blob & { name?: string }): Promise<DecodedText> {
  return decodeText(await readBytes(file), fileLabel(file));
}

/**
 * Parses CSV or TSV text with papaparse, chunk by chunk, yielding to the page between chunks so a 20 MB file
 * does not freeze it. The delimiter is detected (comma, semicolon as German Excel writes, tab); quoted fields may
 * hold delimiters, quotes and line breaks. Each record keeps its row number as a spreadsheet shows it: records
 * counted from the first, blank ones included, a quoted line break not starting a row.
 */
export function parseCsv(
  text: string,
  options: {
    onProgress?: (fraction: number) => void;
    chunkSize?: number;
    signal?: AbortSignal;
    delimiter?: string;
  } = {},
): Promise<CsvTable> {
  // A file may start with a BOM even after decoding elsewhere, and may end with a line break: neither is data.
  const whole = text.replace(/^\uFEFF/, '').replace(/(\r\n|\r|\n)$/, '');
  // Excel's "sep=;" first line names the delimiter (tools add it so Excel opens a semicolon file): it is not
  // data, but it is a line of the file, so the rows after it keep their numbers.
  const hint = /^sep=([^\r\n\w"])[ \t]*(?:\r\n|\r|\n|$)/i.exec(whole);
  const source = hint ? whole.slice(hint[0].length) : whole;
  const delimiter = options.delimiter ?? hint?.[1];
  const offset = hint ? 1 : 0;
  return new Promise((resolve, reject) => {
    const table = emptyTable();
    let failure: InputError | null = null;
    if (source.trim() === '') {
      reject(new InputError('The file has no text in it. Choose a CSV file with one address per row.'));
      return;
    }
    // Papaparse streams a string in chunks too (its types list `chunk` for files only).
    const config: Papa.ParseLocalConfig<string[], Papa.LocalFile> & { worker?: false; download?: false } = {
      chunkSize: options.chunkSize ?? 256 * 1024,
      skipEmptyLines: false,
      ...(delimiter ? { delimiter } : {}),
      chunk(results, parser) {
        table.delimiter = results.meta.delimiter || table.delimiter;
        const unclosed = results.errors.find((e) => e.code === 'MissingQuotes');
        if (unclosed) {
          failure = new InputError(
            `Row ${(unclosed.row ?? 0) + 1 + offset} opens a quote (") that is never closed, so the rest of the file reads as one cell. Fix that row and upload the file again.`,
          );
          parser.abort();
          return;
        }
        failure = addRecords(table, results.data, offset);
        if (failure) {
          parser.abort();
          return;
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
        else if (table.records.length === 0)
          reject(new InputError('The file has no text in it. Choose a CSV file with one address per row.'));
        else resolve(table);
      },
    };
    // The config is type-checked above; only the overload for strings lacks `chunk`.
    Papa.parse<string[]>(source, config as never);
  });
}

/** Tab-separated text as pasted from a spreadsheet (small: read at once), lines numbered as pasted. */
export function parseTabbed(text: string): CsvTable {
  const source = text.replace(/^\uFEFF/, '').replace(/(\r\n|\r|\n)$/, '');
  const parsed = Papa.parse<string[]>(source, { delimiter: '\t', skipEmptyLines: false });
  const table = emptyTable('\t');
  const failure = addRecords(table, parsed.data);
  if (failure) throw failure;
  return table;
}

export const emptyTable = (delimiter = ','): CsvTable => ({
  records: [],
  rowNumbers: [],
  blankLines: 0,
  delimiter,
  columns: 0,
});

/**
 * Adds records read in order to a table, numbering each (blank ones counted, not kept); an error once there are
 * more than the review's rows (one more allowed: the first record may be a header).
 */
export function addRecords(
  table: CsvTable,
  records: readonly string[][],
  /** Rows before the first record (a sheet whose used range starts lower down). */
  offset = 0,
): InputError | null {
  let row = offset + table.records.length + table.blankLines;
  for (const record of records) {
    row++;
    if (record.every((cell) => cell.trim() === '')) {
      table.blankLines++;
      continue;
    }
    table.records.push(record);
    table.rowNumbers.push(row);
    table.columns = Math.max(table.columns, record.length);
    if (table.records.length > MAX_REVIEW_ROWS + 1) {
      return new InputError(
        `The file has more than ${formatCount(MAX_REVIEW_ROWS)} rows. Split it and start one review for each part.`,
      );
    }
  }
  return null;
}

/**
 * The rows of a table under a column choice, in order, one per data record: its address (empty when the chosen
 * cells are), its own cells, its row number and its parcel number. Every record is a row: a record without an
 * address is kept, for its parcel number or to be answered "no address", so the export joins back 1:1.
 */
export function tableRows(table: CsvTable, hasHeader: boolean, choice: ColumnChoice): RowInput[] {
  const first = hasHeader ? 1 : 0;
  if (table.records.length <= first)
    throw new InputError('The file has a header row but no addresses under it.');
  const rows: RowInput[] = [];
  let any = false;
  for (let i = first; i < table.records.length; i++) {
    const record = table.records[i] as string[];
    const parcel = parcelOf(record, choice);
    // A row without a street is looked up by its parcel number, or kept as "no address": never sent as a bare
    // place ("CHARLESTON, SC 29417") nor as a vacant lot's "0 E Maple St".
    const missing = missingStreet(record, choice);
    const address =
      missing === 'blank' || (missing === 'vacant' && parcel) ? '' : joinAddress(record, choice);
    if (address !== '' || parcel) any = true;
    rows.push({
      address,
      cells: record,
      ...(table.rowNumbers[i] !== undefined ? { sourceRow: table.rowNumbers[i] } : {}),
      ...(parcel ? { parcel } : {}),
    });
  }
  if (!any) {
    throw new InputError(
      'The chosen column is empty in every row. Pick the column that holds the addresses (or the street column).',
    );
  }
  return rows;
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
