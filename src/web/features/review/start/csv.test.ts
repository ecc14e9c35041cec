import { describe, expect, it } from 'vitest';
import {
  columnExamples,
  columnNames,
  detectHeader,
  guessColumns,
  joinAddress,
  parseCsv,
  readTextFile,
  tableRows,
} from './csv.ts';
import { InputError, MAX_INPUT_BYTES, MAX_REVIEW_ROWS } from './rows.ts';

/** The addresses a table's rows give under a choice (empty where a row has none). */
const addresses = (...args: Parameters<typeof tableRows>) => tableRows(...args).map((r) => r.address);

const file = (parts: BlobPart[], name = 'homes.csv') => new File(parts, name, { type: 'text/csv' });

describe('readTextFile', () => {
  it('reads UTF-8 text and drops a BOM', async () => {
    const text = await readTextFile(
      file([new Uint8Array([0xef, 0xbb, 0xbf]), 'address\n1 Rue Café, Montréal']),
    );
    expect(text).toEqual({ text: 'address\n1 Rue Café, Montréal', encoding: 'utf-8' });
  });

  it('refuses a binary file that is not a workbook, naming it and saying how to save a CSV', async () => {
    const docx = file([new Uint8Array([0x50, 0x4b, 0x03, 0x04, 1, 2, 3])], 'homes.docx');
    await expect(readTextFile(docx)).rejects.toThrow(/“homes.docx” is not a CSV or XLSX file.*CSV UTF-8/);
    const pdf = file([new TextEncoder().encode('%PDF-1.7\n')], 'homes.pdf');
    await expect(readTextFile(pdf)).rejects.toThrow(/“homes.pdf” is not a CSV or XLSX file.*PDF/);
    const xls = file([new Uint8Array([0xd0, 0xcf, 0x11, 0xe0, 0xa1, 0xb1, 0x1a, 0xe1, 0])], 'old.xls');
    await expect(readTextFile(xls)).rejects.toThrow(/“old.xls” is an Excel 97-2003 workbook.*password/);
    await expect(readTextFile(file(['address\n1 Main', new Uint8Array([0]), 'St']))).rejects.toThrow(
      /not a CSV or XLSX file/,
    );
  });

  it('reads text that is not UTF-8 as Windows-1252, as Excel writes CSV, and says so', async () => {
    // "Straße;Café" in Windows-1252: 0xDF and 0xE9 alone are not UTF-8.
    const cp1252 = file([new Uint8Array([0x53, 0x74, 0x72, 0x61, 0xdf, 0x65, 0x3b, 0x43, 0x61, 0x66, 0xe9])]);
    await expect(readTextFile(cp1252)).resolves.toEqual({ text: 'Straße;Café', encoding: 'windows-1252' });
    const utf16 = file([new Uint8Array([0xff, 0xfe, 0x41, 0x00])]);
    await expect(readTextFile(utf16)).rejects.toThrow(/UTF-16/);
  });

  it('refuses a file over 20 MB and an empty one', async () => {
    const big = file([new Uint8Array(MAX_INPUT_BYTES + 1).fill(0x41)]);
    await expect(readTextFile(big)).rejects.toThrow(/is 20.0 MB; PropLens reads files up to 20 MB/);
    await expect(readTextFile(file([]))).rejects.toThrow(/is empty/);
    // Exactly 20 MB is allowed.
    const max = file([new Uint8Array(MAX_INPUT_BYTES).fill(0x41)]);
    expect((await readTextFile(max)).text).toHaveLength(MAX_INPUT_BYTES);
  });
});

describe('parseCsv', () => {
  it('keeps quoted commas, doubled quotes and line breaks inside a cell', async () => {
    const table = await parseCsv(
      'address,note\n"1100 Congress Ave, Austin, TX","the ""capitol""\nbuilding"\n',
    );
    expect(table.records).toEqual([
      ['address', 'note'],
      ['1100 Congress Ave, Austin, TX', 'the "capitol"\nbuilding'],
    ]);
    expect(table.delimiter).toBe(',');
    expect(table.columns).toBe(2);
  });

  it('detects tabs (TSV) and a leading BOM', async () => {
    const table = await parseCsv(
      '\uFEFFstreet\tcity\tstate\tzip\r\n1100 Congress Ave\tAustin\tTX\t78701\r\n',
    );
    expect(table.delimiter).toBe('\t');
    expect(table.records[0]).toEqual(['street', 'city', 'state', 'zip']);
  });

  it('counts blank records instead of keeping them, but not the final line break', async () => {
    const table = await parseCsv('a\n1 Main St\n\n,\n  \n2 Main St\n');
    expect(table.records).toEqual([['a'], ['1 Main St'], ['2 Main St']]);
    expect(table.blankLines).toBe(3);
  });

  it('says which row has a quote that never closes', async () => {
    await expect(parseCsv('address\n1 Main St\n"2 Main St, Austin\n3 Main St\n')).rejects.toThrow(
      /Row 3 opens a quote/,
    );
  });

  it('refuses more than 100,000 rows, allowing for a header', async () => {
    const rows = (n: number) => Array.from({ length: n }, (_, i) => `${i + 1} Main St`).join('\n');
    await expect(parseCsv(`address\n${rows(MAX_REVIEW_ROWS)}`)).resolves.toMatchObject({
      records: { length: MAX_REVIEW_ROWS + 1 },
    });
    await expect(parseCsv(`address\n${rows(MAX_REVIEW_ROWS + 1)}`)).rejects.toThrow(/more than 100,000 rows/);
  });

  it('parses a 5 MB file in chunks, reporting progress, with cells split across chunk edges intact', async () => {
    const note = 'x'.repeat(480);
    const line = (i: number) => `"${i} Main St, Springfield, IL","${note}, with ""quotes""\nand a break"`;
    const lines = Array.from({ length: MAX_REVIEW_ROWS }, (_, i) => line(i + 1));
    const text = lines.join('\n');
    expect(text.length).toBeGreaterThan(4.9 * 1024 * 1024);
    const progress: number[] = [];
    const table = await parseCsv(text, { onProgress: (f) => progress.push(f), chunkSize: 64 * 1024 });
    expect(table.records).toHaveLength(MAX_REVIEW_ROWS);
    expect(table.records[9_999]).toEqual([
      '10000 Main St, Springfield, IL',
      `${note}, with "quotes"\nand a break`,
    ]);
    expect(table.records.every((r, i) => r[0] === `${i + 1} Main St, Springfield, IL`)).toBe(true);
    // Each record spans two lines but is one row of the spreadsheet, across every chunk edge.
    expect(table.rowNumbers.every((n, i) => n === i + 1)).toBe(true);
    // One step per chunk: the page got a turn about 80 times, not once at the end.
    expect(progress.length).toBeGreaterThan(50);
    expect(progress.at(-1)).toBe(1);
    // 100,000 records: over 5 s on two shared cores under a load of 9, where the default allows 5.
  }, 30_000);

  it('refuses text with nothing in it', async () => {
    await expect(parseCsv('\n\n  \n')).rejects.toThrow(InputError);
  });
});

describe('header detection and columns', () => {
  it('takes a first row named like address columns as a header', () => {
    expect(detectHeader([['Property Address'], ['1100 Congress Ave']])).toBe(true);
    expect(
      detectHeader([
        ['Street', 'City', 'ST', 'ZIP'],
        ['1 Main St', 'Austin', 'TX', '78701'],
      ]),
    ).toBe(true);
  });

  it('takes a first row without digits above rows with house numbers as a header', () => {
    expect(
      detectHeader([
        ['Where', 'Who'],
        ['1 Main St', 'A'],
        ['2 Main St', 'B'],
      ]),
    ).toBe(true);
  });

  it('takes a digit-free first row for a header when at least half the rows after it carry digits', () => {
    const rows = (withDigits: number, without: number) => [
      ['Where', 'Who'],
      ...Array.from({ length: withDigits }, (_, i) => [`${i + 1} Main St`, 'A']),
      ...Array.from({ length: without }, () => ['Main St', 'B']),
    ];
    expect(detectHeader(rows(2, 2))).toBe(true); // exactly half
    expect(detectHeader(rows(1, 2))).toBe(false); // fewer than half
    // Only the first 20 rows after it are looked at.
    expect(detectHeader([...rows(0, 20), ...Array.from({ length: 30 }, () => ['9 Elm St', 'C'])])).toBe(
      false,
    );
  });

  it('does not take an address for a header', () => {
    expect(detectHeader([['1100 Congress Ave'], ['233 S Wacker Dr']])).toBe(false);
    expect(detectHeader([['Main Street Plaza'], ['Oak Court']])).toBe(false);
  });

  it('picks the address column by name, or joins street, city, state and ZIP', () => {
    expect(
      guessColumns(
        [
          ['id', 'Address', 'notes'],
          ['1', '1 Main St', ''],
        ],
        true,
      ),
    ).toMatchObject({
      kind: 'single',
      column: 1,
    });
    expect(guessColumns([['ZIP', 'Street Address', 'City', 'State'], []], true)).toMatchObject({
      kind: 'parts',
      street: 1,
      city: 2,
      state: 3,
      zip: 0,
      unit: null,
    });
    // An "address" column beside city and state is the street line.
    expect(guessColumns([['address', 'city', 'state'], []], true)).toMatchObject({
      kind: 'parts',
      street: 0,
      city: 1,
      state: 2,
      zip: null,
      unit: null,
    });
  });

  it('without a header, picks the column whose cells start with a house number', () => {
    const records = [
      ['Ann', '1100 Congress Ave, Austin TX', 'x'],
      ['Bo', '233 S Wacker Dr, Chicago IL', 'y'],
    ];
    expect(guessColumns(records, false)).toMatchObject({ kind: 'single', column: 1 });
  });

  it('breaks a tie between columns that start with house numbers as often by taking the first', () => {
    const records = [
      ['1100 Congress Ave, Austin TX', '12 Elm St', 'x'],
      ['233 S Wacker Dr, Chicago IL', '34 Oak Ave', 'y'],
    ];
    expect(guessColumns(records, false)).toMatchObject({ kind: 'single', column: 0 });
    // ...and a column that does so more often wins wherever it is.
    expect(guessColumns([...records, ['Nowhere', '56 Pine Rd', 'z']], false)).toMatchObject({
      kind: 'single',
      column: 1,
    });
  });

  it('joins the parts, leaving out blank ones', () => {
    const parts = { kind: 'parts', street: 0, city: 1, state: 2, zip: 3 } as const;
    expect(joinAddress([' 1100 Congress Ave ', 'Austin', 'TX', '78701'], parts)).toBe(
      '1100 Congress Ave, Austin, TX 78701',
    );
    expect(joinAddress(['1100 Congress Ave', '', 'TX', ''], parts)).toBe('1100 Congress Ave, TX');
    expect(joinAddress(['1100 Congress Ave'], parts)).toBe('1100 Congress Ave');
  });

  it('gives the addresses of the data rows, and says when the chosen column is empty', () => {
    const table = {
      records: [
        ['name', 'address'],
        ['A', '1 Main St'],
        ['B', ''],
      ],
      rowNumbers: [1, 2, 3],
      blankLines: 0,
      delimiter: ',',
      columns: 2,
    };
    expect(addresses(table, true, { kind: 'single', column: 1 })).toEqual(['1 Main St', '']);
    expect(() => addresses(table, true, { kind: 'single', column: 0 })).not.toThrow();
    expect(() => addresses(table, true, { kind: 'single', column: 5 })).toThrow(/empty in every row/);
    expect(() =>
      addresses({ ...table, records: [['address']] }, true, { kind: 'single', column: 0 }),
    ).toThrow(/header row but no addresses/);
    expect(columnNames(table, true)).toEqual(['1 · name', '2 · address']);
    expect(columnNames(table, false)).toEqual(['Column 1', 'Column 2']);
    // What each column holds: its first filled cell below the header.
    expect(columnExamples(table, true)).toEqual(['A', '1 Main St']);
    expect(columnExamples(table, false)).toEqual(['name', 'address']);
  });
});

describe('column mapping from messy real files', () => {
  it('finds ZIP, state and city columns by their values when the headers are in another language', async () => {
    const table = await parseCsv(
      'Straße;Ort;Bundesland;PLZ\n1100 Congress Ave;Austin;TX;78701\n24 Main St;Chatham;NJ;7976\n',
    );
    const hasHeader = detectHeader(table.records);
    expect(hasHeader).toBe(true);
    const choice = guessColumns(table.records, hasHeader);
    expect(choice).toMatchObject({ kind: 'parts', street: 0, city: 1, state: 2, zip: 3, unit: null });
    // The ZIP that lost its leading zero comes back.
    expect(addresses(table, hasHeader, choice)).toEqual([
      '1100 Congress Ave, Austin, TX 78701',
      '24 Main St, Chatham, NJ 07976',
    ]);
  });

  it('joins a Unit column to the street', async () => {
    const table = await parseCsv(
      'Street,Unit,City,State,Zip\n615 Bourbon St,2,New Orleans,LA,70116\n615 Bourbon St,Apt 3,New Orleans,LA,70116\n',
    );
    const choice = guessColumns(table.records, true);
    expect(choice).toMatchObject({ kind: 'parts', street: 0, unit: 1 });
    expect(addresses(table, true, choice)).toEqual([
      '615 Bourbon St Unit 2, New Orleans, LA 70116',
      '615 Bourbon St Apt 3, New Orleans, LA 70116',
    ]);
  });
});
