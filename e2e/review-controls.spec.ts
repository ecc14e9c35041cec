import { readFile } from 'node:fs/promises';
import { expect, type Page, test } from '@playwright/test';
import Papa from 'papaparse';
import {
  answeredOnServer,
  fastForward,
  fastForwardUntil,
  referenceRecords,
  signInWithDemoKey,
} from './support.ts';

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
    // The windows it waits through are moved through (the paced server's clock): seconds, not minutes.
    test.setTimeout(120_000);
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
    // Rows being asked at the pause finish (within two rate windows: the paced server's clock is moved through
    // them); after that, two more whole windows pass and no row moves: nothing of a paused review is asked.
    const url = page.url();
    await fastForward(page, 25_000);
    const settled = await answeredOnServer(page, url);
    expect(settled).toBeLessThan(TOTAL);
    await expect(progress(page)).toHaveAttribute('aria-valuenow', String(settled));
    await fastForward(page, 20_000);
    expect(await answeredOnServer(page, url)).toBe(settled);
    await expect(progress(page)).toHaveAttribute('aria-valuenow', String(settled));
    await expect(status).toHaveText(/^Paused:/);

    await page.getByRole('button', { name: 'Resume' }).click();
    await expect(status).toHaveText(/Looking up addresses on the server/);
    await fastForwardUntil(page, async () => (await answeredOnServer(page, url)) > settled);
    await expect.poll(() => answered(page)).toBeGreaterThan(settled);

    await page.getByRole('button', { name: 'Cancel review' }).click();
    const confirm = page.getByRole('region', { name: 'Cancel this review?' });
    await expect(confirm).toContainText('Every answer so far is kept.');
    await confirm.getByRole('button', { name: 'Yes, cancel the review' }).click();
    await expect(status).toHaveText(new RegExp(`^Cancelled: \\d+ of ${TOTAL} addresses were looked up`));
    await expect(page.getByRole('button', { name: 'Check again' })).toBeVisible();
    await expect(page.getByRole('button', { name: 'Pause' })).toHaveCount(0);

    // Rows being asked at the cancel may still finish (within two windows, moved through): the export is read
    // once the server's figure has stopped moving and the page shows it.
    await fastForward(page, 25_000);
    const asked = await answeredOnServer(page, url);
    expect(asked).toBeLessThan(TOTAL);
    await expect(progress(page)).toHaveAttribute('aria-valuenow', String(asked));
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
