import { describe, expect, it } from 'vitest';
import { loadPlaces, type Place } from './gazetteer.ts';
import { generateProperties, SHOWCASE, streetBook } from './generate.ts';
import { REAL_STREETS } from './real-streets.ts';

const all = loadPlaces();
const byZip = new Map(all.map((p) => [p.zip, p]));
const names = (streetsOf: ReturnType<typeof streetBook>, zip: string) =>
  streetsOf(byZip.get(zip) as Place).map((s) => s.display);

// Every ZIP code's streets are dealt (41,000): seconds on a loaded machine, where the default 5 s timed out.
describe('street names that read true', { timeout: 30_000 }, () => {
  const streetsOf = streetBook(20261121, all);
  const austin = all.filter((p) => p.city === 'Austin' && p.state === 'TX');

  it('gives a showcased ZIP code its real streets: downtown Austin is Congress Ave, Lavaca St, W 6th St…', () => {
    expect(names(streetsOf, '78701')).toEqual(REAL_STREETS['78701']?.streets);
    expect(names(streetsOf, '78701')).toEqual(
      expect.arrayContaining(['Congress Ave', 'Lavaca St', 'W 6th St']),
    );
    expect(names(streetsOf, '70116')).toContain('Chartres St');
  });

  it('has no Main St anywhere in Austin, and at most one Main St ZIP code in any town', () => {
    for (const p of austin) expect(names(streetsOf, p.zip), p.zip).not.toContain('Main St');
    const mainStreetZips = new Map<string, string[]>();
    for (const p of all) {
      if (!names(streetsOf, p.zip).includes('Main St')) continue;
      const town = `${p.city}|${p.state}`;
      mainStreetZips.set(town, [...(mainStreetZips.get(town) ?? []), p.zip]);
    }
    const repeated = [...mainStreetZips].filter(([, zips]) => zips.length > 1);
    expect(repeated).toEqual([]);
    // Still many towns with one: "100 Main St" alone is honestly ambiguous.
    expect(mainStreetZips.size).toBeGreaterThan(5000);
  });

  it('never repeats a made-up street name between ZIP codes of one area, as if copied', () => {
    for (const area of ['787', '606', '100', '331', '021']) {
      const seen = new Map<string, string>();
      for (const p of all.filter((x) => x.zip.startsWith(area) && !REAL_STREETS[x.zip])) {
        // Main St is the one name towns share, one ZIP code each (above).
        for (const name of names(streetsOf, p.zip).filter((n) => n !== 'Main St')) {
          expect(seen.get(name), `${name} in ${p.zip}`).toBeUndefined();
          seen.set(name, p.zip);
        }
      }
    }
  });

  it('numbers a real street on from one ZIP code to the next: one property at "241 E 7th St, Austin"', () => {
    const firstHouse = (zip: string, street: string) =>
      streetsOf(byZip.get(zip) as Place).find((s) => s.display === street)?.nextHouse ?? Number.NaN;
    for (const [street, zips] of [
      ['Guadalupe St', ['78701', '78705', '78751']],
      ['E 7th St', ['78701', '78702']],
      ['W Lake St', ['60606', '60601']],
    ] as const) {
      const blocks = zips.map((z) => Math.floor(firstHouse(z, street) / 2000));
      expect(new Set(blocks).size, street).toBe(zips.length);
    }
  });

  it('deals the same streets to a ZIP code whichever ZIP code is asked for first', () => {
    const other = streetBook(20261121, all);
    const zips = ['78799', '78702', '78745', '78610', '06807'];
    const late = [...zips]
      .reverse()
      .map((z) => names(other, z))
      .reverse();
    expect(late).toEqual(zips.map((z) => names(streetsOf, z)));
  });
});

describe('a downtown with hundreds of properties', { timeout: 30_000 }, () => {
  // A sample large enough to hold the metro ZIP codes (samplePlaces): 40 records per ZIP code on average.
  const records = [...generateProperties({ count: 25_000, seed: 20261121 })];

  it('puts hundreds of properties in 78701, on its real streets', () => {
    const downtown = records.filter((r) => r.zip === '78701');
    expect(downtown.length).toBeGreaterThan(300);
    const real = new Set(REAL_STREETS['78701']?.streets);
    expect(downtown.every((r) => real.has(r.street_name))).toBe(true);
    expect(new Set(downtown.map((r) => r.street_name)).size).toBeGreaterThan(20);
  });

  it('keeps a landmark’s address its own: one record at 1100 Congress Ave, none but the White House in 20500', () => {
    const at = (house: string, street: string, zip: string) =>
      records.filter(
        (r) => r.street_number === house && r.street_name === street && r.zip === zip && !r.unit,
      );
    for (const s of SHOWCASE) expect(at(s.house, s.street, s.zip), `${s.house} ${s.street}`).toHaveLength(1);
    expect(records.filter((r) => r.zip === '20500')).toHaveLength(1);
    // No two properties share an address anywhere.
    const addresses = records.map((r) => r.address);
    expect(new Set(addresses).size).toBe(addresses.length);
  });
});
