import { describe, expect, it } from 'vitest';
import { bestStreetScore, knownStreet, rank, typedStreets } from './street-score.ts';

/** The best reading of `typed` (standard tokens) against the known street key, or null when none fits. */
const score = (typed: string, known: string) =>
  bestStreetScore(typedStreets(typed.split(' ')), knownStreet(known));
const better = (typed: string, a: string, b: string) => {
  const sa = score(typed, a);
  const sb = score(typed, b);
  if (!sa) return false;
  return !sb || rank(sa) < rank(sb);
};

describe('scoreStreet', () => {
  it('takes a right street as no mistake', () => {
    expect(score('W STATE ST', 'W STATE ST')).toEqual({ mistakes: 0, missing: 0 });
  });

  it('counts a wrong directional as a mistake, so the street with the right one wins (270 W State St is not 270 E State St)', () => {
    expect(score('W STATE ST', 'E STATE ST')).toEqual({ mistakes: 1, missing: 0 });
    expect(better('W STATE ST', 'W STATE ST', 'E STATE ST')).toBe(true);
    expect(better('E STATE ST', 'E STATE ST', 'W STATE ST')).toBe(true);
  });

  it('counts a wrong suffix as a mistake, so Messer Rd beats Messer Ct for "Messer Rd"', () => {
    expect(score('MESSER RD', 'MESSER CT')).toEqual({ mistakes: 1, missing: 0 });
    expect(better('MESSER RD', 'MESSER RD', 'MESSER CT')).toBe(true);
  });

  it('takes a left-out suffix or directional as a part missing, never a mistake, and below an exact name', () => {
    expect(score('STATE', 'W STATE ST')).toEqual({ mistakes: 0, missing: 2 });
    expect(better('STATE ST', 'STATE ST', 'W STATE ST')).toBe(true);
  });

  it('counts a typo in the name as one mistake, within the name’s allowance only', () => {
    expect(score('CONGRES AVE', 'CONGRESS AVE')).toEqual({ mistakes: 1, missing: 0 });
    expect(score('XYZZY AVE', 'CONGRESS AVE')).toBeNull();
  });

  it('adds a wrong directional and a wrong suffix together: past a short name’s allowance, no match at all', () => {
    expect(score('W STATE RD', 'E STATE ST')).toBeNull();
    expect(score('W MARTIN LUTHER KING RD', 'E MARTIN LUTHER KING ST')).toEqual({ mistakes: 2, missing: 0 });
  });
});
