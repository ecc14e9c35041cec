import { act, screen, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { useState } from 'react';
import { afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import type { ReviewRowResult } from '../../../../contract/index.ts';
import { fakeApi, layOutElements, Route, renderRoutes } from '../../../test/utils.tsx';
import { generateRows, makeProperty, makeRow, makeSummary } from '../testing/stats.fixtures.ts';
import { ReviewResults } from './review-results.tsx';

// Noon local time on 1 November 2026: every age below counts from this calendar day.
const NOW = new Date(2026, 10, 1, 12);
const daysAgo = (n: number) => new Date(Date.UTC(2026, 10, 1) - n * 86_400_000).toISOString().slice(0, 10);

const ROWS: ReviewRowResult[] = [
  makeRow(0, {
    input: '1100 Congress Ave',
    property: makeProperty({
      id: 'P-A',
      address: '1100 CONGRESS AVE, AUSTIN, TX',
      confidence: 'high',
      lastVerified: daysAgo(10),
    }),
  }),
  makeRow(1, {
    input: '233 Wacker Dr',
    property: makeProperty({
      id: 'P-B',
      address: '233 S WACKER DR, CHICAGO, IL',
      source: 'City of Chicago Building Permits',
      sourceKind: 'permits',
      confidence: 'low',
      lastVerified: daysAgo(400),
      attributes: { bedrooms: 5, city: 'Chicago', state: 'IL', zip: '60606' },
    }),
  }),
  makeRow(2, {
    input: '9 Elm St',
    property: makeProperty({
      id: 'P-C',
      address: '9 ELM ST, AUSTIN, TX',
      confidence: 'high',
      lastVerified: daysAgo(200),
    }),
  }),
  makeRow(3, {
    input: '4 Oak Rd',
    property: makeProperty({
      id: 'P-D',
      address: '4 OAK RD, AUSTIN, TX',
      confidence: 'medium',
      lastVerified: daysAgo(30),
    }),
  }),
  makeRow(4, {
    input: '100 Main St',
    outcome: 'ambiguous',
    candidates: [
      { id: 'c1', address: '100 Main St, Springfield, IL' },
      { id: 'c2', address: '100 Main St, Springfield, OR' },
    ],
    error: { code: 'ambiguous', message: 'More than one property matches.' },
  }),
  makeRow(5, {
    input: 'Nowhere 1',
    outcome: 'not_found',
    error: { code: 'not_found', message: 'No match.' },
  }),
  makeRow(6, {
    input: 'Slow 1',
    outcome: 'failed',
    error: { code: 'upstream_timeout', message: 'Too slow.' },
  }),
  makeRow(7, { input: 'Later 1', outcome: 'pending', retrievedAt: undefined }),
];

/** A row as the page's reads give it (`attributes=0`): its property's attributes cut to its state. */
const briefRow = (r: ReviewRowResult): ReviewRowResult =>
  r.property
    ? {
        ...r,
        brief: true,
        property: { ...r.property, attributes: { state: r.property.attributes.state ?? null } },
      }
    : r;
const review = makeSummary({ totalRows: ROWS.length, name: 'Portfolio Q3' });
const ACCOUNT = 'Harbor & Vale Realty';

function renderResults(rows = ROWS) {
  return renderRoutes(
    <Route
      path="/review/:id"
      element={<ReviewResults review={review} accountName={ACCOUNT} rows={rows} now={NOW} />}
    />,
    '/review/rev-1',
  );
}

const table = () => screen.getByRole('table', { name: 'Results' });
/** The data rows' inputs, in display order (the first row is the header). */
const shownInputs = () =>
  within(table())
    .getAllByRole('row')
    .slice(1)
    .map((r) => within(r).queryAllByRole('button')[0]?.textContent)
    .filter(Boolean);

afterEach(() => vi.restoreAllMocks());
// The charts' drawings (recharts) are the page's to load when it needs them; imported once here, its first test
// does not wait out findBy's second compiling them.
beforeAll(() => import('./charts/bars.tsx'));

layOutElements();

// userEvent drives a full page of charts and table: more than the default 5 s on a busy 2-core machine.
describe('ReviewResults', { timeout: 30_000 }, () => {
  it('says why a row failed in its Outcome cell, the whole reason in its title', () => {
    renderResults();
    const row = within(table()).getByRole('button', { name: 'Slow 1' }).closest('tr') as HTMLElement;
    const reason = within(row).getByText('Too slow.');
    expect(reason).toHaveAttribute('title', 'Too slow.');
    expect(reason.closest('[data-outcome]')).toHaveAttribute('data-outcome', 'failed');
    // Only a failure says why there: a not-found row's message stays in its details.
    const notFound = within(table()).getByRole('button', { name: 'Nowhere 1' }).closest('tr') as HTMLElement;
    expect(within(notFound).queryByText('No match.')).toBeNull();
  });

  it('sums up reliability: records, confidence shares, stale share, median age and outcomes', () => {
    renderResults();
    const summary = screen.getByRole('region', { name: 'Reliability summary' });
    const figure = (label: string) => within(summary).getByText(label).closest('div') as HTMLElement;
    expect(figure('Records')).toHaveTextContent('4of 8 addresses');
    expect(figure('High confidence')).toHaveTextContent('50%2 records');
    expect(figure('Medium confidence')).toHaveTextContent('25%1 record');
    expect(figure('Low confidence')).toHaveTextContent('25%1 record');
    expect(figure('Stale')).toHaveTextContent('25%1 verified over a year ago');
    // Ages 10, 30, 200, 400: the median is (30 + 200) / 2.
    expect(figure('Median verification age')).toHaveTextContent(
      '115 dayshalf the records were verified more recently than this, half longer ago',
    );
    const outcomes = within(summary).getByRole('list', { name: 'Outcomes' });
    expect(outcomes).toHaveTextContent('Matched: 4');
    expect(outcomes).toHaveTextContent('Not found: 1');
    expect(outcomes).toHaveTextContent('Ambiguous: 1');
    expect(outcomes).toHaveTextContent('Failed: 1');
    expect(outcomes).toHaveTextContent('Pending: 1');
    // Only a cancelled review has rows never asked.
    expect(outcomes).not.toHaveTextContent('Not asked');
    // As a record words it: the time, then the day.
    expect(summary).toHaveTextContent(
      /Retrieved at \d{1,2}:\d\d( [AP]M)? \S+( – \d{1,2}:\d\d( [AP]M)? \S+)? on November 1, 2026/,
    );
    expect(summary).toHaveTextContent('by Harbor & Vale Realty');
  });

  it('a cancelled review’s rows never asked say so, in the outcomes and in the table', () => {
    renderResults([
      ...ROWS,
      makeRow(8, { input: '1 Never Asked Rd', outcome: 'not_asked', retrievedAt: undefined }),
      makeRow(9, { input: '2 Never Asked Rd', outcome: 'not_asked', retrievedAt: undefined }),
    ]);
    const summary = screen.getByRole('region', { name: 'Reliability summary' });
    expect(within(summary).getByRole('list', { name: 'Outcomes' })).toHaveTextContent('Not asked: 2');
    const row = screen.getByRole('row', { name: /1 Never Asked Rd/ });
    expect(row).toHaveTextContent('Not asked');
  });

  it('says how many distinct properties the records are when rows found the same one', () => {
    renderResults([...ROWS, makeRow(8, { input: '1100 congress avenue', property: ROWS[0]?.property })]);
    const summary = screen.getByRole('region', { name: 'Reliability summary' });
    expect(within(summary).getByText('Records').closest('div')).toHaveTextContent(
      '5of 9 addresses · 4 distinct properties',
    );
  });

  it('filters the table from a chart, shows a "filtered by" chip, and the chip clears it', async () => {
    const user = userEvent.setup();
    renderResults();
    expect(shownInputs()).toHaveLength(8);
    const confidence = await screen.findByRole('figure', { name: 'Confidence mix' });
    expect(confidence).toHaveTextContent('Of 4 records: high 50%, medium 25%, low 25%.');
    await user.click(within(confidence).getByRole('button', { name: 'High: 2 (50%)' }));
    expect(within(confidence).getByRole('button', { name: 'High: 2 (50%)' })).toHaveAttribute(
      'aria-pressed',
      'true',
    );
    expect(shownInputs()).toEqual(['1100 Congress Ave', '9 Elm St']);
    expect(screen.getByText('Showing 2 of 8 rows, filtered by')).toBeInTheDocument();

    // A bar of the age histogram adds to it.
    const age = screen.getByRole('figure', { name: 'Verification age' });
    await user.click(within(age).getByRole('button', { name: '181–365 days: 1' }));
    expect(shownInputs()).toEqual(['9 Elm St']);

    await user.click(screen.getByRole('button', { name: 'Clear filter Confidence: High' }));
    await user.click(screen.getByRole('button', { name: 'Clear filter Verified: 181–365 days ago' }));
    expect(shownInputs()).toHaveLength(8);
    expect(screen.getByText('Showing all 8 rows')).toBeInTheDocument();
  });

  it('filters by source from the source chart and by the table controls', async () => {
    const user = userEvent.setup();
    renderResults();
    const sources = await screen.findByRole('figure', { name: 'Records by source' });
    await user.click(within(sources).getByRole('button', { name: /City of Chicago Building Permits/ }));
    expect(shownInputs()).toEqual(['233 Wacker Dr']);
    await user.click(
      screen.getByRole('button', { name: 'Clear filter Source: City of Chicago Building Permits (IL)' }),
    );

    await user.selectOptions(screen.getByRole('combobox', { name: 'Outcome' }), 'Ambiguous');
    expect(shownInputs()).toEqual(['100 Main St']);
    await user.selectOptions(screen.getByRole('combobox', { name: 'Outcome' }), 'All outcomes');
    await user.selectOptions(screen.getByRole('combobox', { name: 'Age tier' }), 'Stale');
    expect(shownInputs()).toEqual(['233 Wacker Dr']);
    await user.selectOptions(screen.getByRole('combobox', { name: 'Age tier' }), 'All ages');
    await user.type(screen.getByRole('searchbox', { name: 'Search results' }), 'elm');
    expect(shownInputs()).toEqual(['9 Elm St']);
  });

  it('switches the source chart to kinds once a running review has many sources, until the reviewer picks', async () => {
    const all = generateRows(120, 5);
    let grow: (rows: ReviewRowResult[]) => void = () => {};
    function Growing() {
      const [rows, setRows] = useState(all.slice(0, 3));
      grow = setRows;
      return <ReviewResults review={review} accountName={ACCOUNT} rows={rows} now={NOW} />;
    }
    renderRoutes(<Route path="/review/:id" element={<Growing />} />, '/review/rev-1');
    const sources = () => screen.getByRole('figure', { name: 'Records by source' });
    await screen.findByRole('figure', { name: 'Records by source' });
    expect(within(sources()).getByRole('radio', { name: 'Source' })).toBeChecked();
    act(() => grow(all));
    expect(within(sources()).getByRole('radio', { name: 'Kind of source' })).toBeChecked();
    // The reviewer's pick stays as more rows come in.
    act(() => within(sources()).getByRole('radio', { name: 'Source' }).click());
    act(() => grow(generateRows(150, 6)));
    expect(within(sources()).getByRole('radio', { name: 'Source' })).toBeChecked();
  });

  it('groups sources by kind when there are many, and filters by a kind', async () => {
    const user = userEvent.setup();
    renderResults(generateRows(120, 5));
    const sources = await screen.findByRole('figure', { name: 'Records by source' });
    // Far more sources than bars: grouped by kind at first.
    expect(within(sources).getByRole('radio', { name: 'Kind of source' })).toBeChecked();
    await user.click(within(sources).getByRole('button', { name: /^Building permit/ }));
    expect(
      screen.getByRole('button', { name: 'Clear filter Kind of source: Building permit' }),
    ).toBeVisible();
    const cells = within(table())
      .getAllByRole('row')
      .slice(1)
      .map((r) => within(r).getAllByRole('cell')[6]?.textContent);
    expect(cells.length).toBeGreaterThan(0);
    expect(new Set(cells)).toEqual(new Set(['City Building Permits (TX)']));

    await user.click(within(sources).getByRole('radio', { name: 'Source' }));
    expect(within(sources).getByRole('button', { name: /other sources/ })).toBeInTheDocument();
  });

  it('sorts by a column from its header button, stating the order in aria-sort', async () => {
    const user = userEvent.setup();
    renderResults();
    const header = within(table()).getByRole('columnheader', { name: /Verified/ });
    expect(header).toHaveAttribute('aria-sort', 'none');
    await user.click(within(header).getByRole('button', { name: /Verified/ }));
    expect(header).toHaveAttribute('aria-sort', 'ascending');
    // Freshest first; rows without a record last.
    expect(shownInputs().slice(0, 4)).toEqual(['1100 Congress Ave', '4 Oak Rd', '9 Elm St', '233 Wacker Dr']);
    await user.click(within(header).getByRole('button', { name: /Verified/ }));
    expect(header).toHaveAttribute('aria-sort', 'descending');
    expect(shownInputs().slice(0, 4)).toEqual(['233 Wacker Dr', '9 Elm St', '4 Oak Rd', '1100 Congress Ave']);

    const conf = within(table()).getByRole('columnheader', { name: /Confidence/ });
    await user.click(within(conf).getByRole('button'));
    expect(conf).toHaveAttribute('aria-sort', 'descending');
    expect(shownInputs().slice(0, 4)).toEqual(['1100 Congress Ave', '9 Elm St', '4 Oak Rd', '233 Wacker Dr']);
  });

  it('compares two selected rows side by side, and does not rank different properties', async () => {
    const user = userEvent.setup();
    renderResults();
    const compare = screen.getByRole('button', { name: 'Compare selected' });
    expect(compare).toBeDisabled();
    await user.click(screen.getByRole('checkbox', { name: 'Select 233 Wacker Dr' }));
    expect(compare).toBeDisabled();
    await user.click(screen.getByRole('checkbox', { name: 'Select 4 Oak Rd' }));
    await user.click(compare);

    const comparison = screen.getByRole('region', { name: 'Comparison' });
    const cols = within(comparison).getAllByRole('columnheader');
    expect(cols.map((c) => c.textContent)).toEqual([
      'Attribute',
      expect.stringContaining('233 S WACKER DR, CHICAGO, IL'),
      expect.stringContaining('4 OAK RD, AUSTIN, TX'),
    ]);
    expect(cols[2]).not.toHaveTextContent('Most reliable');
    expect(cols[2]).toHaveTextContent('Medium confidence');
    expect(comparison).toHaveTextContent('Different properties: nothing to rank');
    expect(comparison).toHaveTextContent(
      'These are two different properties: each record describes its own, so none is more reliable than another.',
    );
    // Differences are said in words, not only tinted.
    const bedrooms = within(comparison).getByRole('rowheader', { name: /Bedrooms/ });
    expect(bedrooms).toHaveTextContent('Differs');
    expect(within(comparison).getByRole('rowheader', { name: /County/ })).not.toHaveTextContent('Differs');
    expect(within(comparison).getByRole('heading', { name: 'Comparison' })).toHaveFocus();

    await user.click(within(comparison).getByRole('button', { name: 'Close comparison' }));
    expect(screen.queryByRole('region', { name: 'Comparison' })).not.toBeInTheDocument();
  });

  it('names the most reliable of records of one property, by source', async () => {
    const user = userEvent.setup();
    const address = '4 Oak Rd, Austin, TX 78701';
    const rows = [
      makeRow(0, {
        input: '4 Oak Rd',
        property: makeProperty({ id: 'P0', address, source: 'Austin Permits', confidence: 'low' }),
      }),
      makeRow(1, {
        input: '4 Oak Road, Austin',
        property: makeProperty({ id: 'P1', address, source: 'Travis County Assessor', confidence: 'high' }),
      }),
    ];
    renderResults(rows);
    await user.click(screen.getByRole('checkbox', { name: 'Select 4 Oak Rd' }));
    await user.click(screen.getByRole('checkbox', { name: 'Select 4 Oak Road, Austin' }));
    await user.click(screen.getByRole('button', { name: 'Compare selected' }));
    const comparison = screen.getByRole('region', { name: 'Comparison' });
    expect(within(comparison).getAllByRole('columnheader')[2]).toHaveTextContent('Most reliable');
    expect(comparison).toHaveTextContent(
      'The Travis County Assessor record is the most reliable: it has high confidence; the other has low confidence.',
    );
  });

  it('compares 2 to 4 ticked rows with a record; more are for a decision, not a comparison', async () => {
    const user = userEvent.setup();
    const rows = Array.from({ length: 6 }, (_, i) => makeRow(i, { property: makeProperty({ id: `P${i}` }) }));
    renderResults(rows);
    const boxes = screen.getAllByRole('checkbox', { name: /^Select / });
    for (const box of boxes.slice(0, 4)) await user.click(box);
    expect(screen.getByRole('button', { name: 'Compare selected' })).toBeEnabled();
    await user.click(boxes[4] as HTMLElement);
    expect(screen.getByText('5 selected.')).toBeInTheDocument();
    expect(screen.getByRole('button', { name: 'Compare selected' })).toBeDisabled();
    expect(screen.getByRole('button', { name: 'Accept 5 selected' })).toBeEnabled();
  });

  it('opens the full record from a row, and the candidates of an ambiguous row', async () => {
    const user = userEvent.setup();
    renderResults();
    await user.click(within(table()).getByRole('button', { name: '233 Wacker Dr' }));
    let dialog = screen.getByRole('dialog', { name: '233 Wacker Dr' });
    expect(within(dialog).getByRole('heading', { name: '233 S WACKER DR, CHICAGO, IL' })).toBeInTheDocument();
    expect(within(dialog).getByText('Low confidence')).toBeInTheDocument();
    // What the service added to the address as given, as the search page says it.
    expect(within(dialog).getByRole('region', { name: 'How the address was matched' })).toHaveTextContent(
      'Matched, with parts the service added',
    );
    await user.click(within(dialog).getByRole('button', { name: 'Close' }));
    const wacker = within(table())
      .getByRole('button', { name: '233 Wacker Dr' })
      .closest('tr') as HTMLElement;
    expect(within(wacker).getByText('Parts added')).toBeInTheDocument();
    expect(screen.queryByRole('dialog')).not.toBeInTheDocument();

    await user.click(within(table()).getByRole('button', { name: '100 Main St' }));
    dialog = screen.getByRole('dialog', { name: '100 Main St' });
    expect(within(dialog).getByRole('list', { name: 'Candidates' })).toHaveTextContent(
      '100 Main St, Springfield, OR',
    );
    expect(within(dialog).getByRole('button', { name: 'Compare' })).toBeInTheDocument();
  });

  it('reads a brief row whole when it is opened or compared (the page reads 100,000 rows brief)', async () => {
    const user = userEvent.setup();
    const brief = ROWS.map(briefRow);
    const api = fakeApi({
      'GET /api/reviews/rev-1/rows': ({ url }) => {
        const index = Number(url.searchParams.get('cursor') ?? -1) + 1;
        return Response.json({ rows: [ROWS[index]], nextCursor: null });
      },
    });
    renderResults(brief);
    await user.click(within(table()).getByRole('button', { name: '233 Wacker Dr' }));
    const dialog = screen.getByRole('dialog', { name: '233 Wacker Dr' });
    expect(
      await within(dialog).findByRole('heading', { name: '233 S WACKER DR, CHICAGO, IL' }),
    ).toBeVisible();
    expect(dialog).toHaveTextContent(/Bedrooms\s*5/);
    await user.click(within(dialog).getByRole('button', { name: 'Close' }));

    await user.click(screen.getByRole('checkbox', { name: 'Select 233 Wacker Dr' }));
    await user.click(screen.getByRole('checkbox', { name: 'Select 4 Oak Rd' }));
    await user.click(screen.getByRole('button', { name: 'Compare selected' }));
    const comparison = await screen.findByRole('region', { name: 'Comparison' });
    expect(within(comparison).getByRole('rowheader', { name: /Bedrooms/ })).toHaveTextContent('Differs');
    // Each row read once, alone and whole, at its index: the opened row's record was kept.
    expect(api.calls.map((c) => c.url.search)).toEqual([
      '?limit=1&cells=0&cursor=0',
      `?limit=1&cells=0&cursor=${ROWS.findIndex((r) => r.input === '4 Oak Rd') - 1}`,
    ]);
  });

  it('never shows another answer’s record for a brief row: a row answered again since says it could not be read', async () => {
    const user = userEvent.setup();
    const brief = ROWS.map(briefRow);
    const other = ROWS.find((r) => r.property && r.input !== '233 Wacker Dr') as ReviewRowResult;
    fakeApi({
      // A colleague's Check again answered the row anew: another record, a newer answer.
      'GET /api/reviews/rev-1/rows': ({ url }) => {
        const index = Number(url.searchParams.get('cursor') ?? -1) + 1;
        const row = ROWS[index] as ReviewRowResult;
        return Response.json({
          rows: [{ ...row, property: other.property, seq: row.seq + 100 }],
          nextCursor: null,
        });
      },
    });
    renderResults(brief);
    await user.click(within(table()).getByRole('button', { name: '233 Wacker Dr' }));
    const dialog = screen.getByRole('dialog', { name: '233 Wacker Dr' });
    expect(await within(dialog).findByText(/The record could not be read/)).toBeVisible();
    expect(dialog).not.toHaveTextContent(other.property?.address ?? '-');
  });

  it('says so when the records to compare cannot be read, rather than doing nothing', async () => {
    const user = userEvent.setup();
    const brief = ROWS.map(briefRow);
    fakeApi({ 'GET /api/reviews/rev-1/rows': () => new Response('{}', { status: 503 }) });
    renderResults(brief);
    await user.click(screen.getByRole('checkbox', { name: 'Select 233 Wacker Dr' }));
    await user.click(screen.getByRole('checkbox', { name: 'Select 4 Oak Rd' }));
    await user.click(screen.getByRole('button', { name: 'Compare selected' }));
    expect(await screen.findByText(/The records to compare could not be read/)).toBeVisible();
    expect(screen.queryByRole('region', { name: 'Comparison' })).toBeNull();
  });

  it('exports the whole review from the server, whatever the table is filtered to', async () => {
    const user = userEvent.setup();
    const names: string[] = [];
    const original = { create: URL.createObjectURL, revoke: URL.revokeObjectURL };
    URL.createObjectURL = () => 'blob:test';
    URL.revokeObjectURL = () => {};
    vi.spyOn(HTMLAnchorElement.prototype, 'click').mockImplementation(function (this: HTMLAnchorElement) {
      names.push(this.download);
    });
    const api = fakeApi({
      'GET /api/reviews/rev-1/export.csv': () =>
        new Response('\ufeffinput\r\n', {
          headers: { 'content-disposition': 'attachment; filename="proplens-portfolio-q3-2026-11-01.csv"' },
        }),
    });
    try {
      renderResults();
      // Filters narrow the table, never the evidence: the request names the review, not the filter.
      await user.selectOptions(screen.getByRole('combobox', { name: 'Outcome' }), 'Failed');
      await user.click(screen.getByRole('button', { name: 'Export CSV' }));
      expect(
        await screen.findByText('Saved proplens-portfolio-q3-2026-11-01.csv (8 rows).'),
      ).toBeInTheDocument();
      expect(api.calls.map((c) => `${c.url.pathname}${c.url.search}`)).toEqual([
        expect.stringMatching(/^\/api\/reviews\/rev-1\/export\.csv\?today=\d{4}-\d{2}-\d{2}$/),
      ]);
      expect(names).toEqual(['proplens-portfolio-q3-2026-11-01.csv']);
    } finally {
      URL.createObjectURL = original.create;
      URL.revokeObjectURL = original.revoke;
      vi.unstubAllGlobals();
    }
  });

  it('shows the rows read so far at once, and draws the charts only once every row is in', async () => {
    // A 300-row review opened on its first page: 100 rows read, the rest still coming.
    const all = generateRows(300, 7);
    const big = makeSummary({ totalRows: 300, receivedRows: 300, name: 'Portfolio Q3' });
    let grow: (rows: ReviewRowResult[]) => void = () => {};
    function Loading() {
      const [rows, setRows] = useState(all.slice(0, 100));
      grow = setRows;
      return <ReviewResults review={big} accountName={ACCOUNT} rows={rows} now={NOW} />;
    }
    renderRoutes(<Route path="/review/:id" element={<Loading />} />, '/review/rev-1');
    expect(table()).toHaveAttribute('aria-rowcount', '101');
    expect(screen.getByRole('region', { name: 'Charts' })).toHaveTextContent(
      'The charts are drawn once every row is in.',
    );
    expect(screen.queryByRole('figure')).toBeNull();
    act(() => grow(all));
    expect(table()).toHaveAttribute('aria-rowcount', '301');
    const confidence = await screen.findByRole('figure', { name: 'Confidence mix' });
    expect(confidence).toHaveTextContent(/^Confidence mix/);
    expect(screen.queryByText('The charts are drawn once every row is in.')).toBeNull();
  });

  it('says so when a review has no rows yet', async () => {
    renderResults([]);
    expect(within(table()).getByRole('cell', { name: 'No rows yet.' })).toBeInTheDocument();
    expect(await screen.findByRole('figure', { name: 'Confidence mix' })).toHaveTextContent('No records yet');
    expect(screen.getByRole('button', { name: 'Export CSV' })).toBeDisabled();
  });

  it('renders only a window of a 10,000-row review', () => {
    renderResults(generateRows(10_000, 3));
    const t = table();
    expect(t).toHaveAttribute('aria-rowcount', '10001');
    // A viewport’s worth (600 px / 52 px) plus overscan, and the header: not 10,000.
    const rendered = within(t).getAllByRole('row');
    expect(rendered.length).toBeGreaterThan(14);
    expect(rendered.length).toBeLessThan(60);
    expect(rendered[1]).toHaveAttribute('aria-rowindex', '2');
  });

  it('prints every row the table shows, only while printing', async () => {
    const user = userEvent.setup();
    renderResults(generateRows(300, 3));
    expect(screen.queryByRole('region', { name: 'Printed results' })).not.toBeInTheDocument();
    act(() => {
      window.dispatchEvent(new Event('beforeprint'));
    });
    let printed = screen.getByRole('region', { name: 'Printed results' });
    expect(within(printed).getAllByRole('row')).toHaveLength(301);
    expect(printed).toHaveTextContent('All 300 rows.');
    act(() => {
      window.dispatchEvent(new Event('afterprint'));
    });
    expect(screen.queryByRole('region', { name: 'Printed results' })).not.toBeInTheDocument();

    await user.selectOptions(screen.getByRole('combobox', { name: 'Outcome' }), 'Failed');
    act(() => {
      window.dispatchEvent(new Event('beforeprint'));
    });
    printed = screen.getByRole('region', { name: 'Printed results' });
    const failed = within(printed).getAllByRole('row').length - 1;
    expect(failed).toBeGreaterThan(0);
    expect(printed).toHaveTextContent(`${failed} of 300 rows, filtered by Outcome: Failed.`);
  });

  it('prints how each record matched the address given', () => {
    renderResults();
    act(() => {
      window.dispatchEvent(new Event('beforeprint'));
    });
    const printed = screen.getByRole('region', { name: 'Printed results' });
    expect(within(printed).getByRole('columnheader', { name: 'Match' })).toBeInTheDocument();
    const wacker = within(printed).getByText('233 Wacker Dr').closest('tr') as HTMLElement;
    expect(wacker).toHaveTextContent(/Parts added.*added: /);
  });
});

describe('matches that need a look', { timeout: 30_000 }, () => {
  it('are counted in the summary and filter the table, apart from plain corrections', async () => {
    const rows: ReviewRowResult[] = [
      makeRow(0, {
        input: '270 W State St, Boise, ID',
        property: makeProperty({ id: 'P-E', address: '270 E STATE ST, BOISE, ID 83702' }),
        match: {
          typed: '270 W State St, Boise, ID',
          matched: '270 E STATE ST, BOISE, ID 83702',
          changes: [{ kind: 'corrected', part: 'street', typed: 'W', matched: 'E' }],
          quality: 'changed_meaning',
        },
      }),
      makeRow(1, {
        input: '1100 Congres Ave, Austin, TX',
        property: makeProperty({ id: 'P-C', address: '1100 CONGRESS AVE, AUSTIN, TX 78701' }),
        match: {
          typed: '1100 Congres Ave, Austin, TX',
          matched: '1100 CONGRESS AVE, AUSTIN, TX 78701',
          changes: [{ kind: 'corrected', part: 'street', typed: 'Congres', matched: 'Congress' }],
          quality: 'corrected',
        },
      }),
    ];
    renderResults(rows);
    expect(screen.getByTestId('needs-a-look')).toHaveTextContent('1 match needs a look');
    await userEvent.click(screen.getByRole('checkbox', { name: 'Needs a look (1)' }));
    expect(shownInputs()).toEqual(['270 W State St, Boise, ID']);
  });
});
