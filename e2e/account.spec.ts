import { expect, type Page, test } from '@playwright/test';
import { CSRF_HEADER } from '../src/contract/index.ts';
import { expectNoAxeViolations, signInWithDemoKey } from './support.ts';

const CONGRESS = '1100 Congress Ave, Austin, TX 78701';

async function signInWith(page: Page, key: string) {
  await page.goto('/sign-in');
  await page.getByLabel('API key').fill(key);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await expect(page.getByRole('heading', { name: 'Find a property' })).toBeVisible();
}

/** The meter's count of lookups left, read as a person would. */
async function lookupsLeft(page: Page): Promise<number> {
  const text = await page.getByText(/\d+ of \d+ lookups left/).textContent();
  return Number(/(\d+) of/.exec(text ?? '')?.[1]);
}

test('two accounts on one browser: the second sees nothing of the first', async ({ page }) => {
  // Account A (professional) searches, and the search is remembered for it.
  await signInWith(page, 'pi_demo_professional');
  const field = page.getByRole('combobox', { name: 'Address' });
  await field.fill('1100 congress avenue austin tx');
  await field.press('Enter');
  await expect(page.getByRole('heading', { name: CONGRESS })).toBeVisible();
  await page.getByRole('link', { name: 'PropLens home' }).click();
  await expect(page.getByRole('heading', { name: 'Recent searches' })).toBeVisible();
  await expect(page.getByRole('link', { name: CONGRESS })).toBeVisible();

  await page.getByRole('button', { name: 'Sign out' }).click();
  await expect(page.getByLabel('API key')).toBeVisible();
  await expect(page).toHaveURL(/\/sign-in$/);

  // Account B (enterprise) on the same browser.
  await signInWith(page, 'pi_demo_enterprise');
  await expect(page.getByText('Meridian Title Group')).toBeVisible();
  await expect(page).toHaveURL(/\/search$/);
  await expect(page.getByRole('heading', { name: 'Recent searches' })).toHaveCount(0);
  await expect(page.getByText(CONGRESS)).toHaveCount(0);
  // Nothing of A's is offered as the field opens either.
  await field.focus();
  await expect(page.getByRole('option', { name: /Recent search/ })).toHaveCount(0);
  const stored = await page.evaluate(() => JSON.stringify({ ...localStorage }));
  expect(stored).not.toContain('Congress');
  expect(stored).not.toContain('pi_demo');
});

test('an account whose session ended here does not hand its page to the next account', async ({ page }) => {
  await signInWith(page, 'pi_demo_professional');
  await page.goto(`/search?address=${encodeURIComponent('233 S Wacker Dr, Chicago IL')}`);
  await expect(page.getByRole('heading', { name: '233 S Wacker Dr, Chicago, IL 60606' })).toBeVisible();
  // The session ends on the server (idle timeout) without a sign-out here.
  await page.context().clearCookies();
  await page.reload();
  await expect(page).toHaveURL(/\/sign-in\?next=/);

  await page.getByLabel('API key').fill('pi_demo_enterprise');
  await page.getByRole('button', { name: 'Sign in' }).click();
  await expect(page.getByText('Meridian Title Group')).toBeVisible();
  await expect(page).toHaveURL(/\/search$/);
  await expect(page.getByRole('combobox', { name: 'Address' })).toHaveValue('');
  await expect(page.getByRole('heading', { name: /Wacker/ })).toHaveCount(0);
});

test('the meter follows a not-found answer: it spent a lookup too', async ({ page }) => {
  await signInWithDemoKey(page);
  await expect(page.getByText(/\d+ of \d+ lookups left · resets in \d+ s/)).toBeVisible();
  const field = page.getByRole('combobox', { name: 'Address' });
  // What is typed is offered suggestions after a pause, and they spend a lookup of their own (a slow run
  // pressed Enter after it and counted two): let them come and the meter take them in, then count.
  const suggested = page.waitForResponse((r) => r.url().includes('/api/properties/search?'));
  await field.fill(`${90000 + Math.floor(Math.random() * 9000)} Congress Ave, Austin, TX`);
  const { rateLimit } = (await (await suggested).json()) as { rateLimit: { remaining: number } };
  await expect.poll(() => lookupsLeft(page)).toBe(rateLimit.remaining);
  const before = await lookupsLeft(page);
  await field.press('Enter');
  await expect(page.getByText(/No property matches/)).toBeVisible();
  await expect.poll(() => lookupsLeft(page)).toBe(before - 1);
});

test('the search box: an empty search says what to type; Escape closes, then clears', async ({ page }) => {
  await signInWithDemoKey(page);
  const field = page.getByRole('combobox', { name: 'Address' });
  await page.getByRole('button', { name: 'Search' }).click();
  await expect(page.getByRole('alert')).toHaveText(
    'Type an address to search for: a street with its city and state, or a ZIP code.',
  );
  await expect(field).toBeFocused();
  await expectNoAxeViolations(page, 'an empty search');

  await field.pressSequentially('1100 congress', { delay: 20 });
  await expect(page.getByRole('alert')).toHaveCount(0);
  await expect(page.getByRole('listbox', { name: 'Suggestions' })).toBeVisible();
  await field.press('Escape');
  await expect(page.getByRole('listbox', { name: 'Suggestions' })).toBeHidden();
  await expect(field).toHaveValue('1100 congress');
  await field.press('Escape');
  await expect(field).toHaveValue('');
  await expect(field).toBeFocused();
});

test('the signed-in header fits every width: nothing wider than the window, the account’s name on one line', async ({
  page,
}) => {
  await signInWithDemoKey(page);
  const { account } = (await (
    await page.request.get('/api/session', { headers: { [CSRF_HEADER.name]: CSRF_HEADER.value } })
  ).json()) as {
    account: { name: string };
  };
  const header = page.getByRole('banner');
  const name = header.getByText(account.name, { exact: true });
  for (const width of [390, 640, 800, 1024, 1280]) {
    await page.setViewportSize({ width, height: 800 });
    await expect
      .poll(() => page.evaluate(() => document.documentElement.scrollWidth), { message: `${width} px` })
      .toBeLessThanOrEqual(width);
    // One line of text-sm: from 640 px it was squeezed beside the links to a word a line, the header 273 px tall.
    const box = await name.boundingBox();
    expect(box?.height, `the account's name at ${width} px`).toBeLessThanOrEqual(24);
    const tall = await header.evaluate((h) => h.getBoundingClientRect().height);
    expect(tall, `the header at ${width} px`).toBeLessThanOrEqual(width < 640 ? 180 : 110);
  }
});
