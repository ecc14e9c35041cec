import { describe, expect, it } from 'vitest';
import { MAX_INPUT_BYTES, MAX_REVIEW_ROWS, pastedLines, prepareRows } from './rows.ts';

describe('pastedLines', () => {
  it('splits on any line ending, drops a BOM and the break after the last line', () => {
    expect(pastedLines('\uFEFF1 Main St\r\n2 Main St\r3 Main St\n')).toEqual([
      '1 Main St',
      '2 Main St',
      '3 Main St',
    ]);
    expect(pastedLines('1 Main St\n\n')).toEqual(['1 Main St', '']);
  });

  it('refuses more than 20 MB of text', () => {
    expect(() => pastedLines('a'.repeat(MAX_INPUT_BYTES + 1))).toThrow(/more than 20 MB/);
    // Measured in bytes: 2-byte letters count twice.
    expect(() => pastedLines('é'.repeat(MAX_INPUT_BYTES / 2 + 1))).toThrow(/more than 20 MB/);
  });
});

describe('prepareRows', () => {
  it('skips and counts blank lines; rows keep their input order', () => {
    const out = prepareRows(['1 Main St', '', '   ', '2 Main St']);
    expect(out.rows.map((r) => [r.index, r.input, r.outcome])).toEqual([
      [0, '1 Main St', 'pending'],
      [1, '2 Main St', 'pending'],
    ]);
    expect(out.skippedBlank).toBe(2);
  });

  it('refuses a row over 512 characters with its own failed outcome, and the rest go on', () => {
    const long = `1 ${'Long '.repeat(103)}St`;
    expect(long.length).toBeGreaterThan(512);
    const out = prepareRows(['1 Main St', long, '2 Main St']);
    expect(out.rows[1]).toEqual({
      index: 1,
      input: long,
      outcome: 'failed',
      error: {
        code: 'bad_request',
        message: 'Longer than 512 characters: shorten it to the street address.',
      },
    });
    expect(out.rows.map((r) => r.outcome)).toEqual(['pending', 'failed', 'pending']);
    expect(out.refused).toBe(1);
    // Exactly 512 is an address like any other.
    expect(prepareRows(['x'.repeat(512)]).rows[0]?.outcome).toBe('pending');
  });

  it('refuses web links and lines without a letter or digit the same way, before they spend a lookup', () => {
    const out = prepareRows([
      'https://zillow.com/homedetails/123',
      'www.example.com/1-main-st',
      '!!!!',
      '78701',
      'asdf',
      '1 Main St',
    ]);
    expect(out.rows.map((r) => r.outcome)).toEqual([
      'failed',
      'failed',
      'failed',
      'pending',
      'pending',
      'pending',
    ]);
    expect(out.rows[0]?.error?.message).toBe('A web link, not a street address: paste the address itself.');
    expect(out.rows[2]?.error?.message).toBe('No letters or numbers: not an address.');
    expect(out.refused).toBe(3);
  });

  it('refuses control characters the same way', () => {
    const out = prepareRows(['1 Main\u0007 St']);
    expect(out.rows[0]).toMatchObject({ outcome: 'failed', error: { code: 'bad_request' } });
  });

  it('keeps duplicates in place and counts them (same address in other case or spacing)', () => {
    const out = prepareRows(['1 Main St, Austin', '2 Oak Ave', ' 1 MAIN st ,  austin ']);
    expect(out.rows.map((r) => r.input)).toEqual(['1 Main St, Austin', '2 Oak Ave', '1 MAIN st ,  austin']);
    expect(out.rows.every((r) => r.outcome === 'pending')).toBe(true);
    expect(out.duplicates).toBe(1);
  });

  it('takes 100,000 rows and refuses the 100,001st, blank lines not counting', () => {
    const lines = Array.from({ length: MAX_REVIEW_ROWS }, (_, i) => `${i} Main St`);
    expect(prepareRows([...lines, '', '']).rows).toHaveLength(MAX_REVIEW_ROWS);
    expect(() => prepareRows([...lines, '1 Extra St'])).toThrow(/more than 100,000 addresses/);
    // Two passes over 100,000 rows: 2 to 7 s on two shared cores under a load of 10 to 16.
  }, 30_000);

  it('keeps every data row: one with no address stays, by its parcel number or answered "no address"', () => {
    const out = prepareRows([
      { address: '1 Main St', cells: ['A1', '1 Main St'], sourceRow: 2 },
      { address: '', cells: ['A2', ''], sourceRow: 3, parcel: 'A2' },
      { address: '', cells: ['note only', ''], sourceRow: 5 },
      { address: '', cells: ['', ' '], sourceRow: 6 },
      { address: '', cells: ['A2', ''], sourceRow: 7, parcel: 'a-2' },
    ]);
    expect(out.rows.map((r) => [r.index, r.sourceRow, r.input, r.parcel, r.outcome, r.error?.code])).toEqual([
      [0, 2, '1 Main St', undefined, 'pending', undefined],
      [1, 3, '', 'A2', 'pending', undefined],
      [2, 5, '', undefined, 'failed', 'no_address'],
      [3, 7, '', 'a-2', 'pending', undefined],
    ]);
    expect(out).toMatchObject({ byParcel: 2, noAddress: 1, skippedBlank: 1, refused: 0, duplicates: 1 });
  });

  it('names the real cause when a row holds tabs (cells of a spreadsheet on one line)', () => {
    const out = prepareRows(['12 Main St\tAustin\tTX']);
    expect(out.rows[0]?.error?.message).toMatch(/tab characters \(cells copied from a spreadsheet\)/);
  });
});
