import { describe, expect, it } from 'vitest';
import { notFoundAdvice } from './not-found.ts';

describe('notFoundAdvice', () => {
  it('asks for a city or ZIP code only when none was typed', () => {
    expect(notFoundAdvice('12 Elm St', null, false)).toMatch(/add the city and state or the ZIP code/);
    for (const typed of ['12 Elm St 78701', '12 Elm St, Austin, TX', '12 Elm St, Austin TX 78701-1234']) {
      expect(notFoundAdvice(typed, null, false)).toBe('Check the house number and the street’s spelling.');
    }
  });

  it('says why when the service said', () => {
    expect(notFoundAdvice('104 River Rd 11111', 'no_such_house', false)).toMatch(
      /^The street is known there, but not that house number/,
    );
    expect(notFoundAdvice('12 Zz St 11111', 'no_such_street', false)).toBe(
      'No street of that name is known in ZIP code 11111. Check the street’s spelling, and the ZIP code.',
    );
    expect(notFoundAdvice('12 Zz St, Austin, TX', 'no_such_street', false)).toMatch(
      /in that place.*city and state/,
    );
  });

  it('is honest about a ZIP code the data does not cover, and offers one it does in the demo', () => {
    expect(notFoundAdvice('350 5th Ave 10118', 'place_not_covered', true)).toBe(
      'The demo data has no properties in ZIP code 10118: it holds a sample of the country. Try an address in 78701.',
    );
    expect(notFoundAdvice('350 5th Ave 10118', 'place_not_covered', false)).toMatch(
      /^The property service holds no properties in ZIP code 10118/,
    );
  });
});
