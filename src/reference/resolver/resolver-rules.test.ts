import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, describe, expect, it } from 'vitest';
import { buildDatabase } from '../dataset/database.ts';
import type { GeneratedProperty } from '../dataset/generate.ts';
import type { ResolveOutcome } from '../store.ts';
import { SqlitePropertyStore } from './sqlite-store.ts';

/**
 * The resolver's rules on a hand-made town where every hard case is present on purpose: streets one typo
 * apart, one name with two suffixes, streets named after directions and ordinals, a building with units.
 */

let n = 0;
function rec(
  house: string,
  street: string,
  zip: string,
  city: string,
  unit: string | null = null,
): GeneratedProperty {
  n++;
  return {
    property_id: `pi_test${String(n).padStart(4, '0')}`,
    address: `${house} ${street}${unit ? ` Apt ${unit}` : ''}, ${city}, NY ${zip}`,
    street_number: house,
    street_name: street,
    unit,
    city,
    state: 'NY',
    zip,
    county: 'Test County',
    source: 'Test County Assessor',
    source_kind: 'assessor',
    confidence: n % 3 === 0 ? 'low' : 'high',
    last_verified: '2026-10-01',
    parcel_number: `36001-001-${String(n).padStart(3, '0')}${unit ? `-${unit.padStart(4, '0')}` : ''}`,
    property_type: unit ? 'apartment_unit' : 'single_family',
    year_built: 1990,
    living_area_sqft: 1500,
    lot_size_sqft: 5000,
    bedrooms: 3,
    bathrooms: 2,
    assessed_value: 300_000,
    last_sale_date: null,
    last_sale_price: null,
    street_display: street,
  };
}

const RIVERTON = ['11111', 'Riverton'] as const;
const VALLEY = ['22222', 'Pleasant Valley'] as const;
const records = [
  rec('100', 'River Rd', ...RIVERTON),
  rec('102', 'River Rd', ...RIVERTON),
  rec('150', 'Rover Rd', ...RIVERTON),
  rec('150', 'Oak St', ...RIVERTON),
  rec('150', 'Oak Ave', ...RIVERTON),
  rec('152', 'Oak Ave', ...RIVERTON),
  rec('10', 'W St', ...RIVERTON),
  rec('5', 'S East St', ...RIVERTON),
  rec('20', 'Valley View Dr', ...RIVERTON),
  rec('7', '2nd Ave', ...RIVERTON),
  rec('100', 'Main St', ...RIVERTON),
  rec('100', 'Main St', ...RIVERTON, '1'),
  rec('100', 'Main St', ...RIVERTON, '2'),
  rec('100', 'Main St', ...VALLEY),
  rec('40', 'Hill St', ...VALLEY),
];

const dir = mkdtempSync(join(tmpdir(), 'proplens-rules-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const path = join(dir, 'town.sqlite');
buildDatabase(path, records, { records: records.length, seed: 0 });
const store = new SqlitePropertyStore(new Database(path, { readonly: true }));

const found = (o: ResolveOutcome) => (o.kind === 'found' ? o.property.address : o.kind);

describe('typos', () => {
  it.each([
    ['150 Rivre Rd 11111', 'not_found'], // River Rd has no 150: never the 150 of another street
    ['100 Rivre Rd 11111', '100 River Rd, Riverton, NY 11111'], // a swap in a word stored as RIV
    ['10 Wset St, Riverton, NY', '10 W St, Riverton, NY 11111'], // a street named after a direction
    ['10 Wst St 11111', '10 W St, Riverton, NY 11111'],
    ['5 S Eats St 11111', '5 S East St, Riverton, NY 11111'],
    ['5 South East Street 11111', '5 S East St, Riverton, NY 11111'], // not the directional SE
    ['20 Vally View Dr 11111', '20 Valley View Dr, Riverton, NY 11111'],
    ['20 Valley View 11111', '20 Valley View Dr, Riverton, NY 11111'],
    ['7 Secnod Ave 11111', '7 2nd Ave, Riverton, NY 11111'], // an ordinal written out, with a swap
    ['40 Hlil St, Pleasant Vally, NY', '40 Hill St, Pleasant Valley, NY 22222'], // two typos, HL and VLY stored
    ['100 Main St, Plesant Valey, NY 22222', '100 Main St, Pleasant Valley, NY 22222'], // the ZIP wins
    // A city nothing like the ZIP's but one typo from another town's: the ZIP was the mistake.
    ['100 Main St, Rivertno, NY 22222', '100 Main St, Riverton, NY 11111'],
  ])('%s -> %s', (input, expected) => {
    expect(found(store.resolve(input))).toBe(expected);
  });

  it('decides between two streets a typo is equally close to by the house number, else lists both', () => {
    // Rever is one edit from River and from Rover: 150 is only on Rover Rd, 100 only on River Rd.
    expect(found(store.resolve('150 Rever Rd 11111'))).toBe('150 Rover Rd, Riverton, NY 11111');
    expect(found(store.resolve('100 Rever Rd 11111'))).toBe('100 River Rd, Riverton, NY 11111');
  });
});

describe('a missing house number is never a neighbour', () => {
  it.each(['101 River Rd 11111', '104 River Rd, Riverton, NY', '101 River 11111', '101 Rvier Rd 11111'])(
    "%s is not found, with the street's nearest numbers as suggestions",
    (input) => {
      const outcome = store.resolve(input);
      expect(outcome.kind).toBe('not_found');
      if (outcome.kind !== 'not_found') return;
      expect(outcome.candidates.map((c) => c.address)).toEqual([
        expect.stringMatching(/^10[02] River Rd/),
        expect.stringMatching(/^10[02] River Rd/),
      ]);
    },
  );
});

describe('suffixes', () => {
  it('answers the one street a name without suffix fits, and both where two fit', () => {
    expect(found(store.resolve('152 Oak 11111'))).toBe('152 Oak Ave, Riverton, NY 11111');
    const both = store.resolve('150 Oak, Riverton, NY');
    expect(both).toMatchObject({ kind: 'ambiguous', total: 2 });
    if (both.kind === 'ambiguous') {
      expect(both.candidates.map((c) => c.address)).toEqual([
        '150 Oak Ave, Riverton, NY 11111',
        '150 Oak St, Riverton, NY 11111',
      ]);
    }
  });

  it('prefers the exact suffix, and takes a wrong one only where no street has the one typed', () => {
    expect(found(store.resolve('150 Oak St 11111'))).toBe('150 Oak St, Riverton, NY 11111');
    // Oak St exists and has no 152: Oak Ave's 152 would be another street's house.
    expect(found(store.resolve('152 Oak St 11111'))).toBe('not_found');
    expect(found(store.resolve('100 River St 11111'))).toBe('100 River Rd, Riverton, NY 11111');
    expect(found(store.resolve('100 River Raod 11111'))).toBe('100 River Rd, Riverton, NY 11111');
  });
});

describe('units and ambiguity', () => {
  it("orders candidates by state, city and address, counts them, and states each one's confidence", () => {
    const outcome = store.resolve('100 Main St');
    expect(outcome).toMatchObject({ kind: 'ambiguous', total: 2 });
    if (outcome.kind !== 'ambiguous') return;
    expect(outcome.candidates.map((c) => c.address)).toEqual([
      '100 Main St, Pleasant Valley, NY 22222',
      '100 Main St, Riverton, NY 11111',
    ]);
    for (const c of outcome.candidates) expect(['high', 'medium', 'low']).toContain(c.confidence);
  });

  it("offers a building's units when the unit asked for does not exist", () => {
    const outcome = store.resolve('100 Main St Apt 3 11111');
    expect(outcome.kind).toBe('unit_not_found');
    if (outcome.kind !== 'unit_not_found') return;
    expect(outcome.building.address).toBe('100 Main St, Riverton, NY 11111');
    expect(outcome.candidates.map((c) => c.address)).toEqual([
      '100 Main St Apt 1, Riverton, NY 11111',
      '100 Main St Apt 2, Riverton, NY 11111',
    ]);
    expect(found(store.resolve('100 Main St #2, Riverton NY'))).toBe('100 Main St Apt 2, Riverton, NY 11111');
  });

  it('reads a unit written first, a list number and a designator without a number as such, not as the street', () => {
    expect(found(store.resolve('Unit 2, 100 Main St, Riverton NY'))).toBe(
      '100 Main St Apt 2, Riverton, NY 11111',
    );
    expect(found(store.resolve('1. 100 Main St apt. 1, Riverton NY 11111'))).toBe(
      '100 Main St Apt 1, Riverton, NY 11111',
    );
    // "Rear" is a part of the building the record does not hold: the building, and its units, not another street.
    const rear = store.resolve('100 Main St Rear, Riverton, NY 11111');
    expect(rear.kind).toBe('unit_not_found');
    if (rear.kind === 'unit_not_found') expect(rear.building.address).toBe('100 Main St, Riverton, NY 11111');
  });

  it("lists a building's units when its own address is searched", () => {
    expect(store.search('100 Main St, Riverton, NY 11111', 20, 0).items.map((p) => p.address)).toEqual([
      '100 Main St, Riverton, NY 11111',
      '100 Main St Apt 1, Riverton, NY 11111',
      '100 Main St Apt 2, Riverton, NY 11111',
    ]);
    // A house with no units is searched as before: itself first.
    expect(store.search('40 Hill St 22222', 20, 0).items[0]?.address).toBe(
      '40 Hill St, Pleasant Valley, NY 22222',
    );
  });
});

describe('a neighbouring city', () => {
  it.each([
    // The ZIP, street and number agree; the city named is the next town's (a mailing name, a neighbour).
    ['40 Hill St, Riverton, NY 22222', '40 Hill St, Pleasant Valley, NY 22222'],
    ['102 River Rd, Pleasant Valley, NY 11111', '102 River Rd, Riverton, NY 11111'],
    ['102 River Rd Pleasant Valley NY 11111', '102 River Rd, Riverton, NY 11111'],
    // ...but where the town named has that house, the ZIP was the mistake (as before).
    ['100 Main St, Pleasant Valley, NY 11111', '100 Main St, Pleasant Valley, NY 22222'],
  ])('%s -> %s', (input, expected) => {
    expect(found(store.resolve(input))).toBe(expected);
  });

  it('never takes a neighbouring house for it: a number the ZIP’s street lacks is not found', () => {
    expect(found(store.resolve('104 River Rd, Pleasant Valley, NY 11111'))).toBe('not_found');
  });
});

describe('why not found', () => {
  const reason = (input: string) => {
    const o = store.resolve(input);
    return o.kind === 'not_found' ? (o.reason ?? 'none') : o.kind;
  };
  it.each([
    ['104 River Rd 11111', 'no_such_house'], // River Rd is in 11111, 104 is not
    ['104 River Rd, Riverton, NY', 'no_such_house'],
    ['104 Hill St', 'none'], // no place named: the street may be anywhere
    ['40 Zzyzzx Qqvvort Blvd 11111', 'no_such_street'],
    ['40 Zzyzzx Qqvvort Blvd, Riverton, NY', 'no_such_street'],
    ['40 Zzyzzx Qqvvort Blvd, Nowhereville, NY', 'none'], // a town the data does not know
    // A ZIP code of another state than the one named: which is wrong is unknown, so no street is said missing.
    ['40 Zzyzzx Qqvvort Blvd, Riverton, NJ 11111', 'none'],
    ['104 River Rd, Riverton, NJ 11111', 'none'],
    ['40 Hill St 33333', 'place_not_covered'], // a ZIP code the data holds nothing in, even if a street fits elsewhere
  ])('%s -> %s', (input, expected) => {
    expect(reason(input)).toBe(expected);
  });
});
