import { describe, expect, it } from 'vitest';
import { createRng } from '../dataset/prng.ts';
import type { PropertyStore, ResolveOutcome } from '../store.ts';
import { openTestStore } from '../test-support.ts';
import { MISTAKE_KINDS, measureAccuracy, messyCases, typo } from './messy-inputs.ts';

const { store, db } = await openTestStore();
const set = messyCases(db, { perKind: 40, seed: 5 });

describe('the messy-input set', () => {
  it('is the same set every time from the same dataset and seed', () => {
    expect(messyCases(db, { perKind: 40, seed: 5 })).toEqual(set);
    expect(messyCases(db, { perKind: 40, seed: 6 }).cases).not.toEqual(set.cases);
  });

  it('has cases of every kind of mistake', () => {
    for (const kind of MISTAKE_KINDS) {
      expect(set.cases.filter((c) => c.kind === kind).length, kind).toBeGreaterThanOrEqual(20);
    }
  });

  it('makes each typo one edit: a letter replaced, dropped, added or two swapped', () => {
    const rng = createRng(3);
    const seen = new Set<string>();
    for (let i = 0; i < 200; i++) {
      const t = typo('Congress', rng);
      expect(t.toUpperCase()).not.toBe('CONGRESS');
      expect(Math.abs(t.length - 'Congress'.length)).toBeLessThanOrEqual(1);
      seen.add(t.length < 8 ? 'delete' : t.length > 8 ? 'insert' : 'same length');
    }
    expect(seen).toEqual(new Set(['delete', 'insert', 'same length']));
  });
});

describe('the resolver on messy input (the goals of issue 10, on the test dataset)', () => {
  const report = measureAccuracy(store, set);

  it('finds the record for one typo (>= 99%), two typos (>= 90%) and a missing suffix (>= 95%)', () => {
    expect(report.oneTypo).toBeGreaterThanOrEqual(0.99);
    expect(report.twoTypos).toBeGreaterThanOrEqual(0.9);
    expect(report.noSuffix).toBeGreaterThanOrEqual(0.95);
  });

  it('answers a wrong record at most 0.5% of the time, and never a neighbour for a missing house number', () => {
    expect(report.wrongRate).toBeLessThanOrEqual(0.005);
    expect(report.neighbours).toBe(0);
    expect(report.kinds['no-such-house'].right).toBe(report.kinds['no-such-house'].cases);
  });

  it('counts a resolver that offers the nearest house as found as wrong: the measure can fail', () => {
    const eager: Pick<PropertyStore, 'resolve'> = {
      resolve(address): ResolveOutcome {
        const outcome = store.resolve(address);
        if (outcome.kind !== 'not_found' || outcome.candidates.length === 0) return outcome;
        const id = outcome.candidates[0]?.property_id as string;
        const property = store.search(id, 1, 0).items[0];
        return property ? { kind: 'found', property } : outcome;
      },
    };
    const bad = measureAccuracy(eager, set);
    expect(bad.neighbours).toBeGreaterThan(0);
    expect(bad.wrongRate).toBeGreaterThan(0.005);
    const literal: Pick<PropertyStore, 'resolve'> = {
      resolve: () => ({ kind: 'not_found', candidates: [] }),
    };
    expect(measureAccuracy(literal, set).oneTypo).toBe(0);
  });
});
