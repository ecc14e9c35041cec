import { describe, expect, it } from 'vitest';
import { costText, lookupsOf } from './review-cost.tsx';
import { prepareRows } from './rows.ts';

describe('what a review will cost, said before Start', () => {
  it('counts one lookup per distinct address: repeats, refused rows and rows without an address spend none', () => {
    const prepared = prepareRows([
      '1100 Congress Ave, Austin, TX 78701',
      '1100 CONGRESS AVE,  Austin, TX 78701',
      '233 S Wacker Dr, Chicago, IL 60606',
      'https://example.com/listing/1',
      '',
    ]);
    expect(lookupsOf({ kind: 'paste', prepared, defaultName: 'x' })).toBe(2);
  });

  it('says the time at the account’s pace, and the most it can spend', () => {
    expect(costText(1_240, 60)).toBe(
      '1,240 lookups at most: about 21 min at 60 lookups a minute, your key’s current pace (addresses already cached go faster).',
    );
    expect(costText(7_170, 60)).toContain('about 2 h at');
    expect(costText(20_000, 60)).toContain('about 5 h 34 min');
    expect(costText(30, 60)).toContain('under a minute');
    expect(costText(12, null)).toBe('12 lookups at most.');
  });
});
