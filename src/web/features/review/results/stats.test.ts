import { describe, expect, it } from 'vitest';
import { makeProperty, makeRow } from '../testing/stats.fixtures.ts';
import {
  ageHistogram,
  countLooks,
  formatShare,
  median,
  outcomeText,
  recordsByKind,
  recordsBySource,
  summarize,
  toResultRows,
} from './stats.ts';
import { clearFilter, describeFilters, filterRows, NO_FILTERS } from './stats-filters.ts';

// Noon local time, so the calendar day is 1 November 2026 wherever the test runs.
const NOW = new Date(2026, 10, 1, 12);

const verifiedDaysAgo = (days: number) => {
  const d = new Date(Date.UTC(2026, 10, 1) - days * 86_400_000);
  return d.toISOString().slice(0, 10);
};

/** A row matched exactly as given (its input is the record's address). */
const matched = (
  index: number,
  confidence: 'high' | 'medium' | 'low',
  days: number,
  source = 'A Assessor',
) => {
  const property = makeProperty({ id: `p${index}`, confidence, lastVerified: verifiedDaysAgo(days), source });
  return makeRow(index, { input: property.address, property });
};

describe('summarize', () => {
  it('counts a match that needs a look apart from Matched: another directional, or a street line alone', () => {
    const property = makeProperty({ id: 'p9', address: '390 E Union St, Austin, TX 78701' });
    const rows = toResultRows(
      [
        makeRow(0, { input: property.address, property }),
        makeRow(1, { input: '390 W Union St, Austin, TX 78701', property }),
        makeRow(2, { input: '390 E Union St', property }),
      ],
      NOW,
    );
    const s = summarize(rows);
    expect(s.outcomes.matched).toBe(1);
    expect(s.looks).toBe(2);
    expect(s.rows).toBe(3);
    // Review finding R3: such a record is in none of the records' shares (it may be another property)...
    expect(s.records).toBe(1);
    expect(s.confidence.high).toBe(1);
    // The progress tiles count them apart too, from the rows as the server sends them.
    expect(countLooks(rows.map((r) => r.row))).toBe(2);
    // ...nor shown by the Outcome filter's "Matched".
    expect(filterRows(rows, { ...NO_FILTERS, outcome: 'matched' }).map((r) => r.row.index)).toEqual([0]);
  });

  it('counts outcomes over every row and confidence and tiers over the records only', () => {
    const rows = toResultRows(
      [
        matched(0, 'high', 10),
        matched(1, 'high', 90), // last fresh day
        matched(2, 'medium', 91), // first ageing day
        matched(3, 'low', 366), // first stale day
        makeRow(4, { outcome: 'not_found' }),
        makeRow(5, { outcome: 'ambiguous' }),
        makeRow(6, { outcome: 'failed' }),
        makeRow(7, { outcome: 'pending', retrievedAt: undefined }),
        // A row of a cancelled review, never asked.
        makeRow(8, { outcome: 'not_asked', retrievedAt: undefined }),
      ],
      NOW,
    );
    const s = summarize(rows);
    expect(s.rows).toBe(9);
    expect(s.records).toBe(4);
    expect(s.outcomes).toEqual({
      matched: 4,
      not_found: 1,
      ambiguous: 1,
      failed: 1,
      pending: 1,
      not_asked: 1,
    });
    expect(s.confidence).toEqual({ high: 2, medium: 1, low: 1 });
    expect(s.tiers).toEqual({ fresh: 2, ageing: 1, stale: 1 });
    // Ages 10, 90, 91, 366: the median of an even count is the mean of the middle two.
    expect(s.medianAgeDays).toBe(90.5);
  });

  it('has no median age when nothing matched', () => {
    const s = summarize(toResultRows([makeRow(0, { outcome: 'failed' })], NOW));
    expect(s.records).toBe(0);
    expect(s.medianAgeDays).toBeNull();
  });

  it('keeps input order whatever order the rows finished in', () => {
    const rows = toResultRows([matched(2, 'high', 1), matched(0, 'low', 1), matched(1, 'medium', 1)], NOW);
    expect(rows.map((r) => r.row.index)).toEqual([0, 1, 2]);
  });
});

describe('median', () => {
  it('takes the middle of an odd count, unsorted input', () => {
    expect(median([400, 3, 20])).toBe(20);
    expect(median([])).toBeNull();
  });
});

describe('formatShare', () => {
  it('rounds to whole percent but never hides a small share or rounds up to all', () => {
    expect(formatShare(1, 3)).toBe('33%');
    expect(formatShare(1, 10_000)).toBe('<1%');
    expect(formatShare(9_999, 10_000)).toBe('>99%');
    expect(formatShare(0, 5)).toBe('0%');
    expect(formatShare(5, 5)).toBe('100%');
    expect(formatShare(0, 0)).toBe('–');
  });
});

describe('ageHistogram', () => {
  it('puts each record in the bin of its age, bins aligned with the fresh / ageing / stale tiers', () => {
    const rows = toResultRows(
      [
        matched(0, 'high', 0),
        matched(1, 'high', 30),
        matched(2, 'high', 31),
        matched(3, 'high', 90),
        matched(4, 'high', 91),
        matched(5, 'high', 365),
        matched(6, 'high', 366),
        matched(7, 'high', 4000),
        makeRow(8, { outcome: 'failed' }),
      ],
      NOW,
    );
    const h = ageHistogram(rows);
    expect(h.map((b) => [b.bin.id, b.count, b.bin.tier])).toEqual([
      ['0-30', 2, 'fresh'],
      ['31-90', 2, 'fresh'],
      ['91-180', 1, 'ageing'],
      ['181-365', 1, 'ageing'],
      ['1-2y', 1, 'stale'],
      ['2-3y', 0, 'stale'],
      ['3y+', 1, 'stale'],
    ]);
  });
});

describe('recordsBySource', () => {
  it('counts each source with its confidence mix, largest first', () => {
    const rows = toResultRows(
      [matched(0, 'high', 1, 'B'), matched(1, 'low', 1, 'A'), matched(2, 'high', 1, 'A')],
      NOW,
    );
    expect(recordsBySource(rows)).toEqual([
      { label: 'A (TX)', sources: ['A (TX)'], high: 1, medium: 0, low: 1, total: 2 },
      { label: 'B (TX)', sources: ['B (TX)'], high: 1, medium: 0, low: 0, total: 1 },
    ]);
  });

  it('tells apart agencies of one name in different states, and names a source that says its state as it is', () => {
    const inState = (i: number, source: string, state: string) =>
      makeRow(i, { property: makeProperty({ id: `s${i}`, source, attributes: { state } }) });
    const rows = toResultRows(
      [
        inState(0, 'Lincoln County Assessor', 'NE'),
        inState(1, 'Lincoln County Assessor', 'NE'),
        inState(2, 'Lincoln County Assessor', 'OR'),
        inState(3, 'Texas Department of Revenue', 'TX'),
      ],
      NOW,
    );
    expect(recordsBySource(rows).map((b) => [b.label, b.total])).toEqual([
      ['Lincoln County Assessor (NE)', 2],
      ['Lincoln County Assessor (OR)', 1],
      ['Texas Department of Revenue', 1],
    ]);
    const oregon = { ...NO_FILTERS, source: { label: 'x', names: ['Lincoln County Assessor (OR)'] } };
    expect(filterRows(rows, oregon).map((r) => r.row.index)).toEqual([2]);
  });

  it('folds a long tail of sources into one bar that still lists them', () => {
    const rows = toResultRows(
      Array.from({ length: 12 }, (_, i) => matched(i, 'medium', 1, `Source ${String(i).padStart(2, '0')}`)),
      NOW,
    );
    const bars = recordsBySource(rows, 8);
    expect(bars).toHaveLength(9);
    expect(bars[8]).toMatchObject({ label: '4 other sources', total: 4, medium: 4 });
    expect(bars[8]?.sources).toEqual([
      'Source 08 (TX)',
      'Source 09 (TX)',
      'Source 10 (TX)',
      'Source 11 (TX)',
    ]);
  });
});

describe('recordsByKind', () => {
  it('counts records by kind of source, whatever the source is called', () => {
    const kinded = (i: number, kind: string | null, confidence: 'high' | 'low', source: string) =>
      makeRow(i, { property: makeProperty({ id: `k${i}`, sourceKind: kind, confidence, source }) });
    const rows = toResultRows(
      [
        kinded(0, 'assessor', 'high', 'A County Assessor'),
        kinded(1, 'assessor', 'low', 'B County Assessor'),
        kinded(2, null, 'low', 'Someone'),
      ],
      NOW,
    );
    const text = (k: string | null) => (k === 'assessor' ? 'Assessor record' : null);
    expect(recordsByKind(rows, text)).toEqual([
      { label: 'Assessor record', sources: ['assessor'], high: 1, medium: 0, low: 1, total: 2 },
      { label: 'Kind not stated', sources: [''], high: 0, medium: 0, low: 1, total: 1 },
    ]);
    const byKind = (names: string[]) => ({ ...NO_FILTERS, source: { label: 'x', names, byKind: true } });
    expect(filterRows(rows, byKind(['assessor'])).map((r) => r.row.index)).toEqual([0, 1]);
    expect(filterRows(rows, byKind([''])).map((r) => r.row.index)).toEqual([2]);
    expect(describeFilters(byKind(['assessor']))[0]?.text).toBe('Kind of source: x');
  });
});

describe('filterRows', () => {
  const rows = toResultRows(
    [
      matched(0, 'high', 10, 'Travis County Assessor'),
      matched(1, 'low', 500, 'City Building Permits'),
      makeRow(2, { outcome: 'not_found', input: 'Rue de l’Église 4' }),
    ],
    NOW,
  );

  it('narrows by confidence, source, tier, age bin and outcome together', () => {
    expect(filterRows(rows, { ...NO_FILTERS, confidence: 'low' }).map((r) => r.row.index)).toEqual([1]);
    expect(filterRows(rows, { ...NO_FILTERS, tier: 'stale' }).map((r) => r.row.index)).toEqual([1]);
    expect(filterRows(rows, { ...NO_FILTERS, ageBin: '0-30' }).map((r) => r.row.index)).toEqual([0]);
    expect(filterRows(rows, { ...NO_FILTERS, outcome: 'not_found' }).map((r) => r.row.index)).toEqual([2]);
    expect(
      filterRows(rows, {
        ...NO_FILTERS,
        source: { label: '2 others', names: ['City Building Permits (TX)', 'X'] },
      }).map((r) => r.row.index),
    ).toEqual([1]);
    expect(filterRows(rows, { ...NO_FILTERS, confidence: 'high', tier: 'stale' })).toEqual([]);
  });

  it('matches text in the input, address, source or id, whatever the case or spacing', () => {
    expect(filterRows(rows, { ...NO_FILTERS, text: '  travis   county ' }).map((r) => r.row.index)).toEqual([
      0,
    ]);
    expect(filterRows(rows, { ...NO_FILTERS, text: 'ÉGLISE' }).map((r) => r.row.index)).toEqual([2]);
    expect(filterRows(rows, { ...NO_FILTERS, text: 'p1' }).map((r) => r.row.index)).toEqual([1]);
  });

  it('describes the active filters in words and clears one at a time', () => {
    const f = { ...NO_FILTERS, confidence: 'high' as const, ageBin: '91-180', text: ' oak ' };
    expect(describeFilters(f).map((d) => d.text)).toEqual([
      'Confidence: High',
      'Verified: 91–180 days ago',
      'Text: “oak”',
    ]);
    expect(describeFilters(clearFilter(f, 'confidence')).map((d) => d.key)).toEqual(['ageBin', 'text']);
  });
});

describe('how each record matched what was given', () => {
  it('is read from each row and can be filtered on, with a chip that says so', () => {
    const property = makeProperty();
    const rows = toResultRows(
      [
        makeRow(0, { input: '1100 Congress Ave, Austin, TX 78701', property }),
        makeRow(1, { input: '1100 Congres Ave, Austn TX', property }),
        makeRow(2, { input: '1100 Congress Ave, Austin, TX', property: makeProperty({ id: 'prop-2' }) }),
        makeRow(3, { input: '9 Nowhere Rd', outcome: 'not_found' }),
      ],
      NOW,
    );
    expect(rows.map((r) => r.match)).toEqual(['as_typed', 'corrected', 'completed', null]);
    expect(rows[1]?.explanation?.changes.map((c) => `${c.typed} → ${c.matched}`)).toContain(
      'Congres → Congress',
    );
    // The same row derived again (a review in progress re-renders) gives the same explanation object.
    const again = toResultRows([rows[1]?.row as never], NOW);
    expect(again[0]?.explanation).toBe(rows[1]?.explanation);

    const corrected = { ...NO_FILTERS, match: 'corrected' as const };
    expect(filterRows(rows, corrected).map((r) => r.row.index)).toEqual([1]);
    // Three rows, two properties (rows 0 and 1 found the same one).
    expect(summarize(rows)).toMatchObject({ records: 3, properties: 2 });
    expect(describeFilters(corrected)).toEqual([{ key: 'match', text: 'Match: Corrected' }]);
  });
});

describe('explanations from the BFF', () => {
  it("takes the BFF's word, said of the row's own input, and never works one out again", () => {
    const property = makeProperty();
    const sent = {
      typed: '1100 CONGRES AVE, AUSTN TX',
      matched: property.address,
      changes: [
        { kind: 'corrected' as const, part: 'street' as const, typed: 'Congres', matched: 'Congress' },
      ],
    };
    const rows = toResultRows(
      [
        makeRow(0, { input: '1100 congres ave, austn tx', property, match: sent }),
        makeRow(1, { input: '1100 Congress Ave, Austin, TX 78701', property, match: null }),
        // Misspelt, but the BFF said "as given": its word stands (the browser has no match algorithm).
        makeRow(2, { input: '1100 Congres Ave, Austn TX', property, match: null }),
      ],
      NOW,
    );
    expect(rows[0]?.explanation).toEqual({ ...sent, typed: '1100 congres ave, austn tx' });
    expect(rows.map((r) => r.match)).toEqual(['corrected', 'as_typed', 'as_typed']);
    expect(rows[2]?.explanation).toBeNull();
    // An explanation whose input is the row's own is the BFF's object itself, not a copy.
    const own = makeRow(3, { input: sent.typed, property, match: sent });
    expect(toResultRows([own], NOW)[0]?.explanation).toBe(sent);
  });
});

describe('outcomeText', () => {
  it('says "Unit not found" for a known building without the unit, "Not found" otherwise (R20)', () => {
    const unit = { code: 'unit_not_found' as const, message: 'x' };
    expect(outcomeText({ outcome: 'not_found', error: unit })).toBe('Unit not found');
    expect(outcomeText({ outcome: 'not_found', error: { code: 'not_found', message: 'x' } })).toBe(
      'Not found',
    );
    expect(outcomeText({ outcome: 'matched' })).toBe('Matched');
  });
});
