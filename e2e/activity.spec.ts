import { readFile } from 'node:fs/promises';
import { expect, test } from '@playwright/test';
import { expectNoAxeViolations, signInWithDemoKey } from './support.ts';

const CONGRESS = '1100 Congress Ave, Austin, TX 78701';

test('the Activity page shows who looked up what and what it said; History on a record; CSV export; another account sees none', async ({
  page,
  browser,
}) => {
  await signInWithDemoKey(page);
  const field = page.getByRole('combobox', { name: 'Address' });
  await field.fill('1100 congress ave austin tx');
  await field.press('Enter');
  await expect(page.getByRole('heading', { name: CONGRESS })).toBeVisible();

  // From the record: History lists this account's lookups of the property.
  await page.getByRole('button', { name: 'History' }).click();
  const history = page.getByRole('table', { name: /^History of / });
  await expect(history.getByRole('row').nth(1)).toContainText('1100 congress ave austin tx');

  await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Activity' }).click();
  await expect(page.getByRole('heading', { name: 'Activity' })).toBeVisible();
  const table = page.getByRole('table', { name: 'Activity' });
  const lookup = table.getByRole('row').filter({ hasText: '1100 congress ave austin tx' }).first();
  await expect(lookup).toContainText('Matched');
  await expect(lookup).toContainText('Travis Central Appraisal District');
  await expect(lookup).toContainText(/key [0-9a-f]{8}/);
  await expect(table.getByRole('row').filter({ hasText: 'Signed in' }).first()).toBeVisible();
  await expectNoAxeViolations(page, 'the Activity page');
  // Where the table is wider than the page it scrolls inside its frame, a tab stop for the keyboard; where it fits,
  // the frame is neither a tab stop nor a region of its own.
  const sideways = page.getByRole('region', { name: 'Activity, scrolls sideways' });
  await expect(sideways).toHaveCount(0);
  await page.setViewportSize({ width: 800, height: 900 });
  await expect(sideways).toHaveAttribute('tabindex', '0');
  await expectNoAxeViolations(page, 'the Activity page at 800 px');
  await page.setViewportSize({ width: 1280, height: 720 });

  await page.getByRole('searchbox', { name: 'Address or property ID' }).fill('congress');
  await page.getByRole('button', { name: 'Apply filters' }).click();
  await expect(table.getByRole('row').filter({ hasText: 'Signed in' })).toHaveCount(0);

  const [download] = await Promise.all([
    page.waitForEvent('download'),
    page.getByRole('button', { name: 'Export CSV' }).click(),
  ]);
  const csv = await readFile((await download.path()) as string, 'utf8');
  expect(csv.replace(/^\ufeff/, '').split('\r\n')[0]).toBe(
    'time,kind,key,session,asked,outcome,property_id,source,confidence,last_verified,cached,cached_at,review_id,row,review_owner,key_name,review_owner_name',
  );
  expect(csv).toContain('1100 congress ave austin tx');

  // Another account: none of these entries.
  const other = await browser.newContext();
  const stranger = await other.newPage();
  await stranger.goto('/sign-in');
  await stranger.getByLabel('API key').fill('pi_demo_enterprise');
  await stranger.getByRole('button', { name: 'Sign in' }).click();
  await expect(stranger.getByRole('button', { name: 'Sign out' })).toBeVisible();
  await stranger.goto('/activity');
  await expect(stranger.getByRole('table', { name: 'Activity' })).toBeVisible();
  await expect(stranger.getByText('1100 congress ave austin tx')).toHaveCount(0);
  await other.close();
});
