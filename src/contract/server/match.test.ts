import { describe, expect, it } from 'vitest';
// biome-ignore lint/style/noRestrictedImports: a test, not the contract: it keeps the copy below in step with the reference's
import { SUFFIX_ABBR, SUFFIX_LONG } from '../../reference/resolver/usps.ts';
import { describeMatch, MatchExplanation, matchKind } from '../match.ts';
import { explainMatch, explainRecordMatch } from './explain-match.ts';
import { USPS_SUFFIXES } from './usps.ts';

const CONGRESS = { address: '1100 Congress Ave, Austin, TX 78701', city: 'Austin' };
const WACKER = { address: '233 S Wacker Dr, Chicago, IL 60606', city: 'Chicago' };
const UNIT = { address: '107 N Bridge St Apt 101, Austin, TX 78701', city: 'Austin' };
const CONDO = { address: '100 Main St Unit 101, Northway, AK 99764', city: 'Northway' };

/** The explanation as the one line the screen shows; '' when there is nothing to say. */
const said = (typed: string, matched: { address: string; city?: string }) => {
  const e = explainMatch(typed, matched);
  return e ? describeMatch(e) : '';
};

describe('explainMatch: says nothing about exact and merely normalised matches', () => {
  it.each([
    ['the same text', '1100 Congress Ave, Austin, TX 78701', CONGRESS],
    ['other case', '1100 CONGRESS AVE, austin, tx 78701', CONGRESS],
    ['suffix spelled out', '1100 Congress Avenue, Austin, TX 78701', CONGRESS],
    ['another USPS suffix spelling', '1100 Congress Av, Austin, TX 78701', CONGRESS],
    ['state spelled out', '1100 Congress Ave, Austin, Texas 78701', CONGRESS],
    ['no commas', '1100 congress ave austin tx 78701', CONGRESS],
    ['punctuation moved about', '1100 Congress Ave. Austin, TX, 78701.', CONGRESS],
    ['extra spaces', '  1100   Congress  Ave ,Austin ,  TX   78701 ', CONGRESS],
    ['ZIP+4', '1100 Congress Ave, Austin, TX 78701-1234', CONGRESS],
    ['directional spelled out', '233 South Wacker Drive, Chicago, Illinois 60606', WACKER],
    ['directional with a full stop', '233 S. Wacker Dr., Chicago IL 60606', WACKER],
    ['unit as "#"', '107 N Bridge St #101, Austin, TX 78701', UNIT],
    ['unit as "Apt #"', '107 N Bridge St Apt #101, Austin, TX 78701', UNIT],
    ['unit with another designator', '107 N Bridge St Unit 101, Austin, TX 78701', UNIT],
    ['unit written after the city', '107 North Bridge Street, Austin, TX 78701, Apt 101', UNIT],
    ['"Unit" and "Suite" for a condo', '100 Main St Suite 101, Northway, AK 99764', CONDO],
    ['unit written first', 'Unit 101, 107 N Bridge St, Austin, TX 78701', UNIT],
    ['a numbered list’s line', '1. 107 N Bridge St apt. 101, Austin, TX 78701', UNIT],
  ])('%s', (_, typed, matched) => {
    expect(explainMatch(typed, matched)).toBeNull();
  });

  it.each([
    ['Saint for St', '12 Saint Louis Ave, Saint Louis, MO 63101', '12 St Louis Ave, St. Louis, MO 63101'],
    ['Mount for Mt', '5 Mount Vernon Rd, Mount Vernon, NY 10550', '5 Mt Vernon Rd, Mt Vernon, NY 10550'],
    ['Fort for Ft', '9 Fort Ave, Fort Worth, TX 76102', '9 Ft Ave, Ft Worth, TX 76102'],
    ['an ordinal in words', '40 Fifth Ave, New York, NY 10011', '40 5th Ave, New York, NY 10011'],
    ['a two-word directional', '8 North West Blvd, Vineland, NJ 08360', '8 NW Blvd, Vineland, NJ 08360'],
    ['a hyphen', '100 Main St, Winston Salem, NC 27104', '100 Main St, Winston-Salem, NC 27104'],
    ['an apostrophe', '14 Oak Ln, OFallon, MO 63366', "14 Oak Ln, O'Fallon, MO 63366"],
    ['a word split in two', '3 Lake View Dr, Mc Kinney, TX 75069', '3 Lakeview Dr, McKinney, TX 75069'],
    ['accents', '7 Peña Blvd, Española, NM 87532', '7 Pena Blvd, Espanola, NM 87532'],
    ['a state of two words', '2 Elm St, Raleigh, North Carolina 27601', '2 Elm St, Raleigh, NC 27601'],
  ])('%s', (_, typed, address) => {
    expect(explainMatch(typed, { address })).toBeNull();
  });
});

describe('explainMatch: says what was corrected and what was added', () => {
  it('the issue example: typos in street and city, ZIP inferred', () => {
    const e = explainMatch('1100 Congres Ave, Austn, TX', CONGRESS);
    expect(e).toEqual({
      typed: '1100 Congres Ave, Austn, TX',
      matched: '1100 Congress Ave, Austin, TX 78701',
      changes: [
        { kind: 'corrected', part: 'street', typed: 'Congres', matched: 'Congress' },
        { kind: 'corrected', part: 'city', typed: 'Austn', matched: 'Austin' },
        { kind: 'added', part: 'zip', typed: '', matched: '78701' },
      ],
      quality: 'corrected',
    });
    expect(describeMatch(e as MatchExplanation)).toBe(
      'corrected: Congres → Congress, Austn → Austin; added: ZIP 78701',
    );
    // What the BFF sends is what the contract's schema accepts.
    expect(MatchExplanation.safeParse(e).success).toBe(true);
  });

  it.each([
    [
      'a swapped pair of letters',
      '1100 Cognress Ave, Austin, TX 78701',
      CONGRESS,
      'corrected: Cognress → Congress',
    ],
    [
      'a missing letter in the city, no commas',
      '1100 congress ave austn tx 78701',
      CONGRESS,
      'corrected: austn → Austin',
    ],
    ['a typo in the suffix', '1100 Congress Avw, Austin, TX 78701', CONGRESS, 'corrected: Avw → Ave'],
    ['a wrong ZIP', '1100 Congress Ave, Austin, TX 78702', CONGRESS, 'corrected: 78702 → 78701'],
    ['a wrong state code', '1100 Congress Ave, Austin, TZ 78701', CONGRESS, 'corrected: TZ → TX'],
    [
      'a short street with a typo',
      '150 Rivre Rd, Apopka, FL 32712',
      { address: '150 River Rd, Apopka, FL 32712' },
      'corrected: Rivre → River',
    ],
    [
      'one letter missing',
      '341 Rver Rd, Witt, IL 62094',
      { address: '341 River Rd, Witt, IL 62094' },
      'corrected: Rver → River',
    ],
    [
      'a post-directional left out',
      '12 Elm St, Miami, FL 33101',
      { address: '12 Elm St NE, Miami, FL 33101' },
      'added: NE',
    ],
    [
      'typos in street and city, ZIP given',
      '233 S Wackr Dr, Chicgo, IL 60606',
      WACKER,
      'corrected: Wackr → Wacker, Chicgo → Chicago',
    ],
  ])('%s', (_, typed, matched, line) => {
    expect(said(typed, matched)).toBe(line);
  });

  it.each([
    ['the ZIP', '1100 Congress Ave, Austin, TX', CONGRESS, 'added: ZIP 78701'],
    ['the state and ZIP', '1100 Congress Ave, Austin', CONGRESS, 'added: state TX, ZIP 78701'],
    ['the city and ZIP', '1100 Congress Ave, TX', CONGRESS, 'added: city Austin, ZIP 78701'],
    ['city, state and ZIP', '1100 Congress Ave', CONGRESS, 'added: city Austin, state TX, ZIP 78701'],
    [
      'the street suffix',
      '100 Main, Houston, TX 77055',
      { address: '100 Main St, Houston, TX 77055' },
      'added: St',
    ],
    ['a directional', '233 Wacker Dr, Chicago, IL 60606', WACKER, 'added: S'],
    ['the unit', '107 N Bridge St, Austin, TX 78701', UNIT, 'added: Apt 101'],
    [
      'a city of two words',
      '100 Main St, PA 16249',
      { address: '100 Main St, Rural Valley, PA 16249' },
      'added: city Rural Valley',
    ],
  ])('added: %s', (_, typed, matched, line) => {
    expect(said(typed, matched)).toBe(line);
  });

  it('a ZIP that wins over a mistyped city', () => {
    expect(
      said('100 Main St, Rural Vlaley, PA 16249', { address: '100 Main St, Rural Valley, PA 16249' }),
    ).toBe('corrected: Vlaley → Valley');
  });

  it('a state and its ZIP at the end are no unit ("FL 32712" is not floor 32712)', () => {
    const e = explainMatch('150 River Rd, Apopka, FL 32712', {
      address: '150 River Rd Apt 2, Apopka, FL 32712',
    });
    expect(e?.changes).toEqual([{ kind: 'added', part: 'unit', typed: '', matched: 'Apt 2' }]);
  });

  it('a different unit number is a correction, whatever the designators', () => {
    expect(said('107 N Bridge St #102, Austin, TX 78701', UNIT)).toBe('corrected: #102 → Apt 101');
  });

  it('words the record does not have are "ignored"', () => {
    expect(said('1100 Congress Ave, Downtown Austin, TX 78701', CONGRESS)).toBe('ignored: Downtown');
    expect(
      said('107 N Bridge St Apt 9, Austin, TX 78701', { address: '107 N Bridge St, Austin, TX 78701' }),
    ).toBe('ignored: Apt 9');
  });

  it('keeps each word as the person typed it and as the record writes it', () => {
    expect(said('1100 CONGRES AVENUE, AUSTN TEXAS', CONGRESS)).toBe(
      'corrected: CONGRES → Congress, AUSTN → Austin; added: ZIP 78701',
    );
  });

  it('finds the city in a record written without commas, given the city', () => {
    const e = explainMatch('1100 Congres Ave Austn TX', {
      address: '1100 CONGRESS AVE AUSTIN TX 78701',
      city: 'Austin',
    });
    expect(e?.changes.map((c) => [c.kind, c.part, c.typed, c.matched])).toEqual([
      ['corrected', 'street', 'Congres', 'CONGRESS'],
      ['corrected', 'city', 'Austn', 'AUSTIN'],
      ['added', 'zip', '', '78701'],
    ]);
  });

  it('keeps the typed text recoverable, trimmed', () => {
    expect(explainMatch('  1100 Congres Ave, Austin TX 78701 ', CONGRESS)?.typed).toBe(
      '1100 Congres Ave, Austin TX 78701',
    );
  });

  it('treats symbols as punctuation and markup as words, never as patterns or markup', () => {
    expect(explainMatch('1100 Congress Ave (.*) [^$], Austin, TX 78701', CONGRESS)).toBeNull();
    expect(said('1100 Congress Ave <b>, Austin, TX 78701', CONGRESS)).toBe('ignored: b');
    expect(said('1100 Congress Ave, Austin, TX 78701 __proto__ constructor', CONGRESS)).toBe(
      'ignored: proto constructor',
    );
  });
});

describe('explainMatch: an identifier typed instead of an address', () => {
  const record = { ...CONGRESS, identifiers: ['pi_1oesttw0', '453-696-154', null] };

  it.each([['pi_1oesttw0'], [' PI_1OESTTW0 '], ['453-696-154'], ['453696154']])(
    '%j says nothing',
    (typed) => {
      expect(explainMatch(typed, record)).toBeNull();
    },
  );

  it.each([
    ['123 4th St, New York, NY 10001', '12 34th St, New York, NY 10001'],
    ['2 11 Mile Rd, Warren, MI 48089', '21 1 Mile Rd, Warren, MI 48089'],
    ['121 8 Mile Rd, Warren, MI 48089', '12 18 Mile Rd, Warren, MI 48089'],
    ['11/2 Main St, Austin, TX 78701', '1 1/2 Main St, Austin, TX 78701'],
  ])('digits spaced differently are another number, never "nothing changed": %s', (typed, address) => {
    expect(explainMatch(typed, { address })).not.toBeNull();
  });

  it('another identifier is not a match by identifier', () => {
    expect(explainMatch('pi_other', record)?.changes.length).toBeGreaterThan(0);
  });
});

describe('describeMatch', () => {
  it('groups by kind in a fixed order and labels added places', () => {
    expect(
      describeMatch({
        changes: [
          { kind: 'added', part: 'city', typed: '', matched: 'Austin' },
          { kind: 'ignored', part: 'street', typed: 'Rear', matched: '' },
          { kind: 'corrected', part: 'street', typed: 'Congres', matched: 'Congress' },
          { kind: 'added', part: 'house', typed: '', matched: '1100' },
        ],
      }),
    ).toBe('corrected: Congres → Congress; added: city Austin, house number 1100; ignored: Rear');
  });
});

describe('the suffix table', () => {
  it('holds every USPS Publication 28 suffix once, each group led by its abbreviation and primary name', () => {
    const groups = USPS_SUFFIXES.split(';').map((g) => g.split(' '));
    expect(groups).toHaveLength(202);
    expect(new Set(groups.map((g) => g[0])).size).toBe(202);
    for (const g of groups) expect(g.length, g.join(' ')).toBeGreaterThanOrEqual(2);
    // The reference's resolver reads the same table: spellings to abbreviations, abbreviations to names.
    expect(SUFFIX_ABBR.get('AVENU')).toBe('AVE');
    expect(SUFFIX_ABBR.get('PARKS')).toBe('PARK');
    expect(SUFFIX_ABBR.get('CROSSING')).toBe('XING');
    expect(SUFFIX_LONG.get('AVE')).toBe('AVENUE');
    expect(SUFFIX_LONG.get('PARK')).toBe('PARK');
    expect(SUFFIX_LONG.get('XING')).toBe('CROSSING');
  });
});

describe('matchKind', () => {
  const kind = (typed: string) =>
    matchKind(
      explainRecordMatch(typed, {
        id: 'pi_1',
        address: CONGRESS.address,
        attributes: { city: CONGRESS.city, parcelNumber: '0101' },
      }),
    );

  it('says as typed, corrected (changed or left out: worth a second look) or completed (only added)', () => {
    expect(kind('1100 congress avenue, austin tx 78701')).toBe('as_typed');
    expect(kind('1100 Congres Ave, Austn TX')).toBe('corrected');
    expect(kind('1100 Congress Ave, Austin, TX')).toBe('completed');
    // Something typed that the record does not have is not an addition: it is a difference to check.
    expect(kind('1100 Congress Ave, Downtown Austin, TX 78701')).toBe('corrected');
    // An identifier typed instead of an address is not a correction: the property id or the parcel number.
    expect(kind('pi_1')).toBe('as_typed');
    expect(kind('0101')).toBe('as_typed');
  });
});
