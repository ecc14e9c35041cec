import { MAX_REVIEW_COLUMNS, MAX_REVIEW_ROWS } from '../../../../contract/index.ts';
import type { CsvTable } from './columns.ts';
import { addRecords, emptyTable, fileLabel } from './csv.ts';
import { InputError } from './rows.ts';

/** A workbook's sheets, by name, each read as a table when it is chosen. */
export interface SheetBook {
  names: string[];
  /** Sheets Excel does not show (hidden, or "very hidden"): not opened first. */
  hidden: boolean[];
  table: (index: number) => CsvTable;
}

/** Blank rows a sheet may have besides its data rows before the rest is not read. */
const BLANK_ROWS_ALLOWED = 10_000;

/**
 * Reads an XLSX workbook with SheetJS, loaded only now (it is most of a megabyte: it never reaches the main
 * bundle). Cells read as the sheet shows them (dates, numbers in their format; a ZIP stored as text keeps its
 * leading zero), rows numbered as the sheet numbers them. A damaged workbook is refused with what to do, and
 * nothing else changes.
 */
export async function readWorkbook(bytes: Uint8Array, file: { name?: string }): Promise<SheetBook> {
  const XLSX = await import('@e965/xlsx');
  const name = fileLabel(file);
  const damaged = new InputError(
    `${name} could not be read as an Excel workbook: it may be damaged or protected by a password. Open it in Excel and save it again (or as “CSV UTF-8”), then upload that file.`,
  );
  let book: import('@e965/xlsx').WorkBook;
  try {
    // sheetRows bounds a sheet that claims a million rows; dense keeps big sheets' memory down.
    book = XLSX.read(bytes, {
      type: 'array',
      dense: true,
      cellFormula: false,
      cellHTML: false,
      sheetRows: MAX_REVIEW_ROWS + 1 + BLANK_ROWS_ALLOWED,
    });
  } catch {
    throw damaged;
  }
  const names = book.SheetNames.filter((n) => book.Sheets[n] !== undefined);
  if (names.length === 0) throw damaged;
  const shown = new Map(book.Workbook?.Sheets?.map((s) => [s.name, !s.Hidden]) ?? []);
  return {
    names,
    hidden: names.map((n) => shown.get(n) === false),
    table(index) {
      const sheet = book.Sheets[names[index] ?? ''];
      const ref = sheet?.['!ref'];
      if (!sheet || !ref) throw new InputError(`The sheet “${names[index]}” is empty: choose another sheet.`);
      const range = XLSX.utils.decode_range(ref);
      // Past the review's columns nothing is kept: a sheet formatted to column XFD is not read that wide.
      range.e.c = Math.min(range.e.c, range.s.c + MAX_REVIEW_COLUMNS - 1);
      const rows = XLSX.utils.sheet_to_json<unknown[]>(sheet, {
        header: 1,
        raw: false,
        defval: '',
        blankrows: true,
        range,
      });
      const table = emptyTable('');
      // Numbered as the sheet numbers its rows, from the first of its used range.
      const failure = addRecords(
        table,
        rows.map((r) => r.map((cell) => (cell == null ? '' : String(cell)))),
        range.s.r,
      );
      if (failure) throw failure;
      if (table.records.length === 0)
        throw new InputError(`The sheet “${names[index]}” is empty: choose another sheet.`);
      return table;
    },
  };
}
