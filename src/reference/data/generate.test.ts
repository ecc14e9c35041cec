import { describe, expect, it } from 'vitest';
import { UpstreamProperty } from '../../contract/index.ts';
import { loadPlaces } from './gazetteer.ts';
import { confidenceFor, DATA_AS_OF, generateProperties, SHOWCASE } from './generate.ts';

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
    for (const r of records) {
      if (r.living_area_sqft === null || r.bedrooms === null || r.bathrooms === null) continue;
      expect(r.bedrooms).toBeLessThanOrEqual(Math.max(1, Math.round(r.living_area_sqft / 750 + 0.6)));
      expect(r.bathrooms).toBeLessThanOrEqual(r.bedrooms + 1.5);
    }
  });

  it('names sources as real agencies and systems do', () => {
    const kinds = new Set(records.map((r) => r.source_kind));
    expect(kinds).toEqual(new Set(['assessor', 'recorder', 'revenue', 'mls', 'permits', 'survey']));
    const assessor = records.find((r) => r.source_kind === 'assessor');
    expect(assessor?.source).toBe(`${assessor?.county} Assessor`);
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

  it('starts with the showcase addresses used by demos and tests', () => {
    expect(
      records.slice(0, SHOWCASE.length).map((r) => `${r.street_number} ${r.street_name} ${r.zip}`),
    ).toEqual(SHOWCASE.map((s) => `${s.house} ${s.street} ${s.zip}`));
    expect(records[0]?.confidence).toBe('high');
    expect(records[1]?.confidence).toBe('medium');
    expect(records[3]?.confidence).toBe('low');
  });
});
