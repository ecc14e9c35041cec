import { expect, type Page, test } from '@playwright/test';
import { expectNoAxeViolations, referenceRecords, signInWithDemoKey } from './support.ts';

/*
 * Runs against its own server: 4 upstream requests per 30 s, and the BFF holds a request at most 10 s
 * (playwright.config). Each demo sign-in has a window of its own (ADR 009), which its first request opens.
 *
 * Whether a lookup is held or refused depends on how close to the reset it reaches the BFF. Neither test
 * counts on how fast the machine is: each reads the meter (the whole seconds left, as the page shows them),
 * and every moment it aims at is seconds wide: a refused search is sent with over 15 s of the window left
 * (the hold is 10), a held one with 4 to 7 s left, and what follows the hold has a whole 30 s window to be
 * read in. A slow run that spent a window too late to leave the time it needs spends the next one.
 */

const meter = (page: Page) => page.getByText(/\d+ of 4 lookups left/);
const secondsLeft = async (page: Page) =>
  Number(/resets in (\d+) s$/.exec((await meter(page).textContent()) ?? '')?.[1] ?? 0);
const spent = async (page: Page) => /^0 of 4/.test((await meter(page).textContent()) ?? '');

/** Spends the window's lookups with `lookUp` until the meter says none are left with `atLeast` s to go. */
async function spendWindow(page: Page, lookUp: () => Promise<void>, atLeast: number) {
  for (let window = 1; ; window++) {
    for (let i = 0; i < 8 && !(await spent(page)); i++) await lookUp();
    await expect(meter(page)).toHaveText(/^0 of 4 lookups left · resets in \d+ s$/);
    if ((await secondsLeft(page)) >= atLeast) return;
    expect(window, `a window spent with ${atLeast} s of it left`).toBeLessThan(4);
    // Spent too late: the window ends, and the meter says so without a request.
    await expect(meter(page)).toHaveText(/^4 of 4 lookups left$/, { timeout: 35_000 });
  }
}

test('hitting the rate limit shows a live countdown, never "not found", then recovers by itself', async ({
  page,
}) => {
  test.setTimeout(150_000);
  // Addresses that resolve, each looked up once (an answer found is cached), so each costs a request.
  const records = await referenceRecords(16, 7000);
  await signInWithDemoKey(page);
  const field = page.getByRole('combobox', { name: 'Address' });
  // Out of lookups with 20 s or more to go: the search below reaches the BFF (a page load later, 1 s of the
  // meter's rounding aside) with more than its 10 s hold left, so it is refused, not held.
  await spendWindow(
    page,
    async () => {
      const record = records.shift();
      if (!record) throw new Error('more reference records needed');
      await field.fill(record.address);
      await field.press('Enter');
      await expect(page.getByRole('heading', { name: record.address })).toBeVisible();
    },
    20,
  );
  await page.goto(`/search?address=${encodeURIComponent('1313 Mockingbird Ln, St Louis, MO')}`); // over the limit
  const alert = page.getByText('Rate limit reached: this search will run again automatically');
  await expect(alert).toBeVisible();
  await expect(page.getByText(/No property matches/)).toHaveCount(0);
  await expect(page.getByText(/Retrying in \d+ s/)).toBeVisible();
  // The truth about the window (the BFF observes it to within a second), not "per minute".
  await expect(
    page.getByText(/allows your key 4 lookups every (29|30|31) seconds, and they are used up/),
  ).toBeVisible();
  await expect(page.getByText(/^0 of 4 lookups left · resets in \d+ s$/)).toBeVisible();
  await expectNoAxeViolations(page, 'the rate-limited state');

  await expect(page.getByRole('heading', { name: '1313 Mockingbird Ln, Saint Louis, MO 63101' })).toBeVisible(
    { timeout: 45_000 },
  );
  await expect(alert).toHaveCount(0);
});

test('a lookup the BFF holds for the rate limit says it is waiting, with a countdown, then runs', async ({
  page,
}) => {
  test.setTimeout(150_000);
  await signInWithDemoKey(page);
  const field = page.getByRole('combobox', { name: 'Address' });
  // Addresses that exist nowhere: each costs a lookup (a not-found answer is never cached), so the window
  // can be spent on purpose whatever the test before left of it.
  let n = 0;
  const nowhere = () => `${91000 + n++} Nowhere Rd, Austin, TX`;
  const lookUp = async (address: string) => {
    await field.fill(address);
    await field.press('Enter');
  };
  const notFound = (address: string) => page.getByText(`No property matches “${address}”`);
  await spendWindow(
    page,
    async () => {
      const address = nowhere();
      await lookUp(address);
      await expect(notFound(address)).toBeVisible();
    },
    10,
  );

  // Close to the reset (well within the BFF's 10 s hold), search again: the BFF holds the lookup until the
  // reset. Typed first, sent when the meter shows 4 to 7 s left: the hold lasts seconds, not a moment.
  const held = nowhere();
  await field.fill(held);
  await expect(meter(page)).toHaveText(/^0 of 4 lookups left · resets in [4-7] s$/, { timeout: 35_000 });
  await field.press('Enter');
  await expect(page.getByText(/^Waiting for the rate limit to reset, [1-7]\ss$/)).toBeVisible();
  await expectNoAxeViolations(page, 'a lookup held for the rate limit');
  // The answer, and the new window it opened (30 s long, so a slow check above cannot outlast it).
  await expect(notFound(held)).toBeVisible({ timeout: 30_000 });
  await expect(page.getByText(/Waiting for the rate limit/)).toHaveCount(0);
  await expect(meter(page)).toHaveText(/^3 of 4 lookups left/);
});
