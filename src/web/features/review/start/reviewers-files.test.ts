/*
 * Files as reviewers bring them, from the hostile review of issue 27 (R1, R2, R4, R5, R8, R11, R15, R16, R26):
 * each case is the shape of a real export that the form read wrong.
 */
import { describe, expect, it } from 'vitest';
import { MAX_REVIEW_COLUMNS } from '../../../../contract/index.ts';
import { classifyHeader, findHeader, guessMapping, joinAddress, plausibleChoices } from './columns.ts';
import { decodeText, parseCsv, tableRows } from './csv.ts';
import { guessed, tableDraft } from './loaded.ts';
import { notAnAddress } from './paste.ts';
import { prepareRows } from './rows.ts';

const ASSESSOR_HEADER =
  'APN,Owner Name,Mailing Address,Mailing City,Mailing State,Mailing Zip,Situs No,Situs Street,Unit #,Situs City,ST,Zip,Land Use';

/** What each row of a file sends, by its row in the spreadsheet, as the form reads it untouched. */
async function sends(text: string) {
  const loaded = guessed(await parseCsv(text));
  const draft = tableDraft(loaded);
  if ('error' in draft) throw new Error(draft.error);
  return draft.prepared.rows.map((r) => [
    r.sourceRow,
    r.input || (r.parcel ? `parcel ${r.parcel}` : r.outcome),
  ]);
}

describe('R1: a title line, blank lines or Excel’s sep= line above the header', () => {
  it('finds the header below a title and a blank line, reads the situs columns, and numbers rows as the sheet does', async () => {
    const text = [
      'Travis County Appraisal District - Parcel export run 2026-11-01',
      '',
      ASSESSOR_HEADER,
      '37119-028-4680,OWNER 0,71 E 2nd St,Jeffersonville,GA,31044,490,PATE RD,,CHARLOTTE,NC,28235,SFR',
      '12001-656-7866,OWNER 1,341 Cedar Ave,Kennedy,MN,56733,251,MARY ST,,GAINESVILLE,FL,32609,SFR',
    ].join('\r\n');
    const table = await parseCsv(text);
    expect(findHeader(table.records)).toBe(1);
    const loaded = guessed(table);
    expect(loaded.hasHeader).toBe(true);
    expect(loaded.unsure).toBe(false);
    expect(await sends(text)).toEqual([
      [4, '490 PATE RD, CHARLOTTE, NC 28235'],
      [5, '251 MARY ST, GAINESVILLE, FL 32609'],
    ]);
    // The export keeps the file's own column names, not column_1 …
    const draft = tableDraft(loaded);
    expect('prepared' in draft && draft.prepared.columns?.slice(0, 3)).toEqual([
      'APN',
      'Owner Name',
      'Mailing Address',
    ]);
  });

  it('reads "sep=;" as the delimiter, not data, and counts it as line 1', async () => {
    const text = 'sep=;\r\nObjekt-Nr.;Straße;Hausnr.;PLZ;Ort\r\nO-1;Wolf Trl;350;21239;Baltimore\r\n';
    const table = await parseCsv(text);
    expect(table.delimiter).toBe(';');
    expect(table.records[0]).toEqual(['Objekt-Nr.', 'Straße', 'Hausnr.', 'PLZ', 'Ort']);
    expect(await sends(text)).toEqual([[3, '350 Wolf Trl, Baltimore, 21239']]);
  });

  it('does not take a data row for a header, nor a title that names no column', () => {
    expect(findHeader([['Parcel export run 2026-11-01'], ['12 Main St, Austin TX']])).toBeNull();
    expect(findHeader([['Address list'], ['Address', 'City'], ['12 Main St', 'Austin']])).toBe(1);
    expect(findHeader([['Address'], ['Parcel export'], ['Address']])).toBe(0);
    expect(findHeader([['Export'], ['Address']])).toBe(1);
    // A unit cell that reads like a column's name is data.
    expect(
      findHeader([
        ['12 Main St', '', 'Austin'],
        ['14 Oak Ave', 'APT', 'Austin'],
      ]),
    ).toBeNull();
  });
});

describe('R2: headers written without spaces', () => {
  it('splits SitusAddress, MailingCity, ZIPCode before matching, and sends the property’s address', async () => {
    expect(classifyHeader('SitusAddress')).toEqual({ role: 'address', mailing: false, property: true });
    expect(classifyHeader('MailingCity')).toEqual({ role: 'city', mailing: true, property: false });
    expect(classifyHeader('ZIPCode').role).toBe('zip');
    expect(classifyHeader('ParcelID').role).toBe('parcel');
    const text =
      'OwnerName,MailingAddress,MailingCity,MailingState,MailingZip,SitusAddress,SitusCity,SitusState,SitusZip\n' +
      'A,361 S Broadway St,Penn Yan,NY,14527,310 Carpenter Ter,Huntsville,AL,35808\n' +
      'B,261 Jefferson Ave,Johnson,AR,72741,100 Main St,Suring,WI,54174\n';
    expect(await sends(text)).toEqual([
      [2, '310 Carpenter Ter, Huntsville, AL 35808'],
      [3, '100 Main St, Suring, WI 54174'],
    ]);
  });

  it('does not take a column of names for the city because its cells are letters', () => {
    // No header names anything: the city is the letters column just before the state.
    const records = [
      ['Ann Lee', '12 Main St', 'Austin', 'TX', '78701'],
      ['Bo Diaz', '14 Oak Ave', 'Dallas', 'TX', '75201'],
    ];
    const { choice } = guessMapping(records, false);
    expect(joinAddress(records[0] as string[], choice)).toBe('12 Main St, Austin, TX 78701');
    const noCity = [
      ['Ann Lee', '12 Main St', 'TX', '78701'],
      ['Bo Diaz', '14 Oak Ave', 'TX', '75201'],
    ];
    expect(joinAddress(noCity[0] as string[], guessMapping(noCity, false).choice)).toBe(
      '12 Main St, TX 78701',
    );
  });
});

describe('R11: only the owner’s mailing address in the file', () => {
  it('joins the mailing city, state and ZIP to the mailing street', async () => {
    const text =
      'Owner,Mailing Address,Mailing City,Mailing State,Mailing Zip\nOwner 0,530 N 3rd St,Joplin,MO,64804\n';
    expect(await sends(text)).toEqual([[2, '530 N 3rd St, Joplin, MO 64804']]);
  });
});

describe('R11 and R2: choices offered beside a guess', () => {
  it('never offers a column named for something else (an owner’s name) as the address', () => {
    const records = [
      ['Owner', 'Mailing Address', 'Mailing City'],
      ['Owner 0', '530 N 3rd St', 'Joplin'],
      ['Owner 1', '20 Keys Blvd', 'El Paso'],
    ];
    const offered = plausibleChoices(records, true, { kind: 'single', column: 1, parcel: null });
    expect(offered.map((c) => (c.kind === 'single' ? c.column : c.street))).not.toContain(0);
  });
});

describe('R4: a row with no usable street is looked up by its parcel number', () => {
  it('uses the parcel when the house number is 0 or the street is blank beside a city and ZIP', async () => {
    const text =
      'APN,Situs No,Situs Street,Situs City,ST,Zip\n' +
      '45019-041-7397,0,E MAPLE ST,CHARLESTON,SC,29417\n' +
      '45019-041-7398,,,CHARLESTON,SC,29417\n' +
      ',,,CHARLESTON,SC,29417\n' +
      ',0,E MAPLE ST,CHARLESTON,SC,29417\n' +
      '45019-041-7399,170,E MAPLE ST,CHARLESTON,SC,29417\n';
    expect(await sends(text)).toEqual([
      [2, 'parcel 45019-041-7397'],
      [3, 'parcel 45019-041-7398'],
      // A city and ZIP alone are no property: kept, answered "no address", never a lookup.
      [4, 'failed'],
      // A vacant lot without a parcel number: the street, without the 0.
      [5, 'E MAPLE ST, CHARLESTON, SC 29417'],
      [6, '170 E MAPLE ST, CHARLESTON, SC 29417'],
    ]);
  });
});

describe('R5: unit cells', () => {
  const choice = { kind: 'parts', street: 0, city: 2, state: null, zip: null, unit: 1 } as const;
  it.each([
    ['REAR', '460 OAK RD REAR, BUSHTON'],
    ['UPPER', '460 OAK RD UPPER, BUSHTON'],
    ['bsmt', '460 OAK RD bsmt, BUSHTON'],
    ['FRNT', '460 OAK RD FRNT, BUSHTON'],
    ['0', '460 OAK RD, BUSHTON'],
    ['-', '460 OAK RD, BUSHTON'],
    ['N/A', '460 OAK RD, BUSHTON'],
    ['NONE', '460 OAK RD, BUSHTON'],
    ['null', '460 OAK RD, BUSHTON'],
    ['2', '460 OAK RD Unit 2, BUSHTON'],
    ['APT 2', '460 OAK RD APT 2, BUSHTON'],
    ['#2', '460 OAK RD #2, BUSHTON'],
  ])('"%s" → %s', (unit, address) => {
    expect(joinAddress(['460 OAK RD', unit, 'BUSHTON'], choice)).toBe(address);
  });
});

describe('R8: a line break inside a cell', () => {
  it('is joined with ", " and looked up, not refused as a control character', async () => {
    const text =
      '\uFEFFAddress,Note\r\n"580 Morales Rd\nNew York, NY 10037","two\nlines"\r\n"12 Main St,\r\nAustin TX",\r\n';
    const table = await parseCsv(text);
    const prepared = prepareRows(tableRows(table, true, { kind: 'single', column: 0 }));
    expect(prepared.rows.map((r) => [r.sourceRow, r.input, r.outcome])).toEqual([
      [2, '580 Morales Rd, New York, NY 10037', 'pending'],
      [3, '12 Main St, Austin TX', 'pending'],
    ]);
    expect(prepared.refused).toBe(0);
    // The reviewer's own cells come back as they were.
    expect(prepared.rows[0]?.cells?.[1]).toBe('two\nlines');
  });
});

describe('R15: a UTF-8 file with a stray Windows-1252 byte', () => {
  it('stays UTF-8, reads that line alone as Windows-1252, and names it', () => {
    const enc = new TextEncoder();
    const bytes = new Uint8Array([
      ...enc.encode(
        'Address;Note\r\n12 Main St;Größe ok – Müller\r\n14 Oak Ave;Straße gegenüber\r\n9 Elm St;',
      ),
      0x80,
      ...enc.encode(' 5\r\n'),
    ]);
    expect(decodeText(bytes)).toEqual({
      text: 'Address;Note\r\n12 Main St;Größe ok – Müller\r\n14 Oak Ave;Straße gegenüber\r\n9 Elm St;€ 5\r\n',
      encoding: 'utf-8',
      otherLines: [4],
    });
  });

  it('reads a file with no UTF-8 letters at all as Windows-1252, as before', () => {
    const bytes = Uint8Array.from(
      'Straße;Café\nMüller;1',
      (c) => ({ ß: 0xdf, é: 0xe9, ü: 0xfc })[c] ?? c.charCodeAt(0),
    );
    expect(decodeText(bytes)).toEqual({ text: 'Straße;Café\nMüller;1', encoding: 'windows-1252' });
  });
});

describe('R16: a CSV wider than a review’s columns', () => {
  it('keeps the mapped columns and the first of the rest, so the review starts', async () => {
    const width = 250;
    const header = Array.from({ length: width }, (_, i) => (i === 229 ? 'Address' : `F${i + 1}`));
    const row = Array.from({ length: width }, (_, i) =>
      i === 229 ? '"12 Main St, Austin TX"' : `v${i + 1}`,
    );
    const draft = tableDraft(guessed(await parseCsv(`${header.join(',')}\n${row.join(',')}\n`)));
    if ('error' in draft) throw new Error(draft.error);
    const columns = draft.prepared.columns ?? [];
    expect(columns).toHaveLength(MAX_REVIEW_COLUMNS);
    expect(columns.at(0)).toBe('F1');
    expect(columns.at(-2)).toBe(`F${MAX_REVIEW_COLUMNS - 1}`);
    expect(columns.at(-1)).toBe('Address');
    const first = draft.prepared.rows[0];
    expect(first?.input).toBe('12 Main St, Austin TX');
    expect(first?.cells).toHaveLength(MAX_REVIEW_COLUMNS);
    expect(first?.cells?.at(-1)).toBe('12 Main St, Austin TX');
  });
});

describe('R26: a pasted e-mail’s quoted lines', () => {
  it('are set aside, whatever they hold', () => {
    expect(notAnAddress('> 3 properties attached')).toBe('a quoted line of an e-mail');
    expect(notAnAddress('>> 12 Main St, Austin TX')).toBe('a quoted line of an e-mail');
    expect(notAnAddress('12 Main St, Austin TX')).toBeNull();
  });
});
