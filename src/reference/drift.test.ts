import { describe, expect, it } from 'vitest';
import type { UpstreamProperty } from '../contract/index.ts';
import { createDrift } from './drift.ts';

const record = (i: number): UpstreamProperty => ({
  property_id: `prop_${i}`,
  address: `${i} Main St, Springfield, IL 62701`,
  street_number: String(i),
  street_name: 'Main St',
  unit: null,
  city: 'Springfield',
  state: 'IL',
  zip: '62701',
  county: 'Sangamon',
  source: 'Sangamon County Assessor',
  source_kind: 'assessor',
  confidence: 'high',
  last_verified: '2024-03-01',
  parcel_number: `14-${i}`,
  property_type: 'single_family',
  year_built: 1990,
  living_area_sqft: 1800,
  lot_size_sqft: 6000,
  bedrooms: 3,
  bathrooms: 2,
  assessed_value: 200_000,
  last_sale_date: null,
  last_sale_price: null,
});

const START = Date.parse('2026-11-24T10:00:00Z');
const records = Array.from({ length: 2000 }, (_, i) => record(i));

describe('REFERENCE_DRIFT_PERCENT', () => {
  it('leaves every record as stored at 0 percent and in the first minute', () => {
    let now = START + 10 * 60_000;
    const off = createDrift({ percent: 0, seed: 1, startedAt: START, now: () => now });
    expect(records.every((r) => off(r) === r)).toBe(true);
    now = START + 59_000;
    const on = createDrift({ percent: 50, seed: 1, startedAt: START, now: () => now });
    expect(records.every((r) => on(r) === r)).toBe(true);
  });

  it('re-verifies about the given share of records after a minute, the same ones every time', () => {
    const now = START + 61_000;
    const drift = createDrift({ percent: 10, seed: 7, startedAt: START, now: () => now });
    const changed = records.filter((r) => drift(r).last_verified !== r.last_verified);
    expect(changed.length).toBeGreaterThan(140);
    expect(changed.length).toBeLessThan(260);
    // Re-verified 29 days before today (2026-11-24) after the one minute of uptime, not a month after 2024-03-01.
    expect(changed.every((r) => drift(r).last_verified === '2026-10-26')).toBe(true);
    const again = createDrift({ percent: 10, seed: 7, startedAt: START, now: () => now });
    expect(records.filter((r) => again(r).last_verified !== r.last_verified)).toEqual(changed);
    const otherSeed = createDrift({ percent: 10, seed: 8, startedAt: START, now: () => now });
    expect(records.filter((r) => otherSeed(r).last_verified !== r.last_verified)).not.toEqual(changed);
  });

  it('re-verifies a drifted record on a recent day, a day newer each minute, never past today', () => {
    let now = START + 61_000;
    const drift = createDrift({ percent: 100, seed: 3, startedAt: START, now: () => now });
    const r = records[0] as UpstreamProperty;
    // Verified 2024-03-01, re-verified this autumn: a newer year, not "2024 -> 2024".
    expect(drift(r).last_verified).toBe('2026-10-26');
    now = START + 121_000;
    expect(drift(r).last_verified).toBe('2026-10-27');
    now = START + 600 * 60_000;
    expect(drift(r).last_verified).toBe('2026-11-24');
    // A record verified last week keeps its date until the re-verification is newer: never an older one.
    const recent = { ...r, last_verified: '2026-11-17' };
    now = START + 61_000;
    expect(drift(recent).last_verified).toBe('2026-11-17');
    now = START + 25 * 60_000;
    expect(drift(recent).last_verified).toBe('2026-11-19');
  });

  it('changes some drifted records’ confidence or source too, never the property id', () => {
    const now = START + 61_000;
    const drift = createDrift({ percent: 30, seed: 3, startedAt: START, now: () => now });
    const out = records.map((r) => [r, drift(r)] as const);
    expect(out.some(([r, d]) => d.confidence !== r.confidence)).toBe(true);
    // Another agency re-verified them: the state's tax agency, by its real name.
    expect(out.some(([r, d]) => d.source !== r.source)).toBe(true);
    for (const [r, d] of out)
      if (d.source !== r.source) expect(d.source).toBe('Illinois Department of Revenue');
    expect(out.every(([r, d]) => d.property_id === r.property_id)).toBe(true);
  });
});
