import { describe, expect, it } from 'vitest';
import { isTabbed, notAnAddress, readPastedLines } from './paste.ts';
import { pastedLines, prepareRows } from './rows.ts';

const EMAIL = `Hi all,

Please pull records for these before Friday:
1. 271 Gloucester Rd apt. 201, Austin TX 78701
2) 1100 Congress Ave, Austin, TX
- 233 S Wacker Dr, Chicago IL
Main Street

Thanks!
Jane Doe
Senior Analyst | Acme Lending
Phone: (512) 555-0100
512-555-0199
jane.doe@acme.example
https://acme.example/deals/7
`;

describe('pasted text', () => {
  it('sets prose, phone, email and link lines aside with their line numbers, and drops list numbers', () => {
    const { rows, setAside } = readPastedLines(pastedLines(EMAIL));
    const prepared = prepareRows(rows);
    expect(prepared.rows.map((r) => [r.sourceRow, r.input])).toEqual([
      [4, '271 Gloucester Rd apt. 201, Austin TX 78701'],
      [5, '1100 Congress Ave, Austin, TX'],
      [6, '233 S Wacker Dr, Chicago IL'],
      [7, 'Main Street'],
    ]);
    expect(prepared.skippedBlank).toBe(2);
    expect(setAside.map((l) => [l.line, l.why])).toEqual([
      [1, 'no house number or street'],
      [3, 'a heading'],
      [9, 'no house number or street'],
      [10, 'no house number or street'],
      [11, 'no house number or street'],
      [12, 'a phone number'],
      [13, 'a phone number'],
      [14, 'an email address'],
      [15, 'a web link'],
    ]);
  });

  it('keeps what may be an address: a number, a ZIP, a street word', () => {
    for (const line of [
      '78701',
      '12 Hauptstraße',
      'Oak Avenue',
      '1100 Congress',
      'Unit 301, 140 Waterloo Rd',
      // Parcel numbers copied from records: looked up, never taken for phone numbers.
      '48453-271-8281',
      '01-234-567',
      '123-456-78-9',
    ])
      expect(notAnAddress(line)).toBeNull();
    for (const corner of ['Congress Ave & 6th St', 'corner of 6th and Congress', 'Lamar at 5th'])
      expect(notAnAddress(corner), corner).toBe('a street corner, not a property');
    // "c/o" is no corner: a line without a number or a street is said to be that.
    expect(notAnAddress('c/o the front desk')).toBe('no house number or street');
    for (const phone of ['512-555-0199', '(512) 555-0100', '+44 20 7946 0958', '555 0100', '1 512 555 0100'])
      expect(notAnAddress(phone), phone).toBe('a phone number');
  });

  it('tells spreadsheet rows (tabs) from lines', () => {
    expect(isTabbed(['Street\tCity', '12 Main St\tAustin', ''])).toBe(true);
    expect(isTabbed(['12 Main St', '14 Oak Ave\tnote', '16 Elm St'])).toBe(false);
  });
});
