import { describe, expect, it } from 'vitest';
import type { Property } from '../../../../contract/index.ts';
import { candidateOf, groupByState, mergeById, placed, placeOf, zipOnly } from './place.ts';

describe('placeOf', () => {
  it.each([
    ['100 Main St, Hope, AK 99605', { street: '100 Main St', city: 'Hope', state: 'AK' }],
    ['100 Main St, Rural Valley, PA', { street: '100 Main St', city: 'Rural Valley', state: 'PA' }],
    [
      '100 Main St Apt 2, Winston-Salem, NC 27104-1234',
      { street: '100 Main St Apt 2', city: 'Winston-Salem', state: 'NC' },
    ],
    ['100 Main St, TX 75376', { street: '100 Main St', city: null, state: 'TX' }],
    ['100 Main St, Hope', { street: '100 Main St', city: 'Hope', state: null }],
    ['100 Main St Hope AK', { street: '100 Main St Hope AK', city: null, state: null }],
    ['100 Main St, Hope, ZZ 99605', { street: '100 Main St', city: 'ZZ 99605', state: null }],
  ])('%s', (address, place) => {
    expect(placeOf(address)).toEqual(place);
  });
});

describe('ordering candidates', () => {
  const list = [
    '100 Main St, Dallas, TX 75376',
    '100 Main St, somewhere',
    '100 Main St, Hope, AK 99605',
    '100 Main St, Austin, TX 78701',
    '100 Main St, Anchorage, AK 99530',
    '100 Main St, Abington, MA 02351',
  ].map((address, i) => placed({ id: String(i), address }));

  it('groups by state in the order of their names, cities in order within, unknown places last', () => {
    expect(groupByState(list).map((g) => [g.state, g.items.map((c) => c.city)])).toEqual([
      ['AK', ['Anchorage', 'Hope']],
      ['MA', ['Abington']],
      ['TX', ['Austin', 'Dallas']],
      [null, ['somewhere']],
    ]);
  });

  it('merges lists, the first of each id winning', () => {
    const again = placed({ id: '0', address: 'changed', confidence: 'low' });
    expect(mergeById(list, [again]).find((c) => c.id === '0')?.address).toBe('100 Main St, Dallas, TX 75376');
    expect(mergeById(list, [again])).toHaveLength(list.length);
  });

  it('reads a search result’s place from its own fields first', () => {
    const p: Property = {
      id: 'x',
      address: '1 A St, Wrong, ZZ',
      source: 's',
      sourceKind: null,
      confidence: 'medium',
      lastVerified: '2026-01-01',
      attributes: { city: 'Austin', state: 'tx' },
    };
    expect(candidateOf(p)).toMatchObject({
      city: 'Austin',
      state: 'TX',
      confidence: 'medium',
      street: '1 A St',
    });
  });
});

describe('zipOnly', () => {
  it.each([
    ['78701', '78701'],
    [' 78701 ', '78701'],
    ['78701-1234', '78701'],
    ['7870', null],
    ['787011', null],
    ['1100 Congress Ave 78701', null],
    ['Austin 78701', null],
  ])('%j → %j', (text, zip) => {
    expect(zipOnly(text)).toBe(zip);
  });
});
