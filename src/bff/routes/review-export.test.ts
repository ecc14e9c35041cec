import { sql } from 'kysely';
import Papa from 'papaparse';
import { describe, expect, it } from 'vitest';
import { ApiErrorBody, type Property, type RowFix } from '../../contract/index.ts';
import type { StoredAnswer } from '../reviews/look-up-row.ts';
import { EXPORT_PAGE_ROWS } from '../stores/reviews/export-rows.ts';
import { databaseBackends } from '../test-support/database-backends.ts';
import { createHarness, type HarnessOptions } from '../test-support/harness.ts';
import { type SeedRow, seedReview } from '../test-support/seed-review.ts';

/*
 * GET /api/reviews/:id/export.csv and .json, as a reviewer's download meets them, on both databases: every row in
 * input order (the file's own columns first), the columns the export has always had, formulas a spreadsheet would
 * run neutralised, the run chosen, a safe file name, and nothing of another account's.
 */

const TODAY = '2026-11-01';

function property(over: Partial<Property> & { attributes?: Partial<Property['attributes']> } = {}): Property {
  const { attributes, ...rest } = over;
  return {
    id: 'prop-1',
    address: '1100 Congress Ave, Austin, TX 78701',
    source: 'Travis County Assessor',
    sourceKind: 'assessor',
    confidence: 'high',
    lastVerified: '2026-10-01',
    ...rest,
    attributes: {
      city: 'Austin',
      state: 'TX',
      zip: '78701',
      county: 'Travis County',
      propertyType: 'single_family',
      yearBuilt: 1998,
      bedrooms: 3,
      ...attributes,
    },
  };
}

const matched = (p: Property = property()): StoredAnswer => ({
  outcome: 'matched',
  property: p,
  cached: false,
  retrievedAt: '2026-11-01T10:00:00.000Z',
});
const missed = (over: Partial<StoredAnswer> = {}): StoredAnswer => ({
  outcome: 'not_found',
  error: { code: 'not_found', message: 'No match.' },
  cached: false,
  retrievedAt: '2026-11-01T10:00:00.000Z',
  ...over,
});
/** A row answered once (or as given in later runs). */
const row = (address: string, ...answers: (StoredAnswer | null)[]): SeedRow => ({ address, answers });

const parse = (csv: string) =>
  Papa.parse<Record<string, string>>(csv.replace(/^\ufeff/, ''), { header: true, skipEmptyLines: true });

const backends = databaseBackends('review-export');

describe.each(backends)('the review export on $name', (backend) => {
  /** A signed-in harness, its account, and a seeded review of `rows` in that account. */
  async function setUp(options: Omit<HarnessOptions, 'database'> = {}) {
    const h = createHarness({ ...options, database: backend.database });
    const signedIn = (await (await h.signIn()).json()) as { accountId: string; account: { name: string } };
    const seed = (rows: SeedRow[], more: { name?: string; columns?: string[]; runs?: number } = {}) =>
      seedReview(backend.database, {
        accountId: signedIn.accountId,
        name: more.name ?? 'Portfolio Q3',
        ...(more.columns ? { columns: more.columns } : {}),
        runs: more.runs ?? 1,
        total: rows.length,
        row: (i) => rows[i] as SeedRow,
      });
    const get = (id: string, ext: 'csv' | 'json', query = `today=${TODAY}`) =>
      h.call(`/api/reviews/${id}/export.${ext}${query ? `?${query}` : ''}`);
    const csv = async (id: string, query?: string) => {
      const res = await get(id, 'csv', query);
      expect(res.status, await res.clone().text()).toBe(200);
      return res.text();
    };
    const json = async (id: string, query?: string): Promise<any> => {
      const res = await get(id, 'json', query);
      expect(res.status, await res.clone().text()).toBe(200);
      return JSON.parse(await res.text());
    };
    return { h, account: signedIn.account.name, seed, get, csv, json };
  }

  it('joins back to the file by source row, and says why a row has no record: the service’s reason, or no address', async () => {
    const { seed, csv, json } = await setUp();
    const id = await seed(
      [
        { ...row('1 Main St, Austin, TX 78701', matched()), sourceRow: 2, cells: ['1 Main St', ''] },
        // The file's row 3 was blank; row 4 has a parcel number but no address, and nothing else to ask by.
        {
          ...row('', missed({ outcome: 'failed', error: { code: 'no_address', message: 'No address.' } })),
          sourceRow: 4,
          cells: ['', 'R-88'],
        },
        {
          ...row(
            '9999 Congress Ave, Austin, TX 78701',
            missed({
              error: {
                code: 'not_found',
                message: 'No property matches this address.',
                reason: 'no_such_house',
              },
            }),
          ),
          sourceRow: 5,
          cells: ['9999 Congress Ave', ''],
        },
        // A known building without the unit asked for (review finding R20: its reason was empty).
        {
          ...row(
            '615 Bourbon St Unit 9, New Orleans, LA 70116',
            missed({
              error: { code: 'unit_not_found', message: 'The building is known, but not that unit.' },
            }),
          ),
          sourceRow: 6,
          cells: ['615 Bourbon St Unit 9', ''],
        },
      ],
      { columns: ['Situs Address', 'APN'] },
    );
    const parsed = parse(await csv(id));
    expect(parsed.data.map((r) => [r.proplens_source_row, r['Situs Address'], r.APN])).toEqual([
      ['2', '1 Main St', ''],
      ['4', '', 'R-88'],
      ['5', '9999 Congress Ave', ''],
      ['6', '615 Bourbon St Unit 9', ''],
    ]);
    expect(parsed.data.map((r) => [r.proplens_outcome, r.proplens_reason, r.proplens_error_message])).toEqual(
      [
        ['matched', '', ''],
        ['failed', 'no_address', 'No address.'],
        ['not_found', 'no_such_house', 'The street is known there, but not that house number.'],
        ['not_found', 'unit_not_found', 'The building is known, but not that unit.'],
      ],
    );
    const doc = await json(id);
    expect(doc.rows.map((r: Record<string, unknown>) => [r.proplens_source_row, r.proplens_reason])).toEqual([
      [2, null],
      [4, 'no_address'],
      [5, 'no_such_house'],
      [6, 'unit_not_found'],
    ]);
  });

  it('writes semicolons and decimal commas when asked (Excel where a comma is the decimal separator)', async () => {
    const { seed, csv, get } = await setUp();
    const id = await seed([row('1 Main St; rear', matched(property({ attributes: { bathrooms: 2.5 } })))], {
      columns: ['Straße', 'Ort'],
    });
    const text = await csv(id, `today=${TODAY}&separator=semicolon`);
    const parsed = Papa.parse<Record<string, string>>(text.replace(/^\ufeff/, ''), {
      header: true,
      delimiter: ';',
      skipEmptyLines: true,
    });
    expect(parsed.errors).toEqual([]);
    expect(parsed.meta.fields?.slice(0, 3)).toEqual(['Straße', 'Ort', 'proplens_source_row']);
    expect(parsed.data[0]?.proplens_input).toBe('1 Main St; rear');
    expect(parsed.data[0]?.proplens_bathrooms).toBe('2,5');
    expect(text.split('\r\n')[0]).not.toContain(',');
    expect((await get(id, 'csv', 'separator=tab')).status).toBe(400);
  });

  it('writes one line per input row in input order, the core columns first, then attributes', async () => {
    const { seed, csv, account } = await setUp();
    const id = await seed([
      row('1 Main St', matched(property({ id: 'P1', attributes: { other: { flood_zone: 'AE' } } }))),
      row(
        '2 Main St',
        missed({
          candidates: [{ id: 'x', address: '10 Oak Rd' }],
          error: { code: 'not_found', message: 'No.' },
        }),
      ),
    ]);
    const parsed = parse(await csv(id));
    expect(parsed.errors).toEqual([]);
    expect(parsed.meta.fields?.slice(0, 17)).toEqual([
      'source_row',
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
      // Who started the review: the key, and its holder's name when they gave one (none here).
      'started_by',
      'started_by_name',
    ]);
    // Every attribute of a record follows, in the record's order, then the service's extra fields.
    expect(parsed.meta.fields?.slice(17, 20)).toEqual(['street_number', 'street_name', 'unit']);
    expect(parsed.meta.fields?.slice(-5)).toEqual([
      'other.flood_zone',
      'error_code',
      'error_message',
      'reason',
      'candidates',
    ]);
    expect(parsed.data).toHaveLength(2);
    expect(parsed.data[0]).toMatchObject({
      input: '1 Main St',
      outcome: 'matched',
      property_id: 'P1',
      source_kind: 'assessor',
      confidence: 'high',
      age_days: '31',
      retrieved_at: '2026-11-01T10:00:00.000Z',
      account,
      year_built: '1998',
      'other.flood_zone': 'AE',
      error_code: '',
    });
    expect(parsed.data[1]).toMatchObject({
      outcome: 'not_found',
      matched_address: '',
      candidates: '10 Oak Rd',
      error_code: 'not_found',
      'other.flood_zone': '',
    });
  });

  it('says how each record matched what was given: as given, corrected (with what), parts added', async () => {
    const { seed, json } = await setUp();
    const p = property();
    const id = await seed([
      row('1100 congress avenue, austin tx 78701', matched(p)),
      row('1100 Congres Ave, Austn TX', matched(p)),
      row('1100 Congress Ave, Austin, TX', matched(p)),
      row('9 Nowhere Rd', missed()),
    ]);
    const doc = await json(id);
    expect(doc.rows.map((r: { match: string | null }) => r.match)).toEqual([
      'as_typed',
      'corrected',
      'completed',
      null,
    ]);
    expect(doc.rows[0].match_changes).toBeNull();
    expect(doc.rows[1].match_changes).toMatch(
      /corrected: Congres → Congress, Austn → Austin; added: ZIP 78701/,
    );
    expect(doc.rows[2].match_changes).toBe('added: ZIP 78701');
    expect(doc.rows[3].match_changes).toBeNull();
    expect(doc.rows[3].match_quality).toBeNull();
  });

  it('neutralises cells a spreadsheet would run as formulas, a line break after the formula included', async () => {
    const { seed, csv } = await setUp();
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
    const id = await seed([...hostile.map((h) => row(h, missed())), row('Flat 2-B, 10 Main St', matched())]);
    const parsed = parse(await csv(id));
    expect(parsed.errors).toEqual([]);
    expect(parsed.data.slice(0, hostile.length).map((r) => r.input)).toEqual(hostile.map((h) => `'${h}`));
    // Numbers stay numbers, and harmless text is untouched.
    expect(parsed.data.at(-1)?.input).toBe('Flat 2-B, 10 Main St');
    expect(parsed.data.at(-1)?.age_days).toBe('31');
  });

  it('round-trips quotes, commas, newlines and Unicode, with a BOM for Excel, blank where there is no value', async () => {
    const { seed, get, account } = await setUp();
    const inputs = [
      '12 "The Oaks", Apt 3',
      'Line one\nLine two',
      'Straße 5, München',
      '東京都港区 1-1',
      'café 😀, ok',
    ];
    const id = await seed(inputs.map((i) => row(i, matched(property({ address: i.toUpperCase() })))));
    const res = await get(id, 'csv');
    // The BOM, read as bytes: a fetch Response's text() drops it.
    const bytes = new Uint8Array(await res.arrayBuffer());
    expect([...bytes.slice(0, 3)]).toEqual([0xef, 0xbb, 0xbf]);
    const text = new TextDecoder().decode(bytes);
    expect(text.endsWith('\r\n')).toBe(true);
    const parsed = parse(text);
    expect(parsed.errors).toEqual([]);
    expect(parsed.data.map((r) => r.input)).toEqual(inputs);
    expect(parsed.data.map((r) => r.matched_address)).toEqual(inputs.map((i) => i.toUpperCase()));
    expect(parsed.data[0]?.account).toBe(account);
    expect(parsed.data[0]?.error_code).toBe('');
  });

  it('keeps raw values in JSON (no apostrophes) and says what was exported, when and by whom', async () => {
    const { seed, json, account } = await setUp();
    const id = await seed([
      row('=1+1', missed({ outcome: 'failed', error: { code: 'upstream_timeout', message: 'Slow.' } })),
      row('Later 1', null),
    ]);
    const before = Date.now();
    const doc = await json(id);
    expect(doc.review).toMatchObject({ id, name: 'Portfolio Q3', account, rows: 2, run: 1 });
    expect(Date.parse(doc.review.exportedAt)).toBeGreaterThanOrEqual(before - 1_000);
    expect(doc.columns.slice(0, 3)).toEqual(['source_row', 'input', 'outcome']);
    expect(doc.rows[0]).toMatchObject({
      input: '=1+1',
      outcome: 'failed',
      error_code: 'upstream_timeout',
      property_id: null,
    });
    // A row not answered yet is in the file too, saying so.
    expect(doc.rows[1]).toMatchObject({ input: 'Later 1', outcome: 'pending', retrieved_at: null });
  });

  it('names the file after the review, safe for a file and a header, and the reader’s day', async () => {
    const { seed, get } = await setUp();
    const names: [string, string][] = [
      ['Été — Portfolio Q3 / “final”', 'proplens-ete-portfolio-q3-final-2026-11-01.csv'],
      ['東京', 'proplens-review-2026-11-01.csv'],
      ['a"b\\c\r\nSet-Cookie: x=1; ../../etc', 'proplens-a-b-c-set-cookie-x-1-etc-2026-11-01.csv'],
    ];
    for (const [name, file] of names) {
      const res = await get(await seed([row('1 Main St', matched())], { name }), 'csv');
      expect(res.headers.get('content-disposition')).toBe(`attachment; filename="${file}"`);
      expect(res.headers.get('content-type')).toBe('text/csv; charset=utf-8');
      expect(res.headers.get('set-cookie')).toBeNull();
    }
    const json = await get(await seed([row('1 Main St', matched())]), 'json');
    expect(json.headers.get('content-disposition')).toBe(
      'attachment; filename="proplens-portfolio-q3-2026-11-01.json"',
    );
    expect(json.headers.get('content-type')).toBe('application/json; charset=utf-8');
  });

  it('counts ages to today in UTC when the reader does not say their day', async () => {
    const { seed, json } = await setUp();
    const id = await seed([row('1 Main St', matched(property({ lastVerified: '2020-01-01' })))]);
    const day = (ms: number) => new Date(ms).toISOString().slice(0, 10);
    const before = Date.now();
    const doc = await json(id, '');
    const ages = [before, Date.now()].map((t) =>
      Math.round((Date.parse(day(t)) - Date.UTC(2020, 0, 1)) / 86_400_000),
    );
    expect(ages).toContain(doc.rows[0].age_days);
  });

  it('streams a review of many pages whole and in order, in CSV and in JSON', async () => {
    const { seed, csv, json } = await setUp();
    const n = EXPORT_PAGE_ROWS * 2 + 345;
    // The worker keeps how each record matched with its answer (match: null, as given).
    const id = await seed(
      Array.from({ length: n }, (_, i) =>
        row(`${i} Main St`, i % 3 === 0 ? missed() : { ...matched(), match: null }),
      ),
    );
    const parsed = parse(await csv(id));
    expect(parsed.errors).toEqual([]);
    expect(parsed.data.map((r) => r.input)).toEqual(Array.from({ length: n }, (_, i) => `${i} Main St`));
    const doc = await json(id);
    expect(doc.review.rows).toBe(n);
    expect(doc.rows.map((r: { input: string }) => r.input)).toEqual(
      Array.from({ length: n }, (_, i) => `${i} Main St`),
    );
  }, 30_000);

  it('exports every row when a stored answer is damaged: that row as not answered, as the table shows it', async () => {
    const { h, seed, csv, json } = await setUp();
    const n = EXPORT_PAGE_ROWS + 10;
    const id = await seed(
      Array.from({ length: n }, (_, i) => row(`${i} Main St`, matched(property({ id: `P${i}` })))),
    );
    // Not JSON; a property without its fields; candidates that are not a list; an attribute the record has not.
    const damaged = new Map([
      [3, 'not json {'],
      [500, '{"outcome":"matched","property":{"id":5}}'],
      [EXPORT_PAGE_ROWS + 2, '{"outcome":"not_found","candidates":"x"}'],
      [EXPORT_PAGE_ROWS + 7, JSON.stringify(matched(property({ attributes: { pool: 'yes' } as never })))],
    ]);
    for (const [index, text] of damaged)
      await sql`update review_results set result = ${text}
        where review_id = ${id} and row_index = ${index}`.execute(backend.database.db);
    const expected = (i: number) => (damaged.has(i) ? ['pending', ''] : ['matched', `P${i}`]);
    const parsed = parse(await csv(id));
    expect(parsed.errors).toEqual([]);
    expect(parsed.data.map((r) => [r.outcome, r.property_id])).toEqual(
      Array.from({ length: n }, (_, i) => expected(i)),
    );
    const doc = await json(id);
    expect(
      doc.rows.map((r: { outcome: string; property_id: string | null }) => [r.outcome, r.property_id ?? '']),
    ).toEqual(Array.from({ length: n }, (_, i) => expected(i)));
    // The rows API says the same of those rows.
    const page = (await (await h.call(`/api/reviews/${id}/rows?limit=10`)).json()) as {
      rows: { outcome: string }[];
    };
    expect(page.rows[3]?.outcome).toBe('pending');
  }, 30_000);
});

describe.each(backends)('an uploaded CSV joins back, on $name', (backend) => {
  const columns = ['loan_id', 'Street', 'loan_id', '__proto__'];
  const rows: SeedRow[] = [
    {
      address: '1 Main St',
      cells: ['=HYPERLINK("x")', '1 Main St', 'dup', 'p'],
      answers: [matched(property({ id: 'P1' }))],
    },
    { address: '2 Oak Rd', cells: ['＋L2', '2 Oak Rd', 'dup2', 'q'], answers: [missed()] },
  ];
  async function exported(ext: 'csv' | 'json') {
    const h = createHarness({ database: backend.database });
    const { accountId } = (await (await h.signIn()).json()) as { accountId: string };
    const id = await seedReview(backend.database, {
      accountId,
      name: 'deal-7',
      columns,
      runs: 1,
      total: rows.length,
      row: (i) => rows[i] as SeedRow,
    });
    const res = await h.call(`/api/reviews/${id}/export.${ext}?today=${TODAY}`);
    expect(res.status).toBe(200);
    return res.text();
  }

  it('puts the file’s own columns first, every one in order, then PropLens’s prefixed', async () => {
    const text = await exported('csv');
    const csv = parse(text);
    expect(csv.meta.fields?.slice(0, 6)).toEqual([
      'loan_id',
      'Street',
      'loan_id (3)',
      '__proto__',
      'proplens_source_row',
      'proplens_input',
    ]);
    expect(csv.meta.fields).toContain('proplens_confidence');
    expect(csv.meta.fields?.filter((c) => !c.startsWith('proplens_'))).toHaveLength(4);
    expect(csv.data[0]?.loan_id).toBe('\'=HYPERLINK("x")');
    expect(csv.data[1]?.loan_id).toBe("'＋L2");
    expect(csv.data[0]?.proplens_property_id).toBe('P1');
    expect(csv.data[1]?.['loan_id (3)']).toBe('dup2');
    // A header named __proto__ is a column like any other (Papa's own parse cannot show it: read the text).
    expect(text.split('\r\n')[1]).toMatch(/^"'=HYPERLINK\(""x""\)",1 Main St,dup,p,/);
  });

  it('nests the file’s fields under input in JSON', async () => {
    const json = JSON.parse(await exported('json'));
    const input = json.rows[0].input;
    expect(Object.keys(input)).toEqual(['loan_id', 'Street', 'loan_id (3)', '__proto__']);
    expect(input.loan_id).toBe('=HYPERLINK("x")');
    expect(Object.getOwnPropertyDescriptor(input, '__proto__')?.value).toBe('p');
    expect(json.rows[0].proplens_property_id).toBe('P1');
    expect(json.columns.slice(0, 4)).toEqual(['loan_id', 'Street', 'loan_id (3)', '__proto__']);
  });
});

describe.each(backends)('runs, fixes and who may export, on $name', (backend) => {
  async function signedIn(key?: string) {
    const h = createHarness({ database: backend.database });
    const { accountId } = (await (await h.signIn(key)).json()) as { accountId: string };
    return { h, accountId };
  }
  const twoRuns = (accountId: string) => {
    const before = matched(property({ id: 'P1', confidence: 'high', lastVerified: '2026-01-01' }));
    const after = matched(property({ id: 'P1', confidence: 'low' }));
    const rows = [row('1 Main St', before, after), row('2 Main St', matched(), matched())];
    return seedReview(backend.database, {
      accountId,
      name: 'Checked again',
      runs: 2,
      total: rows.length,
      row: (i) => rows[i] as SeedRow,
    });
  };

  it('adds changed and previous_* columns for a run after the first, the latest by default', async () => {
    const { h, accountId } = await signedIn();
    const id = await twoRuns(accountId);
    const doc = JSON.parse(await (await h.call(`/api/reviews/${id}/export.json`)).text());
    expect(doc.review.run).toBe(2);
    expect(doc.columns).toContain('previous_confidence');
    expect(doc.rows[0]).toMatchObject({
      confidence: 'low',
      changed: true,
      previous_confidence: 'high',
      previous_last_verified: '2026-01-01',
    });
    expect(doc.rows[1]).toMatchObject({ changed: false, previous_confidence: null });
    expect(parse(await (await h.call(`/api/reviews/${id}/export.csv`)).text()).data[0]?.changed).toBe('true');
  });

  it('exports the run asked for; run 1, with nothing before it, has no change columns', async () => {
    const { h, accountId } = await signedIn();
    const id = await twoRuns(accountId);
    const res = await h.call(`/api/reviews/${id}/export.csv?run=1`);
    expect(res.status).toBe(200);
    const text = await res.text();
    expect(text.replace(/^\ufeff/, '').split('\r\n')[0]).not.toMatch(/changed|previous_/);
    expect(parse(text).data[0]).toMatchObject({ confidence: 'high', last_verified: '2026-01-01' });
    const once = await seedReview(backend.database, {
      accountId,
      name: 'Once',
      runs: 1,
      total: 1,
      row: () => row('1 Main St', matched()),
    });
    expect((await (await h.call(`/api/reviews/${once}/export.csv`)).text()).split('\r\n')[0]).not.toMatch(
      /changed|previous_/,
    );
    const missing = await h.call(`/api/reviews/${id}/export.csv?run=3`);
    expect(missing.status).toBe(404);
    expect(ApiErrorBody.parse(await missing.json()).error.code).toBe('not_found');
  });

  it('says which rows a reviewer fixed, looked up as what, by whom and when, once any was', async () => {
    const { h, accountId } = await signedIn();
    const fix: RowFix = {
      address: '100 Main St, Salem, OR',
      how: 'candidate',
      by: 'ab12cd34',
      at: '2026-11-01T11:00:00Z',
      run: 1,
    };
    const rows: SeedRow[] = [
      { ...row('100 Main St', matched(property({ id: 'P1' }))), fix },
      row('2 Main St', matched(property({ id: 'P2' }))),
    ];
    const id = await seedReview(backend.database, {
      accountId,
      name: 'Fixed',
      runs: 1,
      total: 2,
      row: (i) => rows[i] as SeedRow,
    });
    const doc = JSON.parse(await (await h.call(`/api/reviews/${id}/export.json`)).text());
    expect(doc.columns.slice(-5)).toEqual([
      'looked_up_as',
      'fixed_how',
      'fixed_by',
      'fixed_by_name',
      'fixed_at',
    ]);
    expect(doc.rows[0]).toMatchObject({
      input: '100 Main St',
      looked_up_as: '100 Main St, Salem, OR',
      fixed_how: 'candidate',
      fixed_by: 'ab12cd34',
      fixed_at: '2026-11-01T11:00:00Z',
    });
    expect(doc.rows[1]).toMatchObject({ looked_up_as: null, fixed_by: null });
    const unfixed = await seedReview(backend.database, {
      accountId,
      name: 'Unfixed',
      runs: 1,
      total: 1,
      row: () => rows[1] as SeedRow,
    });
    const header = (await (await h.call(`/api/reviews/${unfixed}/export.csv`)).text()).split('\r\n')[0];
    expect(header).not.toContain('looked_up_as');
  });

  it('is the account’s: a colleague’s key exports it, another account gets 404, no session 401', async () => {
    const { h, accountId } = await signedIn();
    const id = await twoRuns(accountId);
    const colleague = await signedIn('pi_demo_professional_2');
    expect(colleague.accountId).toBe(accountId);
    expect((await colleague.h.call(`/api/reviews/${id}/export.csv`)).status).toBe(200);
    const other = await signedIn('pi_demo_enterprise');
    expect(other.accountId).not.toBe(accountId);
    for (const ext of ['csv', 'json']) {
      const res = await other.h.call(`/api/reviews/${id}/export.${ext}`);
      expect(res.status).toBe(404);
      const body = await res.text();
      expect(ApiErrorBody.parse(JSON.parse(body)).error.code).toBe('not_found');
      expect(body).not.toContain('1 Main St');
    }
    h.cookie = '';
    const anonymous = await h.call(`/api/reviews/${id}/export.csv`);
    expect(anonymous.status).toBe(401);
  });

  it('refuses a run or a day that is not one, with 400', async () => {
    const { h, accountId } = await signedIn();
    const id = await twoRuns(accountId);
    for (const query of ['run=0', 'run=two', 'today=2026-02-30', 'today=yesterday']) {
      const res = await h.call(`/api/reviews/${id}/export.csv?${query}`);
      expect(res.status, query).toBe(400);
      expect(ApiErrorBody.parse(await res.json()).error.code).toBe('bad_request');
    }
  });
});
