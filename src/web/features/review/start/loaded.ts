import type { ColumnChoice, CsvTable } from './columns.ts';
import { guessMapping } from './columns.ts';
import { decodeText, detectHeader, isZip, parseCsv, readBytes, type TextEncoding, tableRows } from './csv.ts';
import { InputError, type PreparedRows, prepareRows, type RowInput } from './rows.ts';
import { readWorkbook, type SheetBook } from './xlsx.ts';

/** A table that has been read (a file, or a paste with tabs): where its address is, as guessed or chosen. */
export interface Loaded {
  fileName: string;
  table: CsvTable;
  hasHeader: boolean;
  choice: ColumnChoice;
  /** No header named the address columns: the choice was guessed from the cells, and the reviewer has not picked. */
  unsure: boolean;
  /** A text file that was not UTF-8 and was read as Windows-1252. */
  encoding?: TextEncoding;
  /** A workbook's sheets and the one read. */
  book?: SheetBook & { index: number };
}

/** A table's header and columns as guessed. */
export function guessed(table: CsvTable): Pick<Loaded, 'table' | 'hasHeader' | 'choice' | 'unsure'> {
  const hasHeader = detectHeader(table.records);
  const { choice, byHeader } = guessMapping(table.records, hasHeader);
  return { table, hasHeader, choice, unsure: !byHeader };
}

/** Reads a file and makes its table: an XLSX workbook's first sheet, or CSV/TSV text. */
export async function loadFile(
  file: Blob & { name?: string },
  onProgress?: (f: number) => void,
  signal?: AbortSignal,
): Promise<Omit<Loaded, 'fileName'>> {
  const bytes = await readBytes(file);
  if (isZip(bytes) && !/\.(?:ods|docx|pptx|odt|zip)$/i.test(file.name ?? '')) {
    const book = await readWorkbook(bytes, file);
    return { ...guessed(book.table(0)), book: { ...book, index: 0 } };
  }
  const { text, encoding } = decodeText(bytes, file.name ? `“${file.name}”` : 'The file');
  const table = await parseCsv(text, { onProgress, signal });
  return { ...guessed(table), ...(encoding === 'windows-1252' ? { encoding } : {}) };
}

/** What a loaded table gives: its rows as they will be sent, or why its columns give none. */
export type TableDraft = { rows: RowInput[]; prepared: PreparedRows } | { error: string };

/** The rows a loaded table's column choice gives, with the table's own header (the export gives it back). */
export function tableDraft(state: Pick<Loaded, 'table' | 'hasHeader' | 'choice'>): TableDraft {
  try {
    const rows = tableRows(state.table, state.hasHeader, state.choice);
    const prepared = prepareRows(rows);
    // A headerless file gets column_1, column_2, ... in the export.
    const header = state.hasHeader ? (state.table.records[0] ?? []) : [];
    const columns = Array.from({ length: state.table.columns }, (_, i) => header[i] ?? `column_${i + 1}`);
    return {
      rows,
      prepared: { ...prepared, skippedBlank: prepared.skippedBlank + state.table.blankLines, columns },
    };
  } catch (err) {
    if (err instanceof InputError) return { error: err.message };
    throw err;
  }
}
