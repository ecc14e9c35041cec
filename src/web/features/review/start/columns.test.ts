import { describe, expect, it } from 'vitest';
import {
  classifyHeader,
  detectHeader,
  guessMapping,
  joinAddress,
  lacksPlace,
  plausibleChoices,
} from './columns.ts';
import { parseCsv, tableRows } from './csv.ts';

/** A header and one row of cells under it, as real files have them. */
const file = (header: string[], ...rows: string[][]) => [header, ...rows];

describe('column detection that knows real headers', () => {
  it.each([
    // A county assessor's export: split house number and street, "ST" for the state, a mailing address after.
    [
      'assessor, split',
      file(
        [
          'APN',
          'Situs No',
          'Situs Street',
          'Unit #',
          'Situs City',
          'ST',
          'Zip',
          'Mailing Address',
          'Mailing City',
        ],
        ['0123-456-789', '12', 'Main St', '4B', 'Austin', 'TX', '78701', '9 Owner Rd', 'Dallas'],
      ),
      { kind: 'parts', street: 2, number: 1, unit: 3, city: 4, state: 5, zip: 6, parcel: 0 },
      '12 Main St Unit 4B, Austin, TX 78701',
    ],
    // The mailing address comes first, but it is the owner's: the situs address is the property's.
    [
      'assessor, whole',
      file(
        ['Parcel Number', 'Mailing Address', 'Situs Address', 'Situs City', 'Situs Zip'],
        ['R-1', 'PO Box 9', '1100 Congress Ave', 'Austin', '78701'],
      ),
      { kind: 'parts', street: 2, number: null, city: 3, state: null, zip: 4, parcel: 0 },
      '1100 Congress Ave, Austin, 78701',
    ],
    [
      'property address alone',
      file(
        ['Owner', 'Mailing Address', 'Property Address'],
        ['Ann', '9 Owner Rd, Dallas TX', '12 Main St, Austin TX'],
      ),
      { kind: 'single', column: 2, parcel: null },
      '12 Main St, Austin TX',
    ],
    // German Excel: an object number (not a house number) first, street and house number apart.
    [
      'German, object number',
      file(
        ['Objekt-Nr.', 'Straße', 'Hausnr.', 'PLZ', 'Ort', 'Bundesland'],
        ['OBJ-1', 'Congress Ave', '1100', '78701', 'Austin', 'TX'],
      ),
      { kind: 'parts', street: 1, number: 2, zip: 3, city: 4, state: 5 },
      '1100 Congress Ave, Austin, TX 78701',
    ],
    // German Excel: street and house number apart, PLZ before Ort, a flat number.
    [
      'German',
      file(
        ['Flurstück', 'Straße', 'Hausnr.', 'Whg.-Nr.', 'PLZ', 'Ort'],
        ['12/3', 'Hauptstraße', '5a', '3', '10115', 'Berlin'],
      ),
      { kind: 'parts', street: 1, number: 2, unit: 3, zip: 4, city: 5, state: null, parcel: 0 },
      '5a Hauptstraße Unit 3, Berlin, 10115',
    ],
    [
      'Spanish',
      file(['Dirección', 'Ciudad', 'CP'], ['Calle Mayor 5', 'Madrid', '28013']),
      { kind: 'parts', street: 0, city: 1, zip: 2, state: null },
      'Calle Mayor 5, Madrid, 28013',
    ],
    [
      'French',
      file(['Adresse', 'Ville', 'Code postal'], ['12 rue de Rivoli', 'Paris', '75001']),
      { kind: 'parts', street: 0, city: 1, zip: 2, state: null },
      '12 rue de Rivoli, Paris, 75001',
    ],
    [
      'PIN, numbered street',
      file(
        ['PIN', 'House Number', 'Street Name', 'City', 'State'],
        ['17-10-100', '233', 'S Wacker Dr', 'Chicago', 'IL'],
      ),
      { kind: 'parts', street: 2, number: 1, city: 3, state: 4, parcel: 0 },
      '233 S Wacker Dr, Chicago, IL',
    ],
  ])('%s', (_, records, expected, address) => {
    expect(detectHeader(records)).toBe(true);
    const { choice, byHeader } = guessMapping(records, true);
    expect(choice).toMatchObject(expected);
    expect(byHeader).toBe(true);
    expect(joinAddress(records[1] as string[], choice)).toBe(address);
  });

  it('folds accents, ß and punctuation before matching, and tells the mailing address from the property', () => {
    expect(classifyHeader('STRASSE').role).toBe('street');
    expect(classifyHeader(' Straße ').role).toBe('street');
    expect(classifyHeader('Código Postal').role).toBe('zip');
    expect(classifyHeader('Unit #').role).toBe('unit');
    expect(classifyHeader('Mailing City')).toEqual({ role: 'city', mailing: true, property: false });
    expect(classifyHeader('Situs City')).toEqual({ role: 'city', mailing: false, property: true });
    expect(classifyHeader('Loan amount').role).toBeNull();
  });

  it('never takes a mailing address for the property, even as the only address-named column', () => {
    const records = file(
      ['Loan', 'Mailing Address', 'Collateral'],
      ['L1', '9 Owner Rd, Dallas TX', '12 Main St, Austin TX'],
    );
    const { choice, byHeader } = guessMapping(records, true);
    expect(choice).toMatchObject({ kind: 'single', column: 2 });
    // Guessed from the cells, not named: the form asks the reviewer to check.
    expect(byHeader).toBe(false);
  });

  it('does not take a data row for a header for a "No" in a yes/no column', () => {
    expect(
      detectHeader([
        ['12 Main St, Austin TX', 'No'],
        ['14 Oak Ave, Austin TX', 'Yes'],
      ]),
    ).toBe(false);
    expect(
      detectHeader([
        ['Address', 'No'],
        ['14 Oak Ave, Austin TX', '12'],
      ]),
    ).toBe(true);
  });

  it('does not join a "No." column that is a row counter, far from the street', () => {
    const records = file(['No.', 'Name', 'Street', 'City'], ['1', 'Ann', '12 Main St', 'Austin']);
    expect(guessMapping(records, true).choice).toMatchObject({ street: 2, number: null });
  });

  it('numbers rows as the spreadsheet does: the header is row 1, blank rows counted, a quoted break one row', async () => {
    const table = await parseCsv(
      'APN,Address\r\nA1,"12 Main St\r\nRear"\r\n\r\nA2,\r\n,\r\nA3,14 Main St\r\n',
    );
    const rows = tableRows(table, true, { kind: 'single', column: 1, parcel: 0 });
    expect(rows.map((r) => [r.sourceRow, r.address, r.parcel])).toEqual([
      // A line break inside a cell (Excel's Alt+Enter) is written on one line.
      [2, '12 Main St, Rear', 'A1'],
      [4, '', 'A2'],
      [6, '14 Main St', 'A3'],
    ]);
    expect(table.blankLines).toBe(2);
  });

  it('says when addresses give no town, and offers the other columns that hold addresses', () => {
    expect(lacksPlace(['12 Main St', '14 Oak Ave'])).toBe(true);
    expect(lacksPlace(['12 Main St, Austin', '14 Oak Ave TX'])).toBe(false);
    expect(lacksPlace(['12 Main St 78701', '14 Oak Ave'])).toBe(false);
    const records = file(['a', 'b', 'c'], ['12 Main St', 'Ann', '12 Main St, Austin TX 78701']);
    expect(plausibleChoices(records, true, { kind: 'single', column: 0, parcel: null })).toEqual([
      { kind: 'single', column: 2, parcel: null },
    ]);
  });
});
