import { MAX_REVIEW_COLUMNS } from '../../../../contract/index.ts';
import type { ColumnChoice, CsvTable } from './columns.ts';
import { findHeader, guessMapping } from './columns.ts';
import { type DecodedText, decodeText, isZip, parseCsv, readBytes, tableRows } from './csv.ts';
import { InputError, type PreparedRows, prepareRows, type RowInput } from './rows.ts';
import { readWorkbook, type SheetBook } from './xlsx.ts';

/** A table that has been read (a file, or a paste with tabs): where its address is, as guessed or chosen. */
export interface Loaded {
  fileName: string;
  /** The table as read: every record, a title above the header included. */
  read: CsvTable;
  /** The records from the header on (a title above it left out), or all of them when there is no header. */
  table: CsvTable;
  /** The header's place in `read.records`, or null: then every record is a row. */
  headerAt: number | null;
  /** `table.records[0]` is the header. */
  hasHeader: boolean;
  choice: ColumnChoice;
  /** No header named the address columns: the choice was guessed from the cells, and the reviewer has not picked. */
  unsure: boolean;
  /** How a text file was read (see decodeText). */
  encoding?: DecodedText['encoding'];
  /** A UTF-8 file's lines that were not UTF-8, read as Windows-1252. */
  otherLines?: number[];
  /** A workbook's sheets and the one read. */
  book?: SheetBook & { index: number };
}

type Header = Pick<Loaded, 'read' | 'table' | 'headerAt' | 'hasHeader' | 'choice' | 'unsure'>;

/** A table read with its header at `headerAt` (null: none), and its columns guessed under that header. */
export function withHeader(read: CsvTable, headerAt: number | null): Header {
  const table: CsvTable = headerAt
    ? {
        ...read,
        records: read.records.slice(headerAt),
        rowNumbers: read.rowNumbers.slice(headerAt),
      }
    : read;
  const hasHeader = headerAt !== null;
  const { choice, byHeader } = guessMapping(table.records, hasHeader);
  return { read, table, headerAt, hasHeader, choice, unsure: !byHeader };
}

/** A table's header (looked for among its first records) and columns as guessed. */
export const guessed = (read: CsvTable): Header => withHeader(read, findHeader(read.records));

/**
 * The sheet to open first: the first one Excel shows (not a hidden one) whose header names address columns,
 * else the first one shown; a sheet that cannot be read is passed over.
 */
export function preferredSheet(book: SheetBook): { index: number; loaded: Header } | null {
  let fallback: { index: number; loaded: Header } | null = null;
  for (const [index] of book.names.entries()) {
    if (book.hidden[index]) continue;
    let loaded: Header;
    try {
      loaded = guessed(book.table(index));
    } catch (err) {
      if (err instanceof InputError) continue;
      throw err;
    }
    if (!loaded.unsure) return { index, loaded };
    fallback ??= { index, loaded };
  }
  return fallback;
}

/** Reads a file and makes its table: an XLSX workbook's sheet (see preferredSheet), or CSV/TSV text. */
export async function loadFile(
  file: Blob & { name?: string },
  onProgress?: (f: number) => void,
  signal?: AbortSignal,
): Promise<Omit<Loaded, 'fileName'>> {
  const bytes = await readBytes(file);
  if (isZip(bytes) && !/\.(?:ods|docx|pptx|odt|zip)$/i.test(file.name ?? '')) {
    const book = await readWorkbook(bytes, file);
    const preferred = preferredSheet(book) ?? { index: 0, loaded: guessed(book.table(0)) };
    return { ...preferred.loaded, book: { ...book, index: preferred.index } };
  }
  const { text, encoding, otherLines } = decodeText(bytes, file.name ? `“${file.name}”` : 'The file');
  const table = await parseCsv(text, { onProgress, signal });
  return {
    ...guessed(table),
    ...(encoding === 'windows-1252' ? { encoding } : {}),
    ...(otherLines?.length ? { otherLines } : {}),
  };
}

/**
 * The columns a review keeps of a table wider than a review's columns: the ones the choice reads, then the first
 * of the others up to the limit, in the file's order; null when it keeps them all.
 */
export function keptColumns(width: number, choice: ColumnChoice): number[] | null {
  if (width <= MAX_REVIEW_COLUMNS) return null;
  const chosen =
    choice.kind === 'single'
      ? [choice.column, choice.parcel]
      : [choice.street, choice.number, choice.city, choice.state, choice.zip, choice.unit, choice.parcel];
  const kept = new Set(chosen.filter((c): c is number => c != null && c < width));
  for (let c = 0; c < width && kept.size < MAX_REVIEW_COLUMNS; c++) kept.add(c);
  return [...kept].sort((a, b) => a - b);
}

/** What a loaded table gives: its rows as they will be sent, or why its columns give none. */
export type TableDraft = { rows: RowInput[]; prepared: PreparedRows } | { error: string };

/** The rows a loaded table's column choice gives, with the table's own header (the export gives it back). */
export function tableDraft(state: Pick<Loaded, 'table' | 'hasHeader' | 'choice'>): TableDraft {
  try {
    const { table, choice } = state;
    const kept = keptColumns(table.columns, choice);
    const all = tableRows(table, state.hasHeader, choice);
    // A file wider than a review keeps the columns it reads and the first of the rest (the form says so).
    const rows = kept ? all.map((r) => ({ ...r, cells: kept.map((c) => r.cells?.[c] ?? '') })) : all;
    const prepared = prepareRows(rows);
    // A headerless file gets column_1, column_2, ... in the export.
    const header = state.hasHeader ? (table.records[0] ?? []) : [];
    const columns = (kept ?? Array.from({ length: table.columns }, (_, i) => i)).map(
      (i) => header[i] ?? `column_${i + 1}`,
    );
    return {
      rows,
      prepared: { ...prepared, skippedBlank: prepared.skippedBlank + table.blankLines, columns },
    };
  } catch (err) {
    if (err instanceof InputError) return { error: err.message };
    throw err;
  }
}
