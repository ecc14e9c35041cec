import { expect, type Page, test } from '@playwright/test';
import { expectNoAxeViolations, referenceRecords, signInWithDemoKey } from './support.ts';

/** The figure next to an outcome's name in the progress panel. */
const count = (page: Page, label: string) =>
  page
    .getByRole('region', { name: 'Progress' })
    .locator('dl > div')
    .filter({ has: page.getByRole('term').filter({ hasText: label }) })
    .getByRole('definition');

test('an ambiguous row and a row not found are fixed without leaving the review', async ({ page }) => {
  const [record] = await referenceRecords(1, 900);
  if (!record) throw new Error('no reference record');
  await signInWithDemoKey(page);
  await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Review' }).click();
  const typo = `${record.street.replace(/^\d+/, (n) => String(Number(n) + 90_000))}, ${record.city}, ${record.state} ${record.zip}`;
  await page.getByRole('textbox', { name: 'Addresses' }).fill(['100 Main St', typo].join('\n'));
  await page.getByRole('textbox', { name: 'Review name' }).fill('Fix in place');
  await page.getByRole('button', { name: 'Start review' }).click();
  await expect(page.getByText('Done: all 2 addresses have an outcome.')).toBeVisible({ timeout: 60_000 });
  await expect(count(page, 'Ambiguous')).toHaveText('1');
  await expect(count(page, 'Not found')).toHaveText('1');
  const reviewUrl = page.url();

  // "Use this one": the candidate becomes the row's record, here and for everyone looking at the review.
  await page.getByRole('button', { name: '100 Main St', exact: true }).click();
  const dialog = page.getByRole('dialog', { name: '100 Main St' });
  await expect(dialog.getByText(/^Showing \d+ of \d+ candidates$|^\d+ candidates$/)).toBeVisible();
  await expectNoAxeViolations(page, 'an ambiguous row opened to fix');
  const second = dialog.getByRole('list', { name: 'Candidates' }).getByRole('listitem').nth(1);
  const chosen = await second.getByRole('link').innerText();
  await second.getByRole('button', { name: 'Use this one' }).click();
  // Focus moves to what changed, so a screen reader hears it.
  await expect(dialog.locator(':focus')).toContainText(
    `Fixed in the review: looked up as “${chosen}” (a candidate chosen).`,
  );
  await expect(dialog.getByRole('heading', { name: chosen })).toBeVisible();
  await dialog.getByRole('button', { name: 'Close' }).click();
  await expect(count(page, 'Ambiguous')).toHaveText('0');
  await expect(count(page, 'Matched')).toHaveText('1');
  await expect(page.getByText(`Fixed: looked up as ${chosen}`)).toBeVisible();

  // An edited address: the one that finds nothing changes nothing; the right one is kept.
  await page.getByRole('button', { name: typo }).click();
  const notFound = page.getByRole('dialog', { name: typo });
  const field = notFound.getByRole('textbox', { name: 'Address to look up' });
  await field.fill(`99999 Nowhere Rd, ${record.city}, ${record.state} ${record.zip}`);
  await notFound.getByRole('button', { name: 'Look up again' }).click();
  await expect(notFound.getByText(/^Still no match for /)).toBeVisible();
  await expect(count(page, 'Not found')).toHaveText('1');
  await field.fill(record.address);
  await notFound.getByRole('button', { name: 'Look up again' }).click();
  await expect(notFound.getByText(/\(the address edited\)\.$/)).toBeVisible();
  await notFound.getByRole('button', { name: 'Close' }).click();
  await expect(count(page, 'Matched')).toHaveText('2');

  // The fixes are the review's, kept on the server: a reload shows them.
  await page.goto(reviewUrl);
  await expect(page.getByText(`Fixed: looked up as ${chosen}`)).toBeVisible();
  await expect(page.getByText(`Fixed: looked up as ${record.address}`)).toBeVisible();
  await expect(count(page, 'Not found')).toHaveText('0');
});
