import Papa from 'papaparse';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { makeProperty, makeReview, makeRow } from '../testing/stats.fixtures.ts';
import {
  buildExport,
  CORE_COLUMNS,
  downloadText,
  exportFileName,
  toCsv,
  toJson,
  UTF8_BOM,
} from './export.ts';

const NOW = new Date(2026, 10, 1, 12);
const review = makeReview({ name: 'Été — Portfolio Q3 / “final”', accountName: 'Acme, “Appraisals”' });

const parse = (csv: string) =>
  Papa.parse<Record<string, string>>(csv.replace(/^\ufeff/, ''), { header: true, skipEmptyLines: true });

describe('buildExport', () => {
  it('writes one line per input row in input order, the core columns first, then attributes', () => {
    const rows = [
      makeRow(1, {
        outcome: 'not_found',
        candidates: [{ id: 'x', address: '10 Oak Rd' }],
        error: { code: 'not_found', message: 'No match.' },
      }),
      makeRow(0, {
        property: makeProperty({
          id: 'P1',
          lastVerified: '2026-10-01',
          attributes: { other: { flood_zone: 'AE' } },
        }),
      }),
    ];
    const t = buildExport(review, rows, NOW);
    expect(t.columns.slice(0, CORE_COLUMNS.length)).toEqual([
      'input',
      'outcome',
      'matched_address',
      'match',
      'match_quality',
      'match_changes',
      'property_id',
      'source',
      'source_kind',
      'confidence',
      'last_verified',
      'age_days',
      'retrieved_at',
      'account',
    ]);
    expect(t.columns).toContain('other.flood_zone');
    expect(t.records).toHaveLength(2);
    expect(t.records[0]).toMatchObject({
      input: '1 Main St',
      outcome: 'matched',
      property_id: 'P1',
      source_kind: 'assessor',
      confidence: 'high',
      age_days: 31,
      retrieved_at: '2026-11-01T10:00:00.000Z',
      account: 'Acme, “Appraisals”',
      year_built: 1998,
      'other.flood_zone': 'AE',
      error_code: null,
    });
    expect(t.records[1]).toMatchObject({
      outcome: 'not_found',
      matched_address: null,
      candidates: '10 Oak Rd',
      error_code: 'not_found',
    });
  });
});

describe('buildExport: how each record matched what was given', () => {
  it('says as given, corrected (with the corrections) or parts added, and nothing without a record', () => {
    const property = makeProperty();
    const rows = [
      makeRow(0, { input: '1100 congress avenue, austin tx 78701', property }),
      makeRow(1, { input: '1100 Congres Ave, Austn TX', property }),
      makeRow(2, { input: '1100 Congress Ave, Austin, TX', property }),
      makeRow(3, { input: '9 Nowhere Rd', outcome: 'not_found' }),
    ];
    const t = buildExport(review, rows, NOW);
    expect(t.records.map((r) => r.match)).toEqual(['as_typed', 'corrected', 'completed', null]);
    expect(t.records[0]?.match_changes).toBeNull();
    expect(t.records[1]?.match_changes).toMatch(
      /corrected: Congres → Congress, Austn → Austin; added: ZIP 78701/,
    );
    expect(t.records[2]?.match_changes).toBe('added: ZIP 78701');
    expect(t.records[3]?.match_changes).toBeNull();
  });
});

describe('toCsv', () => {
  it('neutralises cells a spreadsheet would run as formulas, a line break after the formula included', () => {
    const hostile = [
      '=HYPERLINK("http://evil","x")',
      '+1+1',
      '-2+3',
      '@SUM(A1)',
      '\t=1',
      '\r=1',
      ' =1',
      '＝1',
      '=cmd|\n/C calc',
    ];
    const rows = hostile.map((input, i) => makeRow(i, { input, outcome: 'not_found' }));
    const parsed = parse(toCsv(buildExport(review, rows, NOW)));
    expect(parsed.errors).toEqual([]);
    expect(parsed.data.map((r) => r.input)).toEqual(hostile.map((h) => `'${h}`));
    // Numbers stay numbers, and harmless text is untouched.
    const ok = parse(
      toCsv(
        buildExport(review, [makeRow(0, { input: 'Flat 2-B, 10 Main St', property: makeProperty() })], NOW),
      ),
    );
    expect(ok.data[0]?.input).toBe('Flat 2-B, 10 Main St');
    expect(ok.data[0]?.age_days).toBe('31');
  });

  it('round-trips quotes, commas, newlines and Unicode, with a BOM for Excel', () => {
    const inputs = [
      '12 "The Oaks", Apt 3',
      'Line one\nLine two',
      'Straße 5, München',
      '東京都港区 1-1',
      'café 😀, ok',
    ];
    const rows = inputs.map((input, i) =>
      makeRow(i, { input, property: makeProperty({ address: input.toUpperCase() }) }),
    );
    const csv = toCsv(buildExport(review, rows, NOW));
    expect(csv.startsWith(UTF8_BOM)).toBe(true);
    const parsed = parse(csv);
    expect(parsed.errors).toEqual([]);
    expect(parsed.data.map((r) => r.input)).toEqual(inputs);
    expect(parsed.data.map((r) => r.matched_address)).toEqual(inputs.map((i) => i.toUpperCase()));
    expect(parsed.data[0]?.account).toBe('Acme, “Appraisals”');
    // Blank, not "null", where a row has no value.
    expect(parsed.data[0]?.error_code).toBe('');
  });
});

describe('toJson', () => {
  it('keeps raw values (no apostrophes) and says what was exported, when and by whom', () => {
    const rows = [
      makeRow(0, { input: '=1+1', outcome: 'failed', error: { code: 'upstream_timeout', message: 'Slow.' } }),
    ];
    const doc = JSON.parse(toJson(review, buildExport(review, rows, NOW), NOW));
    expect(doc.review).toMatchObject({
      name: review.name,
      account: 'Acme, “Appraisals”',
      rows: 1,
      exportedAt: NOW.toISOString(),
    });
    expect(doc.rows[0]).toMatchObject({
      input: '=1+1',
      outcome: 'failed',
      error_code: 'upstream_timeout',
      property_id: null,
    });
  });
});

describe('exportFileName', () => {
  it('makes the review name safe for a file and adds the day', () => {
    expect(exportFileName(review, 'csv', NOW)).toBe('proplens-ete-portfolio-q3-final-2026-11-01.csv');
    expect(exportFileName(makeReview({ name: '東京' }), 'json', NOW)).toBe('proplens-review-2026-11-01.json');
  });
});

describe('downloadText', () => {
  const original = { create: URL.createObjectURL, revoke: URL.revokeObjectURL };
  afterEach(() => {
    URL.createObjectURL = original.create;
    URL.revokeObjectURL = original.revoke;
    vi.restoreAllMocks();
    vi.useRealTimers();
  });

  it('saves through a Blob URL under the given name and frees the URL', async () => {
    vi.useFakeTimers();
    // jsdom has no Blob URLs: stand-ins that record what they were given.
    const createObjectURL = vi.fn((_: Blob) => 'blob:proplens/1');
    const revokeObjectURL = vi.fn();
    URL.createObjectURL = createObjectURL;
    URL.revokeObjectURL = revokeObjectURL;
    const clicked: { href: string; download: string }[] = [];
    vi.spyOn(HTMLAnchorElement.prototype, 'click').mockImplementation(function (this: HTMLAnchorElement) {
      clicked.push({ href: this.href, download: this.download });
    });
    downloadText('a,b\r\n', 'text/csv;charset=utf-8', 'x.csv');
    expect(clicked).toEqual([{ href: 'blob:proplens/1', download: 'x.csv' }]);
    const blob = createObjectURL.mock.calls[0]?.[0];
    expect(blob).toBeInstanceOf(Blob);
    expect(await blob?.text()).toBe('a,b\r\n');
    expect(blob?.type).toBe('text/csv;charset=utf-8');
    expect(revokeObjectURL).not.toHaveBeenCalled();
    vi.runAllTimers();
    expect(revokeObjectURL).toHaveBeenCalledWith('blob:proplens/1');
  });
});

describe('an uploaded CSV joins back', () => {
  const csvReview = makeReview({ columns: ['loan_id', 'Street', 'loan_id', '__proto__'], runs: [] });
  const rows = [
    makeRow(0, { cells: ['=HYPERLINK("x")', '1 Main St', 'dup', 'p'], property: makeProperty({ id: 'P1' }) }),
    makeRow(1, {
      outcome: 'not_found',
      cells: ['＋L2', '2 Oak Rd', 'dup2', 'q'],
      error: { code: 'not_found', message: 'No.' },
    }),
  ];

  it('puts the file’s own columns first, every one in order, then PropLens’s prefixed', () => {
    const t = buildExport(csvReview, rows, NOW);
    expect(t.columns.slice(0, 5)).toEqual([
      'loan_id',
      'Street',
      'loan_id (3)',
      '__proto__',
      'proplens_input',
    ]);
    expect(t.columns).toContain('proplens_confidence');
    expect(t.columns.filter((c) => !c.startsWith('proplens_'))).toHaveLength(4);
    const csv = parse(toCsv(t));
    expect(csv.data[0]?.loan_id).toBe('\'=HYPERLINK("x")');
    expect(csv.data[1]?.loan_id).toBe("'＋L2");
    expect(csv.data[0]?.proplens_property_id).toBe('P1');
    expect(csv.data[1]?.['loan_id (3)']).toBe('dup2');
    // A header named __proto__ is a column like any other (Papa's own parse cannot show it: read the text).
    expect(toCsv(t).split('\r\n')[1]).toMatch(/^"'=HYPERLINK\(""x""\)",1 Main St,dup,p,/);
  });

  it('nests the file’s fields under input in JSON', () => {
    const t = buildExport(csvReview, rows, NOW);
    const json = JSON.parse(toJson(csvReview, t, NOW));
    const input = json.rows[0].input;
    expect(Object.keys(input)).toEqual(['loan_id', 'Street', 'loan_id (3)', '__proto__']);
    expect(input.loan_id).toBe('=HYPERLINK("x")');
    expect(Object.getOwnPropertyDescriptor(input, '__proto__')?.value).toBe('p');
    expect(json.rows[0].proplens_property_id).toBe('P1');
  });

  it('adds changed and previous_* columns once a review was checked again', () => {
    const counts = { total: 1, done: 1, matched: 1, notFound: 0, ambiguous: 0, failed: 0 };
    const again = makeReview({
      runs: [
        { number: 1, startedAt: '2026-11-01T00:00:00Z', finishedAt: '2026-11-01T00:10:00Z', counts },
        { number: 2, startedAt: '2026-11-02T00:00:00Z', finishedAt: '2026-11-02T00:10:00Z', counts },
      ],
    });
    const previous = {
      outcome: 'matched' as const,
      propertyId: 'P1',
      source: 'X',
      confidence: 'high' as const,
      lastVerified: '2026-01-01',
    };
    const t = buildExport(
      again,
      [makeRow(0, { property: makeProperty({ id: 'P1', confidence: 'low' }), previous })],
      NOW,
    );
    expect(t.columns).toContain('previous_confidence');
    expect(buildExport(makeReview({ runs: [] }), [], NOW).columns).not.toContain('changed');
    expect(t.records[0]).toMatchObject({
      changed: true,
      previous_confidence: 'high',
      previous_last_verified: '2026-01-01',
    });
  });

  it('has no change columns for a review checked once: one run, nothing to compare with', () => {
    const counts = { total: 1, done: 1, matched: 1, notFound: 0, ambiguous: 0, failed: 0 };
    const once = makeReview({
      runs: [{ number: 1, startedAt: '2026-11-01T00:00:00Z', finishedAt: '2026-11-01T00:10:00Z', counts }],
    });
    const t = buildExport(once, [makeRow(0, { property: makeProperty({ id: 'P1' }) })], NOW);
    for (const column of ['changed', 'previous_outcome', 'previous_property_id', 'previous_source'])
      expect(t.columns).not.toContain(column);
    expect(Object.keys(t.records[0] ?? {})).not.toContain('changed');
    expect(toCsv(t).split('\r\n')[0]).not.toMatch(/changed|previous_/);
  });

  it('says which rows a reviewer fixed, looked up as what, by whom and when, once any was', () => {
    const fix = {
      address: '100 Main St, Salem, OR',
      how: 'candidate' as const,
      by: 'ab12cd34',
      at: '2026-11-01T11:00:00Z',
    };
    const rows = [
      makeRow(0, { input: '100 Main St', property: makeProperty({ id: 'P1' }), fix }),
      makeRow(1, { property: makeProperty({ id: 'P2' }) }),
    ];
    const t = buildExport(review, rows, NOW);
    expect(t.columns.slice(-4)).toEqual(['looked_up_as', 'fixed_how', 'fixed_by', 'fixed_at']);
    expect(t.records[0]).toMatchObject({
      input: '100 Main St',
      looked_up_as: '100 Main St, Salem, OR',
      fixed_how: 'candidate',
      fixed_by: 'ab12cd34',
      fixed_at: '2026-11-01T11:00:00Z',
    });
    expect(t.records[1]).toMatchObject({ looked_up_as: null, fixed_by: null });
    expect(buildExport(review, rows.slice(1), NOW).columns).not.toContain('looked_up_as');
  });
});
