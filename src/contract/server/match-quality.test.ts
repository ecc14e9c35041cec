import { describe, expect, it } from 'vitest';
import { needsLook, qualityOf } from '../match-quality.ts';
import { explainMatch } from './explain-match.ts';
import { lookReason, matchQuality } from './explain-quality.ts';

const q = (typed: string, matched: string) => matchQuality(explainMatch(typed, { address: matched }));

describe('matchQuality', () => {
  it('calls a match as typed, or only completed, exact', () => {
    expect(q('270 W State St, Boise, ID 83702', '270 W State St, Boise, ID 83702')).toBe('exact');
    expect(q('12 Messer Rd, Laconia NH', '12 Messer Rd, Laconia, NH 03246')).toBe('exact');
  });

  it('calls a fixed typo corrected, keeping its meaning', () => {
    expect(q('1100 Congres Ave, Austin, TX 78701', '1100 Congress Ave, Austin, TX 78701')).toBe('corrected');
  });

  it('flags a changed directional or suffix as a changed meaning that needs a look', () => {
    expect(q('270 W State St, Boise, ID 83702', '270 E State St, Boise, ID 83702')).toBe('changed_meaning');
    expect(q('12 Messer Rd, Laconia, NH 03246', '12 Messer Ct, Laconia, NH 03246')).toBe('changed_meaning');
    expect(needsLook('changed_meaning')).toBe(true);
    expect(
      lookReason(
        explainMatch('270 W State St, Boise, ID 83702', { address: '270 E State St, Boise, ID 83702' }),
      ),
    ).toMatch(/^W → E: /);
  });

  it.each([
    ['West Orange → East Orange', '100 Main St, West Orange, NJ 07052', '100 Main St, East Orange, NJ 07052'],
    ['North Bergen → South Bergen', '12 Elm St, North Bergen, NJ 07047', '12 Elm St, South Bergen, NJ 07047'],
    ['Lake City → Park City', '5 Oak Ave, Lake City, FL 32025', '5 Oak Ave, Park City, FL 32025'],
    [
      'Orange → East Orange (a directional added to the city)',
      '1 Main St, Orange, NJ',
      '1 Main St, East Orange, NJ',
    ],
    ['Springfield → Chicago (no misspelling of it)', '1 Main St, Springfield, IL', '1 Main St, Chicago, IL'],
    ['Oak → Elm (a street no misspelling of it)', '9 Oak St, Boise, ID 83702', '9 Elm St, Boise, ID 83702'],
    ['Oaks → Elks (two edits are too many for four letters)', '9 Oaks St, Boise, ID', '9 Elks St, Boise, ID'],
  ])('calls another place in any part a changed meaning: %s', (_, typed, matched) => {
    const e = explainMatch(typed, { address: matched });
    expect(matchQuality(e)).toBe('changed_meaning');
    expect(lookReason(e)).toMatch(/names a different (place|street part) than the one typed/);
  });

  it.each([
    ['Austn → Austin', '1100 Congress Ave, Austn, TX 78701', '1100 Congress Ave, Austin, TX 78701'],
    ['Chicgo → Chicago', '233 S Wacker Dr, Chicgo, IL 60606', '233 S Wacker Dr, Chicago, IL 60606'],
    ['Oask → Oaks (letters swapped)', '9 Oask St, Boise, ID', '9 Oaks St, Boise, ID'],
    [
      'Luther → L (an initial)',
      '12 Martin Luther King Jr Blvd, Austin, TX',
      '12 Martin L King Jr Blvd, Austin, TX',
    ],
  ])('keeps a genuine typo a spelling correction: %s', (_, typed, matched) => {
    const e = explainMatch(typed, { address: matched });
    expect(matchQuality(e)).toBe('corrected');
    expect(lookReason(e)).toBeNull();
  });

  it('flags a match from a street line alone as street only', () => {
    expect(q('12 Messer Rd', '12 Messer Rd, Laconia, NH 03246')).toBe('street_only');
    // A city added whole, directional and all, was not typed: still street only.
    expect(q('12 Messer Rd', '12 Messer Rd, East Laconia, NH 03246')).toBe('street_only');
    expect(needsLook('street_only')).toBe(true);
    expect(needsLook('corrected')).toBe(false);
  });

  it('is sent with the explanation, and read back without the tables (older explanations fall back)', () => {
    const e = explainMatch('270 W State St, Boise, ID 83702', { address: '270 E State St, Boise, ID 83702' });
    expect(e?.quality).toBe('changed_meaning');
    expect(e?.reason).toMatch(/W → E/);
    expect(qualityOf(e)).toBe('changed_meaning');
    expect(qualityOf(null)).toBe('exact');
    expect(qualityOf({ changes: [{ kind: 'corrected' }] })).toBe('corrected');
  });
});
