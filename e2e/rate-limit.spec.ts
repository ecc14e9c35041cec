import { expect, test } from '@playwright/test';
import { expectNoAxeViolations, signInWithDemoKey } from './support.ts';

// Runs against its own server: 4 upstream requests per 12 s, and the BFF waits at most 2 s.
test('hitting the rate limit shows a live countdown, never "not found", then recovers by itself', async ({
  page,
}) => {
  test.setTimeout(90_000);
  await signInWithDemoKey(page); // 1 request
  const addresses = [
    '1100 Congress Ave, Austin, TX',
    '233 S Wacker Dr, Chicago, IL',
    '742 Evergreen Ter, Springfield, OR',
  ];
  for (const a of addresses) {
    await page.goto(`/search?address=${encodeURIComponent(a)}`); // 2, 3, 4
    await expect(page.getByRole('list', { name: 'Reliability' })).toBeVisible();
  }
  await page.goto(`/search?address=${encodeURIComponent('1313 Mockingbird Ln, St Louis, MO')}`); // over the limit
  const alert = page.getByText('Rate limit reached: this search will run again automatically');
  await expect(alert).toBeVisible();
  await expect(page.getByText(/No property matches/)).toHaveCount(0);
  await expect(page.getByText(/Retrying in \d+ s/)).toBeVisible();
  // The truth about the window (the BFF observes it to within a second), not "per minute".
  await expect(
    page.getByText(/allows your key 4 lookups every 1[123] seconds, and they are used up/),
  ).toBeVisible();
  await expect(page.getByText(/^0 of 4 lookups left · resets in \d+ s$/)).toBeVisible();
  await expectNoAxeViolations(page, 'the rate-limited state');

  await expect(page.getByRole('heading', { name: '1313 Mockingbird Ln, Saint Louis, MO 63101' })).toBeVisible(
    { timeout: 30_000 },
  );
  await expect(alert).toHaveCount(0);
});

test('a lookup the BFF holds for the rate limit says it is waiting, with a countdown, then runs', async ({
  page,
}) => {
  test.setTimeout(120_000);
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
  const lookUpNowhere = async () => {
    const address = nowhere();
    await lookUp(address);
    // Within a spent window the page waits (or counts down) and runs the search by itself.
    await expect(notFound(address)).toBeVisible({ timeout: 30_000 });
  };
  const meter = page.getByText(/\d+ of 4 lookups left/);
  for (let i = 0; i < 8 && !/^0 of 4/.test((await meter.textContent()) ?? ''); i++) await lookUpNowhere();
  await expect(meter).toHaveText(/^0 of 4 lookups left · resets in \d+ s$/);

  // Close to the reset (within the BFF's 2 s hold), search again: the BFF holds the lookup until the reset.
  await expect(meter).toHaveText(/resets in [12] s$/, { timeout: 15_000 });
  const held = nowhere();
  await lookUp(held);
  await expect(page.getByText(/^Waiting for the rate limit to reset, [12]\ss$/)).toBeVisible();
  await expectNoAxeViolations(page, 'a lookup held for the rate limit');
  await expect(notFound(held)).toBeVisible({ timeout: 10_000 });
  await expect(page.getByText(/Waiting for the rate limit/)).toHaveCount(0);
  // The new window, as the answer reported it: one lookup spent.
  await expect(meter).toHaveText(/^3 of 4 lookups left/);
});
