import { describe, expect, it } from 'vitest';
import { editDistance, normalizeName, parseAddress } from './normalize.ts';

describe('parseAddress', () => {
  it.each([
    [
      '1100 Congress Ave, Austin, TX 78701',
      { house: '1100', rest: ['CONGRESS', 'AVE'], city: ['AUSTIN'], state: 'TX', zip: '78701', unit: null },
    ],
    [
      '1100 congress avenue austin texas',
      { house: '1100', rest: ['CONGRESS', 'AVE', 'AUSTIN'], city: null, state: 'TX', zip: null, unit: null },
    ],
    [
      '233 South Wacker Drive, Chicago IL 60606-1234',
      { house: '233', rest: ['S', 'WACKER', 'DR'], city: ['CHICAGO'], state: 'IL', zip: '60606', unit: null },
    ],
    [
      '10 Collier Ln Apt. 4B, Plainfield, Iowa',
      { house: '10', rest: ['COLLIER', 'LN'], city: ['PLAINFIELD'], state: 'IA', zip: null, unit: '4B' },
    ],
    [
      '10 Collier Ln #12, Plainfield IA',
      { house: '10', rest: ['COLLIER', 'LN'], city: ['PLAINFIELD'], state: 'IA', zip: null, unit: '12' },
    ],
    [
      '10 Collier Lane Suite 200 Plainfield IA',
      { house: '10', rest: ['COLLIER', 'LN', 'PLAINFIELD'], city: null, state: 'IA', zip: null, unit: '200' },
    ],
    [
      '615 bourbon st new orleans la 70116 apt 9',
      {
        house: '615',
        rest: ['BOURBON', 'ST', 'NEW', 'ORLEANS'],
        city: null,
        state: 'LA',
        zip: '70116',
        unit: '9',
      },
    ],
    [
      '481 MARKET PL GAINESVILLE FL 32609 UNIT 2',
      {
        house: '481',
        rest: ['MARKET', 'PL', 'GAINESVILLE'],
        city: null,
        state: 'FL',
        zip: '32609',
        unit: '2',
      },
    ],
    [
      '96 Ford Rd, Hialeah, FL 33014 # 603',
      { house: '96', rest: ['FRD', 'RD'], city: ['HIALEAH'], state: 'FL', zip: '33014', unit: '603' },
    ],
    [
      '580 16th St, Fort Myers Beach, FL 33931',
      {
        house: '580',
        rest: ['16TH', 'ST'],
        city: ['FT', 'MYERS', 'BCH'],
        state: 'FL',
        zip: '33931',
        unit: null,
      },
    ],
    [
      '  12   North   Main   Street  ,  Springfield ,  New York  ',
      { house: '12', rest: ['N', 'MAIN', 'ST'], city: ['SPRINGFIELD'], state: 'NY', zip: null, unit: null },
    ],
    [
      '1600 Pennsylvania Avenue Northwest, Washington, D.C. 20500',
      {
        house: '1600',
        rest: ['PENNSYLVANIA', 'AVE', 'NW'],
        city: ['WASHINGTON'],
        state: 'DC',
        zip: '20500',
        unit: null,
      },
    ],
    [
      '742 Evergreen Terr.',
      { house: '742', rest: ['EVERGREEN', 'TER'], city: null, state: null, zip: null, unit: null },
    ],
    [
      '12 1/2 Elm St',
      { house: '12 1/2', rest: ['ELM', 'ST'], city: null, state: null, zip: null, unit: null },
    ],
    ['Main Street', { house: null, rest: ['MAIN', 'ST'], city: null, state: null, zip: null, unit: null }],
    [
      '1 First Avenue, Saint Paul, MN',
      { house: '1', rest: ['1ST', 'AVE'], city: ['ST', 'PAUL'], state: 'MN', zip: null, unit: null },
    ],
    [
      '5 Crème Brûlée Ct, Austin, TX',
      { house: '5', rest: ['CREME', 'BRULEE', 'CT'], city: ['AUSTIN'], state: 'TX', zip: null, unit: null },
    ],
    [
      '1234 St. Charles Ave., New Orleans, LA 70130',
      {
        house: '1234',
        rest: ['ST', 'CHARLES', 'AVE'],
        city: ['NEW', 'ORLEANS'],
        state: 'LA',
        zip: '70130',
        unit: null,
      },
    ],
    [
      '55 N.W. 2nd St, Miami FL',
      { house: '55', rest: ['NW', '2ND', 'ST'], city: ['MIAMI'], state: 'FL', zip: null, unit: null },
    ],
    [
      '1 Pennsylvania Avenue North West, Washington, DC',
      {
        house: '1',
        rest: ['PENNSYLVANIA', 'AVE', 'NW'],
        city: ['WASHINGTON'],
        state: 'DC',
        zip: null,
        unit: null,
      },
    ],
    [
      '9 Martin Luther King Jr. Blvd., Austin, TX',
      {
        house: '9',
        rest: ['MARTIN', 'LUTHER', 'KING', 'JR', 'BLVD'],
        city: ['AUSTIN'],
        state: 'TX',
        zip: null,
        unit: null,
      },
    ],
    [
      '12 Main St Apt#4, Hope AK',
      { house: '12', rest: ['MAIN', 'ST'], city: ['HOPE'], state: 'AK', zip: null, unit: '4' },
    ],
    [
      '500 Elm St., Ste. 200, Dallas, Texas 75201',
      { house: '500', rest: ['ELM', 'ST'], city: ['DALLAS'], state: 'TX', zip: '75201', unit: '200' },
    ],
    [
      '77 County Road 12, Wallace, NE 69169',
      { house: '77', rest: ['COUNTY', 'RD', '12'], city: ['WALLACE'], state: 'NE', zip: '69169', unit: null },
    ],
    [
      '100 Highway 61 S, Clarksdale MS',
      { house: '100', rest: ['HWY', '61', 'S'], city: ['CLARKSDALE'], state: 'MS', zip: null, unit: null },
    ],
    [
      '4 Maple Ave, Unit B, Burlington VT',
      { house: '4', rest: ['MAPLE', 'AVE'], city: ['BURLINGTON'], state: 'VT', zip: null, unit: 'B' },
    ],
    [
      '1600 AMPHITHEATRE PKWY MOUNTAIN VIEW CA 94043-1351',
      {
        house: '1600',
        rest: ['AMPHITHEATRE', 'PKWY', 'MTN', 'VW'],
        city: null,
        state: 'CA',
        zip: '94043',
        unit: null,
      },
    ],
    [
      '300 W. 5th Street, #1203, Austin TX 78701',
      { house: '300', rest: ['W', '5TH', 'ST'], city: ['AUSTIN'], state: 'TX', zip: '78701', unit: '1203' },
    ],
    // Designators that need no number (USPS Pub 28): a unit, not a word of the street.
    [
      '140 Waterloo Rd Rear, Austin, TX 78701',
      { house: '140', rest: ['WATERLOO', 'RD'], city: ['AUSTIN'], state: 'TX', zip: '78701', unit: 'REAR' },
    ],
    [
      '12 N Main St Upper, Austin TX',
      { house: '12', rest: ['N', 'MAIN', 'ST'], city: ['AUSTIN'], state: 'TX', zip: null, unit: 'UPPR' },
    ],
    [
      '9 Elm Ave E Basement',
      { house: '9', rest: ['ELM', 'AVE', 'E'], city: null, state: null, zip: null, unit: 'BSMT' },
    ],
    // ...but a street named so stays a street.
    ['100 Front St', { house: '100', rest: ['FRONT', 'ST'], city: null, state: null, zip: null, unit: null }],
    [
      '5 Upper Ridge Rd, Austin TX',
      { house: '5', rest: ['UPPER', 'RDG', 'RD'], city: ['AUSTIN'], state: 'TX', zip: null, unit: null },
    ],
    // A unit written first, and a list's number, as pasted from an email.
    [
      'Unit 301, 140 Waterloo Rd, Austin TX',
      { house: '140', rest: ['WATERLOO', 'RD'], city: ['AUSTIN'], state: 'TX', zip: null, unit: '301' },
    ],
    [
      '1. 271 Gloucester Rd apt. 201, Austin TX',
      { house: '271', rest: ['GLOUCESTER', 'RD'], city: ['AUSTIN'], state: 'TX', zip: null, unit: '201' },
    ],
    ['12) 40 Elm St', { house: '40', rest: ['ELM', 'ST'], city: null, state: null, zip: null, unit: null }],
  ])('%s', (input, expected) => {
    const { stateTokens: _s, raw: _r, ...parsed } = parseAddress(input);
    expect(parsed).toEqual(expected);
  });

  it('keeps a trailing NE as the state but remembers its words, so the resolver can read it as a directional', () => {
    const p = parseAddress('123 Main St NE');
    expect(p.state).toBe('NE');
    expect(p.stateTokens).toEqual(['NE']);
  });
});

describe('normalizeName', () => {
  it.each([
    ['North Main Street', 'N MAIN ST'],
    ['N. Main St.', 'N MAIN ST'],
    ['Mount Vernon Boulevard', 'MT VERNON BLVD'],
    ['Saint Louis', 'ST LOUIS'],
    ['Martin Luther King Jr Parkway', 'MARTIN LUTHER KING JR PKWY'],
  ])('%s -> %s', (input, expected) => expect(normalizeName(input)).toBe(expected));
});

describe('editDistance', () => {
  it('counts insertions, deletions, substitutions and swaps as one edit each', () => {
    expect(editDistance('CONGRESS', 'CONGRES')).toBe(1);
    expect(editDistance('CONGRESS', 'CONGRESSS')).toBe(1);
    expect(editDistance('CONGRESS', 'CONGRASS')).toBe(1);
    expect(editDistance('CONGRESS', 'CONGERSS')).toBe(1);
    expect(editDistance('MAIN', 'ELM')).toBe(4);
  });
  it('stops early past the allowance', () => {
    expect(editDistance('ABCDEFGH', 'ZZZZZZZZ', 1)).toBe(2);
  });
});
