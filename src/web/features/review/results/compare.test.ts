import { describe, expect, it } from 'vitest';
import { longDate } from '../../property/lib/verification.ts';
import { makeProperty } from '../testing/stats.fixtures.ts';
import { compareAttributes, mostReliable, relationOf } from './compare.ts';

const HOUSE = '1 A St, Austin, TX 78701';
/** A record of the one property every rule test compares, from `source`. */
const rec = (id: string, source: string, over: Parameters<typeof makeProperty>[0] = {}) =>
  makeProperty({ id, address: HOUSE, source, ...over });
const a = rec('a', 'Travis County Assessor', { confidence: 'medium', lastVerified: '2026-10-01' });

describe('mostReliable: records of one property', () => {
  it('prefers higher confidence over a more recent verification, naming records by source', () => {
    const b = rec('b', 'Austin Board of Realtors MLS', { confidence: 'high', lastVerified: '2024-01-01' });
    const v = mostReliable([a, b]);
    expect(v).toMatchObject({ best: ['b'], decidedBy: 'confidence', relation: 'same' });
    expect(v.reason).toBe(
      'The Austin Board of Realtors MLS record is the most reliable: it has high confidence; the other has medium confidence.',
    );
  });

  it('at equal confidence, prefers the more recent verification', () => {
    const b = rec('b', 'B', { confidence: 'medium', lastVerified: '2026-10-02' });
    const c = rec('c', 'C', { confidence: 'low', lastVerified: '2026-10-30' });
    const v = mostReliable([a, b, c]);
    expect(v.best).toEqual(['b']);
    expect(v.decidedBy).toBe('recency');
    expect(v.reason).toBe(
      `The B record is the most reliable: the Travis County Assessor record and the B record both have medium confidence, and it was verified more recently (${longDate('2026-10-02')}, against ${longDate('2026-10-01')} for the other).`,
    );
  });

  it('at equal confidence and date, prefers the stronger kind of source', () => {
    const same = { confidence: 'medium', lastVerified: '2026-10-01' } as const;
    const mls = rec('m', 'M', { ...same, sourceKind: 'mls' });
    const permits = rec('p', 'P', { ...same, sourceKind: 'permits' });
    const survey = rec('s', 'S', { ...same, sourceKind: 'survey' });
    const v = mostReliable([permits, mls, survey]);
    expect(v.best).toEqual(['s']);
    expect(v.decidedBy).toBe('source');
    expect(v.reason).toBe(
      `The S record is the most reliable: the P record, the M record and the S record all have medium confidence and were verified on the same day (${longDate('2026-10-01')}); it comes from a survey record, a stronger kind of source than a building permit or an MLS listing.`,
    );
    expect(mostReliable([permits, mls]).best).toEqual(['m']);
  });

  it('ranks an unknown or missing kind of source last', () => {
    const unknown = rec('u', 'U', { sourceKind: 'hearsay' });
    const none = rec('n', 'N', { sourceKind: null });
    const permits = rec('p', 'P', { sourceKind: 'permits' });
    expect(mostReliable([unknown, none, permits]).best).toEqual(['p']);
  });

  it('names every record when the rule cannot tell them apart, by number when sources repeat', () => {
    const b = rec('b', 'Travis County Assessor', {
      confidence: 'medium',
      lastVerified: '2026-10-01',
      sourceKind: 'recorder',
    });
    const v = mostReliable([a, b]);
    expect(v.best).toEqual(['a', 'b']);
    expect(v.decidedBy).toBe('tie');
    expect(v.reason).toMatch(/^Record 1 and record 2 are equally reliable/);
  });
});

describe('mostReliable: what the records are to one another', () => {
  it('does not rank different properties: nothing is crowned', () => {
    const other = makeProperty({ id: 'o', address: '2 B St, Austin, TX 78701', confidence: 'high' });
    const v = mostReliable([a, other]);
    expect(v).toMatchObject({ best: [], decidedBy: 'different', relation: 'different' });
    expect(v.reason).toMatch(/^These are two different properties: each record describes its own/);
    // The same street line in another ZIP code is another property too.
    const elsewhere = makeProperty({
      id: 'e',
      address: '1 A St, Dallas, TX 75201',
      attributes: { zip: '75201' },
    });
    expect(relationOf([a, elsewhere])).toBe('different');
  });

  it('ranks a building against its own units only saying so', () => {
    const building = makeProperty({
      id: 'b',
      address: '615 Bourbon St, New Orleans, LA 70130',
      confidence: 'low',
      attributes: { zip: '70130' },
    });
    const unit = makeProperty({
      id: 'u',
      address: '615 Bourbon St Apt 2, New Orleans, LA 70130',
      confidence: 'high',
      attributes: { zip: '70130', unit: '2' },
    });
    const v = mostReliable([building, unit]);
    expect(v).toMatchObject({ best: ['u'], relation: 'building' });
    expect(v.reason).toBe(
      'A building and its own units, not rival records of one property. By the rule: 615 Bourbon St Apt 2, New Orleans, LA 70130 is the most reliable: it has high confidence; the other has low confidence.',
    );
  });

  it('reads one property however its address is cased or spaced, with the unit in the line or the attributes', () => {
    const x = makeProperty({
      id: 'x',
      address: '615 Bourbon St Apt 2, New Orleans, LA 70130',
      attributes: { zip: '70130', unit: null },
    });
    const y = makeProperty({
      id: 'y',
      address: '615  BOURBON ST  #2, NEW ORLEANS, LA 70130',
      attributes: { zip: '70130', unit: '2' },
    });
    expect(relationOf([x, y])).toBe('same');
  });
});

describe('compareAttributes', () => {
  it('aligns attributes in rows and marks the ones that differ, a missing value included', () => {
    const b = makeProperty({
      id: 'b',
      confidence: 'medium',
      lastVerified: '2026-10-01',
      attributes: { bedrooms: 4, yearBuilt: 1998, other: { flood_zone: 'AE' } },
    });
    const rows = compareAttributes([a, b]);
    const byLabel = new Map(rows.map((r) => [r.label, r]));
    expect(byLabel.get('Bedrooms')).toEqual({ label: 'Bedrooms', values: ['3', '4'], differs: true });
    expect(byLabel.get('Year built')).toEqual({
      label: 'Year built',
      values: ['1998', '1998'],
      differs: false,
    });
    expect(byLabel.get('Confidence')?.differs).toBe(false);
    // Ids always differ: shown, not flagged.
    expect(byLabel.get('Property ID')).toEqual({ label: 'Property ID', values: ['a', 'b'], differs: false });
    expect(byLabel.get('Flood zone')).toEqual({ label: 'Flood zone', values: [null, 'AE'], differs: true });
    // Nobody states a lot size: no empty row.
    expect(byLabel.has('Lot size')).toBe(false);
  });
});
