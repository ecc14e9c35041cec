import { readFile } from 'node:fs/promises';
import { expect, type Page, test } from '@playwright/test';
import Papa from 'papaparse';
import { referenceRecords, signInWithDemoKey } from './support.ts';

/*
 * Pause, Resume and Cancel of a running review, on the paced server (`review-paced` in playwright.config: 15
 * lookups per 10 s), so the review is still running when the journey pauses it. Self-contained: its own
 * addresses, its own review.
 */

// Eight rate windows at least (15 lookups per 10 s): still running when the page, on a loaded machine, pauses it,
// and after it resumes, when it cancels it (60 rows once ended first: reviews now use the whole window).
const TOTAL = 120;
const progress = (page: Page) => page.getByRole('progressbar', { name: 'Review progress' });
const answered = async (page: Page) => Number(await progress(page).getAttribute('aria-valuenow'));

test(
  'a running review is paused (no row moves), resumed, then cancelled with the rest not asked',
  {
    tag: '@paced',
  },
  async ({ page }, testInfo) => {
    // Two waits of a whole rate window, and one after the cancel, on top of a paced review.
    test.setTimeout(240_000);
    // Its own records, away from the other journeys' (and the BFF's cache of them), and from its own earlier
    // runs on the same server (--repeat-each): a cached review could end before it is paused.
    const run = testInfo.repeatEachIndex;
    const records = await referenceRecords(TOTAL, 9_000 + run * 2_300);
    // Its own name, so Activity shows this run's entries once.
    const name = `Paused portfolio #${run + 1}`;
    await signInWithDemoKey(page);
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Review' }).click();
    await page.getByRole('textbox', { name: 'Addresses' }).fill(records.map((r) => r.address).join('\n'));
    await page.getByRole('textbox', { name: 'Review name' }).fill(name);
    await page.getByRole('button', { name: 'Start review' }).click();
    await expect(page.getByRole('heading', { name })).toBeVisible();
    await page.getByRole('button', { name: 'Pause' }).click();
    const status = page.getByTestId('review-status');
    await expect(status).toHaveText(/^Paused: \d+ addresses wait/);
    await expect(page.getByRole('button', { name: 'Resume' })).toBeVisible();
    // Rows being asked at the pause finish (a rate window at most); after that, a whole window passes and no row
    // moves: nothing of a paused review is asked.
    await page.waitForTimeout(11_000);
    const settled = await answered(page);
    expect(settled).toBeLessThan(TOTAL);
    await page.waitForTimeout(11_000);
    expect(await answered(page)).toBe(settled);
    await expect(status).toHaveText(/^Paused:/);

    await page.getByRole('button', { name: 'Resume' }).click();
    await expect(status).toHaveText(/Looking up addresses on the server/);
    await expect.poll(() => answered(page), { timeout: 30_000 }).toBeGreaterThan(settled);

    await page.getByRole('button', { name: 'Cancel review' }).click();
    const confirm = page.getByRole('region', { name: 'Cancel this review?' });
    await expect(confirm).toContainText('Every answer so far is kept.');
    await confirm.getByRole('button', { name: 'Yes, cancel the review' }).click();
    await expect(status).toHaveText(new RegExp(`^Cancelled: \\d+ of ${TOTAL} addresses were looked up`));
    await expect(page.getByRole('button', { name: 'Check again' })).toBeVisible();
    await expect(page.getByRole('button', { name: 'Pause' })).toHaveCount(0);

    // Rows being asked at the cancel may still finish: the export is read once the figure stops moving.
    await page.waitForTimeout(11_000);
    const asked = await answered(page);
    expect(asked).toBeLessThan(TOTAL);
    await expect(
      page.getByRole('region', { name: 'Reliability summary' }).getByRole('list', { name: 'Outcomes' }),
    ).toContainText(`Not asked: ${TOTAL - asked}`);
    const [download] = await Promise.all([
      page.waitForEvent('download'),
      page.getByRole('button', { name: 'Export CSV' }).click(),
    ]);
    const exported = Papa.parse<Record<string, string>>(
      (await readFile((await download.path()) as string, 'utf8')).replace(/^\ufeff/, ''),
      { header: true, skipEmptyLines: true },
    );
    expect(exported.data).toHaveLength(TOTAL);
    expect(exported.data.filter((r) => r.outcome === 'not_asked')).toHaveLength(TOTAL - asked);

    // Each is on record in the account's Activity.
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Activity' }).click();
    const table = page.getByRole('table', { name: 'Activity' });
    for (const label of ['Review paused', 'Review resumed', 'Review cancelled'])
      await expect(table.getByRole('row').filter({ hasText: label }).filter({ hasText: name })).toHaveCount(
        1,
      );
  },
);
