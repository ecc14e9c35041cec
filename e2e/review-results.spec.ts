import { readFile } from 'node:fs/promises';
import { expect, type Page, test } from '@playwright/test';
import Papa from 'papaparse';
import {
  AGE_FRAME,
  CONFIDENCE_FRAME,
  type FrameHeights,
  sourceFrame,
} from '../src/web/features/review/results/charts/bar-data.ts';
import { exportAndVerifyEvidence } from './evidence-steps.ts';
import { expectNoAxeViolations, referenceRecords, signInWithDemoKey } from './support.ts';

/*
 * What a finished review shows (issue 8 §3-5), against the real built app: the reliability summary, a chart
 * bar that filters the table, two rows compared, the CSV exported and parsed back, the print layout.
 */

async function finishedReview(page: Page, name: string) {
  const records = await referenceRecords(12, 900);
  await signInWithDemoKey(page);
  await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Review' }).click();
  const lines = [...records.map((r) => r.address), '100 Main St', '99999 Nowhere Rd, Springfield, IL 62701'];
  await page.getByRole('textbox', { name: 'Addresses' }).fill(lines.join('\n'));
  await page.getByRole('textbox', { name: 'Review name' }).fill(name);
  await page.getByRole('button', { name: 'Start review' }).click();
  await expect(page.getByText(`Done: all ${lines.length} addresses have an outcome.`)).toBeVisible({
    timeout: 60_000,
  });
  return lines;
}

const resultsTable = (page: Page) => page.getByRole('table', { name: 'Results' });

/**
 * The charts as drawn are as tall as the room their frames kept while the rows came (bar-data.ts): the table under
 * them did not move when they came. The source chart's for as many sources as it shows.
 */
async function expectChartsWhereTheirFramesWere(page: Page, width: keyof FrameHeights) {
  const charts = page.getByRole('region', { name: 'Charts' });
  const sources = charts.getByRole('list', { name: 'Records by source: show only' }).getByRole('listitem');
  await expect(sources.first()).toBeVisible();
  const bars = await sources.count();
  await expect
    .poll(() =>
      charts
        .locator(':scope > div.grid > *')
        .evaluateAll((frames) => frames.map((f) => Math.round(f.getBoundingClientRect().height))),
    )
    .toEqual([CONFIDENCE_FRAME[width], AGE_FRAME[width], sourceFrame(bars)[width]]);
}

test('a finished review: summary, a chart bar filters the table, compare two rows, export and print', async ({
  page,
}) => {
  const lines = await finishedReview(page, 'Evidence, “Q3”');

  const summary = page.getByRole('region', { name: 'Reliability summary' });
  await expect(summary).toContainText(`of ${lines.length} addresses`);
  await expect(summary.getByRole('list', { name: 'Outcomes' })).toContainText('Ambiguous: 1');
  await expect(summary).toContainText(/Retrieved at .+ by .+\./);
  await expect(resultsTable(page)).toHaveAttribute('aria-rowcount', String(lines.length + 1));

  // A bar of the confidence chart (the tallest, so it is there to click) filters the table to its level.
  const chart = page.getByRole('figure', { name: 'Confidence mix' });
  const bars = chart.locator('.recharts-bar-rectangle');
  // The charts are drawn once every row is in, from code read after the first rows, and their bars grow in: measure
  // the three once they stand still (measured before, there were none, and a bar of no level was clicked).
  let heights: number[] = [];
  await expect
    .poll(async () => {
      const now = await bars.evaluateAll((els) => els.map((e) => e.getBoundingClientRect().height));
      const still = now.length === 3 && now.join() === heights.join();
      heights = now;
      return still;
    })
    .toBe(true);
  await expectChartsWhereTheirFramesWere(page, 'xl');
  // At 1280 every column fits: nothing to scroll to, and nothing said.
  await expect(page.getByText('More columns to the right: scroll the table sideways.')).toHaveCount(0);
  const tallest = heights.indexOf(Math.max(...heights));
  const level = ['High', 'Medium', 'Low'][tallest] as string;
  await bars.nth(tallest).click();
  const chip = page.getByRole('button', { name: `Clear filter Confidence: ${level}` });
  await expect(chip).toBeVisible();
  const status = page.getByText(/Showing \d+ of \d+ rows, filtered by/);
  await expect(status).toBeVisible();
  // The table follows the filter a moment after the status line (a deferred render): wait for its rows.
  const n = Number(/Showing (\d+) of/.exec((await status.textContent()) ?? '')?.[1]);
  expect(n).toBeGreaterThan(0);
  const shown = resultsTable(page).locator('tbody tr[aria-rowindex]');
  await expect(shown).toHaveCount(n);
  for (let i = 0; i < n; i++) await expect(shown.nth(i).locator('td').nth(5)).toHaveText(level);
  await expectNoAxeViolations(page, 'review results, filtered from a chart');
  await chip.click();
  await expect(page.getByText(`Showing all ${lines.length} rows`)).toBeVisible();

  // Compare two matched rows.
  const boxes = resultsTable(page).getByRole('checkbox');
  await boxes.nth(0).check();
  await boxes.nth(1).check();
  await page.getByRole('button', { name: 'Compare selected' }).click();
  const comparison = page.getByRole('region', { name: 'Comparison' });
  await expect(comparison).toBeVisible();
  await expect(comparison.getByRole('columnheader')).toHaveCount(3);
  // Two rows of a review are usually different properties: side by side, none crowned (a building and its
  // unit, or one property twice, are ranked by the rule, said as such).
  await expect(comparison).toContainText(
    /These are two different properties|A building and its own units|is the most reliable|equally reliable by this rule/,
  );
  await expectNoAxeViolations(page, 'review results with a comparison');
  await page.emulateMedia({ colorScheme: 'dark' });
  await expectNoAxeViolations(page, 'review results with a comparison, dark');
  await page.emulateMedia({ colorScheme: 'light' });

  // Exclude the last row (an address that is no property): it keeps its place, marked, and leaves the figures.
  const nowhere = lines.at(-1) as string;
  await resultsTable(page).getByRole('button', { name: nowhere }).click();
  const details = page.getByRole('dialog', { name: nowhere });
  await details.getByText('Exclude this row from the review').click();
  await details.getByRole('textbox', { name: 'Reason (optional)' }).fill('Not collateral');
  await details.getByRole('button', { name: 'Exclude row' }).click();
  await expect(details.getByTestId('row-excluded')).toContainText('“Not collateral”. By ');
  await details.getByRole('button', { name: 'Close' }).click();
  await expect(summary).toContainText(`of ${lines.length - 1} addresses · 1 excluded`);
  await expect(summary.getByRole('list', { name: 'Outcomes' })).toContainText('Excluded: 1');
  const excludedRow = resultsTable(page).getByRole('row').filter({ hasText: nowhere });
  await expect(excludedRow).toContainText('Excluded');

  // Decide (issue 30): one row from its dialog with a note, the rest at once from the table's ticks; sign off;
  // a colleague's key approves.
  await page.getByRole('button', { name: 'Clear selection' }).click();
  await resultsTable(page)
    .getByRole('button', { name: lines[0] as string })
    .click();
  const first = page.getByRole('dialog', { name: lines[0] as string });
  await first.getByRole('textbox', { name: 'Note (optional)' }).fill('Deed checked');
  await first.getByRole('button', { name: 'Accept', exact: true }).click();
  await expect(first.getByTestId('row-decision')).toContainText('Accepted “Deed checked”. By ');
  await first.getByRole('button', { name: 'Close' }).click();
  await page.getByRole('button', { name: `Select all ${lines.length} shown` }).click();
  await resultsTable(page)
    .getByRole('checkbox', { name: `Select ${lines[0]}` })
    .uncheck();
  await page.getByRole('button', { name: `Accept ${lines.length - 1} selected` }).click();
  await expect(page.getByText(`${lines.length - 1} rows decided.`)).toBeVisible();
  await expect(summary.getByRole('list', { name: 'Decisions' })).toContainText(`Accepted: ${lines.length}`);
  const signOff = page.getByRole('region', { name: 'Sign-off' });
  await expect(signOff).toContainText('Every row has a decision');
  await signOff.getByRole('button', { name: 'Sign off' }).click();
  await expect(signOff.getByTestId('signed-off')).toContainText('Signed off on run 1 by ');
  // Another browser, its own cookies: the colleague signs in with the account's second key.
  const colleague = await page
    .context()
    .browser()
    ?.newPage({ baseURL: new URL(page.url()).origin });
  if (!colleague) throw new Error('no second page');
  await signInWithDemoKey(colleague, 'pi_demo_professional_2');
  // Opened from its address, the finished review's table does not move once its first rows are drawn (the
  // charts' drawings came later and pushed it 832 px down): where it stood then, from the page's own clock.
  await colleague.addInitScript(() => {
    const seen = new MutationObserver(() => {
      const table = document.querySelector('table[aria-rowcount]');
      if (!table?.querySelector('tbody tr[aria-rowindex="2"]')) return;
      (window as unknown as { firstTop: number }).firstTop =
        table.getBoundingClientRect().top + window.scrollY;
      seen.disconnect();
    });
    document.addEventListener('DOMContentLoaded', () =>
      seen.observe(document.body, { childList: true, subtree: true }),
    );
  });
  await colleague.goto(page.url());
  await colleague
    .getByRole('figure', { name: 'Records by source' })
    .locator('.recharts-bar-rectangle')
    .first()
    .waitFor();
  const tops = await resultsTable(colleague).evaluate((table) => [
    (window as unknown as { firstTop?: number }).firstTop,
    table.getBoundingClientRect().top + window.scrollY,
  ]);
  expect(tops[0], 'the table’s top with its first rows, then with the charts drawn').toBe(tops[1]);
  await colleague.getByRole('region', { name: 'Sign-off' }).getByRole('button', { name: 'Approve' }).click();
  await expect(colleague.getByTestId('approved').first()).toContainText('Approved by ');
  await colleague.close();
  // The reviewer's own page hears of it.
  await expect(signOff.getByTestId('approved')).toContainText('Approved by ');

  // Export CSV: every input row, parsed back, in order, with the account.
  const [download] = await Promise.all([
    page.waitForEvent('download'),
    page.getByRole('button', { name: 'Export CSV' }).click(),
  ]);
  expect(download.suggestedFilename()).toMatch(/^proplens-evidence-q3-\d{4}-\d{2}-\d{2}\.csv$/);
  const text = await readFile((await download.path()) as string, 'utf8');
  expect(text.charCodeAt(0)).toBe(0xfeff);
  const parsed = Papa.parse<Record<string, string>>(text.slice(1), { header: true, skipEmptyLines: true });
  expect(parsed.errors).toEqual([]);
  expect(parsed.data.map((r) => r.input)).toEqual(lines);
  expect(parsed.meta.fields?.slice(0, 16)).toEqual([
    'source_row',
    'input',
    'outcome',
    // A row is excluded: the mark stands beside every row's outcome.
    'excluded',
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
  expect(parsed.data.at(-2)?.outcome).toBe('ambiguous');
  expect(parsed.data.map((r) => r.excluded)).toEqual(lines.map((l) => String(l === nowhere)));
  expect(parsed.data.at(-1)).toMatchObject({ outcome: 'not_found', excluded_reason: 'Not collateral' });
  expect(new Set(parsed.data.map((r) => r.account)).size).toBe(1);
  expect(parsed.data[0]?.property_id).not.toBe('');
  expect(parsed.data[0]).toMatchObject({ decision: 'accept', decision_note: 'Deed checked' });
  expect(parsed.data.every((r) => r.decision === 'accept' && r.decided_by !== '')).toBe(true);

  // Export evidence, and check it on /verify as a stranger would: verified as downloaded, one byte changed named.
  await exportAndVerifyEvidence(page, 'Evidence Q3');

  // Print: every row, under "Retrieved at ... by ...", without the controls.
  await page.emulateMedia({ media: 'print' });
  const printed = page.getByRole('region', { name: 'Printed results' });
  await expect(printed).toBeVisible();
  await expect(printed.getByRole('row')).toHaveCount(lines.length + 1);
  // At a Letter page's printable width (215.9 mm less 24 mm of margins: 725 px), 25 rows or more fit its height
  // (279.4 mm less 30 mm: 941 px) under the column headings.
  await page.setViewportSize({ width: 725, height: 941 });
  const rowHeights = await printed
    .locator('tr')
    .evaluateAll((rows) => rows.map((r) => r.getBoundingClientRect().height));
  const [head, ...body] = rowHeights as [number, ...number[]];
  const average = body.reduce((a, b) => a + b, 0) / body.length;
  expect(
    Math.floor((941 - head) / average),
    `rows of ${average.toFixed(1)} px under a ${head} px heading`,
  ).toBeGreaterThanOrEqual(25);
  await expect(page.getByRole('heading', { name: 'PropLens review: Evidence, “Q3”' })).toBeVisible();
  await expect(page.getByRole('button', { name: 'Export CSV' })).toBeHidden();
  await expect(resultsTable(page)).toBeHidden();
});

test('the charts come where their frames were: the results table does not move', async ({ page }) => {
  // More rows than the page's first page (100), from several towns and so several sources: the rows after the
  // first hundred are held back, so the charts' frames stand, sized for the rows in so far, until they are let go.
  const records = await referenceRecords(9, 1_900);
  await signInWithDemoKey(page);
  await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Review' }).click();
  const lines = Array.from({ length: 120 }, (_, i) => records[i % records.length]?.address as string);
  await page.getByRole('textbox', { name: 'Addresses' }).fill(lines.join('\n'));
  await page.getByRole('textbox', { name: 'Review name' }).fill('Frames');
  await page.getByRole('button', { name: 'Start review' }).click();
  await expect(page.getByText(`Done: all ${lines.length} addresses have an outcome.`)).toBeVisible({
    timeout: 60_000,
  });
  const review = page.url();
  let release = () => {};
  let held = Promise.resolve();
  await page.route(/\/rows\?.*cursor=/, async (route) => {
    await held;
    await route.continue();
  });
  const tableTop = () =>
    resultsTable(page).evaluate((t) => Math.round(t.getBoundingClientRect().top + window.scrollY));
  for (const width of [390, 1280]) {
    held = new Promise<void>((resolve) => {
      release = resolve;
    });
    await page.setViewportSize({ width, height: 900 });
    await page.goto(review);
    await expect(page.getByText('The charts are drawn once every row is in.')).toBeVisible();
    const waiting = await tableTop();
    release();
    const sources = page.getByRole('list', { name: 'Records by source: show only' }).getByRole('listitem');
    await expect(sources.first()).toBeVisible();
    expect(await sources.count(), 'sources').toBeGreaterThanOrEqual(3);
    await expect.poll(tableTop, { message: `the table at ${width} px wide` }).toBe(waiting);
  }
});

test('the review results at phone width: charts fit, the table scrolls inside its frame', async ({
  page,
}) => {
  await page.setViewportSize({ width: 390, height: 844 });
  await finishedReview(page, 'Phone check');
  const width = await page.evaluate(() => document.documentElement.scrollWidth);
  expect(width).toBeLessThanOrEqual(390);
  await expect(
    page.getByRole('figure', { name: 'Verification age' }).locator('svg.recharts-surface'),
  ).toBeVisible();
  await expectChartsWhereTheirFramesWere(page, 'narrow');
  // The columns off to the side are said to be there.
  await expect(page.getByText('More columns to the right: scroll the table sideways.')).toBeVisible();
  // The address as given and its outcome are on screen without scrolling sideways; the matched address,
  // match and source wait in the row's dialog.
  const results = page.getByRole('table', { name: 'Results' });
  for (const name of ['Input', 'Outcome']) {
    const box = await results.getByRole('columnheader', { name }).boundingBox();
    expect(box, name).not.toBeNull();
    expect((box?.x ?? 0) + (box?.width ?? 0), name).toBeLessThanOrEqual(390);
  }
  await expect(results.getByRole('columnheader', { name: /^Source/ })).toHaveCount(0);
  await expectNoAxeViolations(page, 'review results at phone width');
  // A tablet's width: the sources in two columns under their chart, the other two charts one above the other.
  await page.setViewportSize({ width: 800, height: 1024 });
  await expectChartsWhereTheirFramesWere(page, 'md');
  // Each range's narrow end, where the charts' words wrap most: the frames hold them.
  for (const [width, range] of [
    [360, 'narrow'],
    [640, 'sm'],
    [1024, 'lg'],
  ] as const) {
    await page.setViewportSize({ width, height: 1024 });
    await expectChartsWhereTheirFramesWere(page, range);
  }
});
