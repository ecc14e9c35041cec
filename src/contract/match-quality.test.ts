import { describe, expect, it } from 'vitest';
import { explainMatch } from './explain-match.ts';
import { lookReason, matchQuality } from './explain-quality.ts';
import { needsLook, qualityOf } from './match-quality.ts';

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

  it('flags a match from a street line alone as street only', () => {
    expect(q('12 Messer Rd', '12 Messer Rd, Laconia, NH 03246')).toBe('street_only');
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
