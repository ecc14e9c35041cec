import { readFile } from 'node:fs/promises';
import { expect, type Locator, type Page, test } from '@playwright/test';
import Papa from 'papaparse';
import {
  answeredOnServer,
  expectNoAxeViolations,
  fastForwardUntil,
  referenceRecords,
  signInWithDemoKey,
} from './support.ts';

/*
 * Review journeys. Those tagged @paced run against a server with a low rate limit (15 requests per 10 s,
 * the `review-paced` project in playwright.config): reviews longer than several windows, so the BFF really
 * paces them and a review row really waits. Once a journey has seen a review running, it moves that server's
 * clock forward (e2e/support.ts fastForwardUntil) rather than wait out the windows left. The others run where
 * the limit is generous: what they show does not depend on the pace.
 */

async function openReviews(page: Page) {
  await signInWithDemoKey(page);
  const nav = page.getByRole('navigation', { name: 'Main' });
  await nav.getByRole('link', { name: 'Review' }).click();
  await expect(page.getByRole('heading', { name: 'Review many addresses' })).toBeVisible();
  // The way back to single-address search is in the header too.
  await expect(nav.getByRole('link', { name: 'Search' })).toHaveAttribute('href', '/search');
}

const progress = (page: Page) => page.getByRole('progressbar', { name: 'Review progress' });

/** The figure next to an outcome's name in the progress panel. */
function count(page: Page, label: string): Locator {
  return page
    .getByRole('region', { name: 'Progress' })
    .locator('dl > div')
    .filter({ has: page.getByRole('term').filter({ hasText: label }) })
    .getByRole('definition');
}

/** Every row has an outcome, and nothing told the reviewer about the rate limit as an error. */
async function expectFinished(page: Page, total: number) {
  await expect(progress(page)).toHaveAttribute('aria-valuetext', `${total} of ${total}`, { timeout: 90_000 });
  await expect(page.getByText(`Done: all ${total} addresses have an outcome.`)).toBeVisible();
  const sum = await Promise.all(
    ['Matched', 'Not found', 'Ambiguous', 'Failed'].map(async (l) =>
      Number(await count(page, l).innerText()),
    ),
  );
  expect(sum.reduce((a, b) => a + b, 0)).toBe(total);
  await expect(page.getByRole('alert')).toHaveCount(0);
}

test('a pasted review goes at the pace the rate limit allows and ends with every row accounted for', {
  tag: '@paced',
}, async ({ page }) => {
  const records = await referenceRecords(40, 0);
  await openReviews(page);
  await expectNoAxeViolations(page, 'the review start screen');

  const longRow = `1 ${'Long '.repeat(110)}Rd`;
  const lines = [
    ...records.map((r) => r.address),
    '',
    (records[0] as { address: string }).address.toUpperCase(),
    '100 Main St',
    '99999 Nowhere Rd, Springfield, IL 62701',
    longRow,
  ];
  await page.getByRole('textbox', { name: 'Addresses' }).fill(lines.join('\n'));
  await expect(
    page.getByText(/44 addresses · 1 blank line skipped · 1 repeat \(looked up once\) · 1 row refused/),
  ).toBeVisible();
  await page.getByRole('textbox', { name: 'Review name' }).fill('Pasted portfolio');
  await page.getByRole('button', { name: 'Start review' }).click();

  await expect(page.getByRole('heading', { name: 'Pasted portfolio' })).toBeVisible();
  await expect(page).toHaveURL(/\/review\/[\w-]+$/);
  // Running on the server: the page says so (and an ETA once it has seen the pace).
  await expect(page.getByTestId('review-status')).toHaveText(/Looking up addresses on the server/);
  await expectNoAxeViolations(page, 'a running review');

  // The rest of its rate windows end as soon as they start (the paced server's clock is moved forward).
  const url = page.url();
  await fastForwardUntil(page, async () => (await answeredOnServer(page, url)) === 44);
  await expectFinished(page, 44);
  await expect(count(page, 'Matched')).toHaveText('41');
  await expect(count(page, 'Ambiguous')).toHaveText('1');
  await expect(count(page, 'Not found')).toHaveText('1');
  await expect(count(page, 'Failed')).toHaveText('1');
  await expectNoAxeViolations(page, 'a finished review');
  await page.emulateMedia({ colorScheme: 'dark' });
  await expectNoAxeViolations(page, 'a finished review, dark');
  await page.emulateMedia({ colorScheme: 'light' });

  // The rows really waited, by the server's own clock (moved forward, never skipping a rule): 42 lookups
  // against 15 per 10 s need at least three windows, and a lookup in the first and one in the third have the
  // whole second window between them.
  const [download] = await Promise.all([
    page.waitForEvent('download'),
    page.getByRole('button', { name: 'Export CSV' }).click(),
  ]);
  const exported = Papa.parse<Record<string, string>>(
    (await readFile((await download.path()) as string, 'utf8')).replace(/^\ufeff/, ''),
    { header: true, skipEmptyLines: true },
  );
  const lookedUp = exported.data
    .filter((r) => ['matched', 'ambiguous', 'not_found'].includes(r.outcome ?? ''))
    .map((r) => Date.parse(r.retrieved_at ?? ''));
  expect(lookedUp).toHaveLength(43);
  expect(Math.max(...lookedUp) - Math.min(...lookedUp)).toBeGreaterThan(10_000);

  // The list has it, with its state, size and date; Delete removes it.
  await page.getByRole('link', { name: 'All reviews' }).click();
  const item = page
    .getByRole('listitem')
    .filter({ has: page.getByRole('link', { name: 'Pasted portfolio' }) });
  await expect(item).toContainText('Done');
  await expect(item).toContainText('44 addresses');
  await expectNoAxeViolations(page, 'the list of reviews');
  await item.getByRole('button', { name: 'Delete review Pasted portfolio' }).click();
  await page.getByRole('button', { name: 'Delete Pasted portfolio' }).click();
  // Gone for the account (the account's other reviews, from other journeys, stay).
  await expect(page.getByRole('link', { name: 'Pasted portfolio' })).toHaveCount(0);
});

test.describe('on a phone', () => {
  test.use({ viewport: { width: 390, height: 844 }, isMobile: true, hasTouch: true });

  test('an uploaded CSV with street, city, state and ZIP columns is previewed, joined and reviewed', async ({
    page,
  }) => {
    const records = await referenceRecords(35, 5);
    const quote = (s: string) => (/[",\n]/.test(s) ? `"${s.replace(/"/g, '""')}"` : s);
    const csv = [
      'Street,City,State,Zip,Note',
      ...records.map((r, i) =>
        [r.street, r.city, r.state, r.zip, i === 0 ? 'corner lot, "as is"' : ''].map(quote).join(','),
      ),
      ',,,,',
    ].join('\r\n');
    await openReviews(page);
    await page.getByText('Upload a file').click();
    await page.getByLabel('CSV file').setInputFiles({
      name: 'deal-7.csv',
      mimeType: 'text/csv',
      buffer: Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from(csv)]),
    });
    const preview = page.getByRole('table', { name: /Preview/ });
    await expect(preview.getByRole('row').nth(1)).toContainText(
      `${records[0]?.street}, ${records[0]?.city}, ${records[0]?.state} ${records[0]?.zip}`,
    );
    await expect(page.getByRole('checkbox', { name: 'The first row is a header' })).toBeChecked();
    await expect(page.getByText(/35 addresses · 1 blank line skipped/)).toBeVisible();
    await expectNoAxeViolations(page, 'a CSV preview on a phone');

    await page.getByRole('button', { name: 'Start review' }).click();
    await expect(page.getByRole('heading', { name: 'deal-7' })).toBeVisible();
    await expectFinished(page, 35);
    await expect(count(page, 'Matched')).toHaveText('35');
    await expectNoAxeViolations(page, 'a finished review on a phone');

    // The export joins back: the file's own columns first, as uploaded, then PropLens's, prefixed.
    const [download] = await Promise.all([
      page.waitForEvent('download'),
      page.getByRole('button', { name: 'Export CSV' }).click(),
    ]);
    const text = await readFile((await download.path()) as string, 'utf8');
    const [header, first] = text.replace(/^\ufeff/, '').split('\r\n');
    expect(header).toMatch(
      /^Street,City,State,Zip,Note,proplens_source_row,proplens_input,proplens_outcome,/,
    );
    expect(first).toContain('"corner lot, ""as is"""');
  });
});

test('a review goes on with the browser closed, a colleague of the account watches it, another account cannot see it', {
  tag: '@paced',
}, async ({ page, browser }) => {
  const records = await referenceRecords(60, 11);
  await openReviews(page);
  await page.getByRole('textbox', { name: 'Addresses' }).fill(records.map((r) => r.address).join('\n'));
  await page.getByRole('textbox', { name: 'Review name' }).fill('Closed tab');
  await page.getByRole('button', { name: 'Start review' }).click();
  // Under way and not finished: 60 lookups against 15 per 10 s take four windows.
  await expect(progress(page)).toHaveAttribute('aria-valuetext', /^([1-9]|[1-5]\d) of 60$/, {
    timeout: 30_000,
  });
  const url = page.url();
  const before = Number((await progress(page).getAttribute('aria-valuenow')) ?? 0);
  // Close the browser page: the server goes on (the session stays signed in).
  const context = page.context();
  await page.close();

  // A colleague signs in with the account's second key, in another browser: the review is listed and live.
  const colleague = await browser.newContext();
  const other = await colleague.newPage();
  await other.goto('/sign-in');
  await other.getByLabel('API key').fill('pi_demo_professional_2');
  await other.getByRole('button', { name: 'Sign in' }).click();
  await other.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Review' }).click();
  const item = other.getByRole('listitem').filter({ has: other.getByRole('link', { name: 'Closed tab' }) });
  await expect(item).toContainText(/started by key [0-9a-f]{8}/);
  await item.getByRole('link', { name: 'Closed tab' }).click();
  await expect(progress(other)).toBeVisible();
  expect(Number((await progress(other).getAttribute('aria-valuenow')) ?? 0)).toBeGreaterThanOrEqual(before);
  // With nobody's browser on it, the rest of its windows end at once (the paced server's clock moves forward).
  await fastForwardUntil(other, async () => (await answeredOnServer(other, url)) === 60);
  await expectFinished(other, 60);
  await expect(count(other, 'Matched')).toHaveText('60');
  await colleague.close();

  // The starter comes back in a new page: finished, without having kept anything open.
  const back = await context.newPage();
  await back.goto(url);
  await expectFinished(back, 60);

  // Another account: not listed, and its URL is "Review not found".
  const stranger = await browser.newContext();
  const strangerPage = await stranger.newPage();
  await strangerPage.goto('/sign-in');
  await strangerPage.getByLabel('API key').fill('pi_demo_enterprise');
  await strangerPage.getByRole('button', { name: 'Sign in' }).click();
  await expect(strangerPage.getByRole('button', { name: 'Sign out' })).toBeVisible();
  await strangerPage.goto(url);
  await expect(strangerPage.getByRole('heading', { name: 'Review not found' })).toBeVisible();
  await stranger.close();
});
