import { describe, expect, it } from 'vitest';
import { fold, foldAny, searchTextOf } from './search-text.ts';

/* The short way for printable ASCII folds as the whole rule does: an entry is found by the same texts either way. */
describe('folding printable ASCII the short way', () => {
  it('gives what the whole rule gives, for every character and for mixed texts', () => {
    const ascii = Array.from({ length: 0x7f - 0x20 }, (_, i) => String.fromCharCode(0x20 + i));
    for (const c of ascii) expect(fold(c)).toBe(foldAny(c));
    let seed = 7;
    const next = () => {
      seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31;
      return seed;
    };
    for (let n = 0; n < 500; n++) {
      const text = Array.from({ length: next() % 40 }, () => ascii[next() % ascii.length]).join('');
      expect(fold(text)).toBe(foldAny(text));
    }
    expect(fold('1100 Congress AVE, Austin, TX 78701')).toBe('1100 congress ave, austin, tx 78701');
  });

  it('leaves any other text to the whole rule', () => {
    for (const text of ['STRASSE Straße', 'ΟΔΟΣ', 'İSTANBUL', 'tab\there', 'ﬁeld １２', 'x\u007fy'])
      expect(fold(text)).toBe(foldAny(text));
    expect(fold('Straße')).toBe('strasse');
    expect(fold('a\tb')).toBe('a b');
    expect(searchTextOf({ query: '12 MAIN St', property_id: 'P-1' })).toBe('12 main st\np-1');
  });
});
