import { describe, expect, it } from 'vitest';
import { longDate } from '../../property/lib/verification.ts';
import { makeProperty } from '../testing/stats.fixtures.ts';
import { compareAttributes, mostReliable } from './compare.ts';

const a = makeProperty({ id: 'a', address: '1 A St', confidence: 'medium', lastVerified: '2026-10-01' });

describe('mostReliable', () => {
  it('prefers higher confidence over a more recent verification', () => {
    const b = makeProperty({ id: 'b', address: '2 B St', confidence: 'high', lastVerified: '2024-01-01' });
    const v = mostReliable([a, b]);
    expect(v.best).toEqual(['b']);
    expect(v.decidedBy).toBe('confidence');
    expect(v.reason).toBe(
      '2 B St is the most reliable: it has high confidence; the other has medium confidence.',
    );
  });

  it('at equal confidence, prefers the more recent verification', () => {
    const b = makeProperty({ id: 'b', address: '2 B St', confidence: 'medium', lastVerified: '2026-10-02' });
    const c = makeProperty({ id: 'c', address: '3 C St', confidence: 'low', lastVerified: '2026-10-30' });
    const v = mostReliable([a, b, c]);
    expect(v.best).toEqual(['b']);
    expect(v.decidedBy).toBe('recency');
    expect(v.reason).toBe(
      `2 B St is the most reliable: 1 A St and 2 B St both have medium confidence, and it was verified more recently (${longDate('2026-10-02')}, against ${longDate('2026-10-01')} for the other).`,
    );
  });

  it('at equal confidence and date, prefers the stronger kind of source', () => {
    const mls = makeProperty({
      id: 'm',
      address: 'M',
      confidence: 'medium',
      lastVerified: '2026-10-01',
      sourceKind: 'mls',
    });
    const permits = makeProperty({
      id: 'p',
      address: 'P',
      confidence: 'medium',
      lastVerified: '2026-10-01',
      sourceKind: 'permits',
    });
    const survey = makeProperty({
      id: 's',
      address: 'S',
      confidence: 'medium',
      lastVerified: '2026-10-01',
      sourceKind: 'survey',
    });
    const v = mostReliable([permits, mls, survey]);
    expect(v.best).toEqual(['s']);
    expect(v.decidedBy).toBe('source');
    expect(v.reason).toBe(
      `S is the most reliable: P, M and S all have medium confidence and were verified on the same day (${longDate('2026-10-01')}); it comes from a survey record, a stronger kind of source than a building permit or an MLS listing.`,
    );
    expect(mostReliable([permits, mls]).best).toEqual(['m']);
  });

  it('ranks an unknown or missing kind of source last', () => {
    const unknown = makeProperty({ id: 'u', sourceKind: 'hearsay' });
    const none = makeProperty({ id: 'n', sourceKind: null });
    const permits = makeProperty({ id: 'p', sourceKind: 'permits' });
    expect(mostReliable([unknown, none, permits]).best).toEqual(['p']);
  });

  it('names every record when the rule cannot tell them apart', () => {
    const b = makeProperty({
      id: 'b',
      address: '2 B St',
      confidence: 'medium',
      lastVerified: '2026-10-01',
      sourceKind: 'recorder',
    });
    const v = mostReliable([a, b]);
    expect(v.best).toEqual(['a', 'b']);
    expect(v.decidedBy).toBe('tie');
    expect(v.reason).toMatch(/^1 A St and 2 B St are equally reliable/);
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
