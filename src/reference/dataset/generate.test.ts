import { describe, expect, it } from 'vitest';
import { UpstreamProperty } from '../../contract/index.ts';
import { loadPlaces } from './gazetteer.ts';
import { confidenceFor, DATA_AS_OF, generateProperties, SHOWCASE, samplePlaces } from './generate.ts';
import { createRng } from './prng.ts';
import { METRO_ZIPS } from './showcase.ts';

const take = (count: number, seed: number) => [...generateProperties({ count, seed })];

describe('generateProperties', () => {
  const records = take(4000, 11);

  it('is deterministic: the same seed gives the same records, ids and dates', () => {
    expect(take(4000, 11)).toEqual(records);
    expect(take(300, 12).map((r) => r.property_id)).not.toEqual(
      records.slice(0, 300).map((r) => r.property_id),
    );
  });

  it('gives every record a unique id and a valid contract shape', () => {
    expect(new Set(records.map((r) => r.property_id)).size).toBe(records.length);
    for (const r of records.slice(0, 500)) expect(UpstreamProperty.safeParse(r).success).toBe(true);
  });

  it('uses real ZIP / city / state / county combinations', () => {
    const places = new Map(loadPlaces().map((p) => [p.zip, p]));
    for (const r of records) {
      const place = places.get(r.zip);
      expect(place, r.zip).toBeDefined();
      expect([place?.city, place?.state, place?.county]).toEqual([r.city, r.state, r.county]);
    }
  });

  it('states confidence by the documented rule of source quality and recency', () => {
    const asOf = Date.parse(`${DATA_AS_OF}T00:00:00Z`);
    for (const r of records) {
      const age = Math.round((asOf - Date.parse(`${r.last_verified}T00:00:00Z`)) / 86_400_000);
      expect(r.confidence).toBe(confidenceFor(r.source_kind, age));
    }
    expect(confidenceFor('assessor', 10)).toBe('high');
    expect(confidenceFor('assessor', 400)).toBe('medium');
    expect(confidenceFor('assessor', 2000)).toBe('low');
    expect(confidenceFor('mls', 10)).toBe('medium');
    expect(confidenceFor('permits', 10)).toBe('low');
  });

  it('spreads verification ages from fresh to years old, and every confidence level occurs', () => {
    const years = new Set(records.map((r) => r.last_verified.slice(0, 4)));
    expect(years.size).toBeGreaterThanOrEqual(6);
    const levels = new Set(records.map((r) => r.confidence));
    expect(levels).toEqual(new Set(['high', 'medium', 'low']));
  });

  it('keeps rooms in proportion to living area', () => {
    // The showcase states a landmark's real rooms (the White House has 35 bathrooms); the rule is the generator's.
    for (const r of records.slice(SHOWCASE.length + 4)) {
      if (r.living_area_sqft === null || r.bedrooms === null || r.bathrooms === null) continue;
      expect(r.bedrooms).toBeLessThanOrEqual(Math.max(1, Math.round(r.living_area_sqft / 750 + 0.6)));
      expect(r.bathrooms).toBeLessThanOrEqual(r.bedrooms + 1.5);
    }
  });

  it('names sources as real agencies and systems do', () => {
    const kinds = new Set(records.map((r) => r.source_kind));
    expect(kinds).toEqual(new Set(['assessor', 'recorder', 'revenue', 'mls', 'permits', 'survey']));
    // Each state's own offices (agencies.test.ts has the rules): Travis County's appraisal district.
    const travis = records.find((r) => r.county === 'Travis County' && r.source_kind === 'assessor');
    expect(travis?.source).toBe('Travis Central Appraisal District');
    // No agency named after a village's "Greater" area, none as "Newport News city Recorder of Deeds".
    for (const r of records) {
      expect(r.source, r.source).not.toMatch(
        /^Greater |Multiple Listing Service| city (Assessor|Recorder|Surveyor)/,
      );
    }
    // An independent city's offices ("City of Newport News Assessor"): agencies.test.ts, place by place.
  });

  it('draws facts that fit one another: no building larger than its lot, no vacant lot worth millions', () => {
    const generated = records.slice(SHOWCASE.length + 4);
    for (const r of generated) {
      if (r.lot_size_sqft !== null && r.living_area_sqft !== null) {
        // Three storeys at most for a building of units, two for a house.
        const storeys = r.property_type === 'multi_family' || r.property_type === 'condominium' ? 3 : 2;
        expect(r.lot_size_sqft, r.address).toBeGreaterThanOrEqual(r.living_area_sqft / storeys);
      }
      if (r.property_type === 'vacant_land') {
        expect(r.lot_size_sqft, r.address).toBeLessThanOrEqual(100_000);
        expect(r.assessed_value, r.address).toBeLessThan(1_500_000);
      }
      if (r.unit !== null) expect(r.lot_size_sqft).toBeNull();
    }
    expect(generated.some((r) => r.property_type === 'vacant_land')).toBe(true);
  });

  it('has multi-unit buildings: a building record and one record per unit at the same street address', () => {
    const units = records.filter((r) => r.unit !== null);
    expect(units.length).toBeGreaterThan(20);
    const first = units[0] as (typeof units)[number];
    const building = records.find(
      (r) =>
        r.unit === null &&
        r.zip === first.zip &&
        r.street_name === first.street_name &&
        r.street_number === first.street_number,
    );
    expect(building).toBeDefined();
  });

  it("gives every record its own parcel number; a unit has its building's, its year and no rooms of the building", () => {
    expect(new Set(records.map((r) => r.parcel_number)).size).toBe(records.length);
    for (const r of records) expect(r.parcel_number).toMatch(/^\d{5}-\d{3}-\d{4}(-\d{4})?$/);
    const buildings = new Map(
      records.filter((r) => r.unit === null).map((r) => [`${r.zip}|${r.street_name}|${r.street_number}`, r]),
    );
    const units = records.filter((r) => r.unit !== null);
    for (const u of units) {
      const b = buildings.get(`${u.zip}|${u.street_name}|${u.street_number}`);
      expect(u.parcel_number).toBe(`${b?.parcel_number}-${u.unit?.padStart(4, '0')}`);
      expect(u.year_built).toBe(b?.year_built);
      // The building's rooms are its units'.
      expect(b?.bedrooms).toBeNull();
    }
  });

  it('gives the landmarks among the showcase records what they are, not houses', () => {
    const byAddress = new Map(records.map((r) => [r.address, r]));
    expect(byAddress.get('1100 Congress Ave, Austin, TX 78701')).toMatchObject({
      property_type: 'government',
      year_built: 1888,
      bedrooms: null,
      last_sale_price: null,
    });
    const tower = byAddress.get('233 S Wacker Dr, Chicago, IL 60606');
    expect(tower).toMatchObject({ property_type: 'commercial', year_built: 1973, bedrooms: null });
    expect(tower?.living_area_sqft).toBeGreaterThan(4_000_000);
    expect(byAddress.get('1600 Pennsylvania Ave NW, Washington, DC 20500')).toMatchObject({
      property_type: 'government',
      year_built: 1800,
    });
    const bourbon = records.filter((r) => r.street_name === 'Bourbon St' && r.street_number === '615');
    expect(bourbon.map((r) => r.unit)).toEqual([null, '1', '2', '3', '4']);
    expect(bourbon.slice(1).every((r) => r.property_type === 'apartment_unit')).toBe(true);
  });

  it('starts with the showcase addresses used by demos and tests', () => {
    expect(
      records.slice(0, SHOWCASE.length).map((r) => `${r.street_number} ${r.street_name} ${r.zip}`),
    ).toEqual(SHOWCASE.map((s) => `${s.house} ${s.street} ${s.zip}`));
    expect(records[0]?.confidence).toBe('high');
    expect(records[1]?.confidence).toBe('medium');
    expect(records[3]?.confidence).toBe('low');
  });
});

describe('samplePlaces', () => {
  const all = loadPlaces();
  it('always holds the well-known metro ZIP codes in a full-size sample, and is otherwise the same draw', () => {
    const sample = samplePlaces(createRng(42), all, 25_000);
    const zips = new Set(sample.map((p) => p.zip));
    expect(zips.size).toBe(25_000);
    for (const zip of METRO_ZIPS) expect(zips.has(zip), zip).toBe(true);
    // A small sample (tests, benches) is the plain draw: no room to spare for them.
    const small = samplePlaces(createRng(42), all, 100);
    expect(small.filter((p) => METRO_ZIPS.includes(p.zip)).length).toBeLessThan(5);
  });
});
