import { describe, expect, it } from 'vitest';
import type { Property } from '../contract/index.ts';
import { explainRecordMatch } from '../contract/server/index.ts';
import { explainMatchOf } from './match-explanations.ts';

const property = (over: Partial<Property> = {}): Property => ({
  id: 'p1',
  address: '1100 Congress Ave, Austin, TX 78701',
  source: 'Travis Central Appraisal District',
  sourceKind: 'assessor',
  confidence: 'high',
  lastVerified: '2026-01-02',
  attributes: { city: 'Austin' },
  ...over,
});

describe('explainMatchOf', () => {
  it('answers as explainRecordMatch does, and the same spelling of the same record from memory', () => {
    const typed = '1100 congres ave austn tx';
    const first = explainMatchOf(typed, property());
    expect(first).not.toBeNull();
    expect(first).toEqual(explainRecordMatch(typed, property()));
    // From memory: the very same answer, not one worked out again.
    expect(explainMatchOf(typed, property())).toBe(first);
    // Another spelling, or the same spelling against another record's address, is its own answer.
    const other = '1100 Congress Avenue, Austin TX';
    expect(explainMatchOf(other, property())).toEqual(explainRecordMatch(other, property()));
    const moved = property({ address: '1101 Congress Ave, Austin, TX 78701' });
    expect(explainMatchOf(typed, moved)).toEqual(explainRecordMatch(typed, moved));
    expect(explainMatchOf(typed, moved)).not.toEqual(first);
  });
});
