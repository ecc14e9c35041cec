import { describe, expect, it } from 'vitest';
import { parcelIndex, parcelNumber } from './parcels.ts';

describe('parcel numbers', () => {
  it("look like a county assessor's: the county FIPS code, a book and a parcel", () => {
    expect(parcelNumber('48453', 0)).toMatch(/^48453-\d{3}-\d{4}$/);
  });

  it('lead back to the position they were made from, for every dataset size allowed', () => {
    for (const index of [0, 1, 2, 999, 123_456, 999_999, 4_999_999]) {
      expect(parcelIndex(parcelNumber('06037', index))).toBe(index);
      expect(parcelIndex(`${parcelNumber('06037', index)}-0004`)).toBe(index);
    }
  });

  it('never repeat', () => {
    const seen = new Set<string>();
    for (let i = 0; i < 200_000; i++) seen.add(parcelNumber('17031', i));
    expect(seen.size).toBe(200_000);
  });

  it('are not taken from text that is no parcel number', () => {
    expect(parcelIndex('78701')).toBeNull();
    expect(parcelIndex('48453-27-8281')).toBeNull();
    expect(parcelIndex('1100 Congress Ave')).toBeNull();
  });
});
