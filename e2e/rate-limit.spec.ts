import { expect, type Page, test } from '@playwright/test';
import { CSRF_HEADER, ResolveMiss } from '../src/contract/index.ts';
import { expectNoAxeViolations, installServerClock, moveClocks, signInWithDemoKey } from './support.ts';

/*
 * Runs against its own server: 4 upstream requests per 30 s, and the BFF holds a request at most 10 s
 * (playwright.config). Each demo sign-in has a window of its own (ADR 009), which its first request opens.
 * The server's clock and the page's are one (installServerClock) and move together (moveClocks): where a journey
 * would wait for a window to end, it moves both clocks to its end instead.
 *
 * Whether a lookup is held or refused depends on how close to the reset it reaches the BFF. Neither test
 * counts on how fast the machine is: each reads the meter (the whole seconds left, as the page shows them),
 * and every moment it aims at is seconds wide: a refused search is sent with over 20 s of the window left
 * (the hold is 10), a held one with 4 to 7 s left, and what follows the hold has a whole 30 s window to be
 * read in. The window is spent in a second or two, through the API; a run that still spent it too late to
 * leave the time it needs spends the next one.
 */

const meter = (page: Page) => page.getByText(/\d+ of 4 lookups left/);

// Addresses that exist nowhere: each costs a lookup (a not-found answer is never cached).
let n = 0;
const nowhere = () => `${91000 + n++} Nowhere Rd, Austin, TX`;

/**
 * Spends what is left of the window, then reloads the page, whose meter then shows it spent (the session's
 * answer says so): the lookups go through the BFF's own API with this page's session, as the person's other
 * tab would send them, one after another. Typed into the page, four searches took over 10 s of the 30 s window
 * on a loaded two-worker run, four windows in a row, and the journey never got the moment it aims at; these
 * take a second or two. Until the meter says none are left with `atLeast` s to go, spends the next window.
 */
async function spendWindow(page: Page, atLeast: number) {
  for (let window = 1; ; window++) {
    let left: number | undefined;
    for (let i = 0; i < 8 && left !== 0; i++) {
      const answer = await page.request.get(
        `/api/properties/resolve?address=${encodeURIComponent(nowhere())}`,
        {
          headers: { [CSRF_HEADER.name]: CSRF_HEADER.value },
        },
      );
      expect(answer.status()).toBe(200);
      const { miss, rateLimit } = ResolveMiss.parse(await answer.json());
      expect(miss.code).toBe('not_found');
      left = rateLimit?.remaining;
    }
    expect(left, 'lookups left after eight').toBe(0);
    await page.reload();
    // Spent, or (spent too late) the next window already.
    await expect(meter(page)).toHaveText(/^(0 of 4 lookups left · resets in \d+ s|4 of 4 lookups left)$/);
    const secondsLeft = Number(
      /^0 of 4 .* resets in (\d+) s$/.exec((await meter(page).textContent()) ?? '')?.[1] ?? 0,
    );
    if (secondsLeft >= atLeast) return;
    expect(window, `a window spent with ${atLeast} s of it left`).toBeLessThan(4);
    // Spent too late: the window is moved to its end, and the meter says so without a request.
    await moveClocks(page, (secondsLeft + 1) * 1000);
    await expect(meter(page)).toHaveText(/^4 of 4 lookups left$/);
  }
}

test('hitting the rate limit shows a live countdown, never "not found", then recovers by itself', async ({
  page,
}) => {
  await installServerClock(page);
  await signInWithDemoKey(page);
  // Out of lookups with 20 s or more to go: the search below reaches the BFF (a page load later, 1 s of the
  // meter's rounding aside) with more than its 10 s hold left, so it is refused, not held.
  await spendWindow(page, 20);
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

  // The window ends (both clocks moved past its reset): the page's countdown runs out and it searches again.
  await moveClocks(page, 31_000);
  await expect(
    page.getByRole('heading', { name: '1313 Mockingbird Ln, Saint Louis, MO 63101' }),
  ).toBeVisible();
  await expect(alert).toHaveCount(0);
});

test('a lookup the BFF holds for the rate limit says it is waiting, with a countdown, then runs', async ({
  page,
}) => {
  await installServerClock(page);
  await signInWithDemoKey(page);
  const field = page.getByRole('combobox', { name: 'Address' });
  const notFound = (address: string) => page.getByText(`No property matches “${address}”`);
  await spendWindow(page, 10);

  // Close to the reset (well within the BFF's 10 s hold), search again: the BFF holds the lookup until the
  // reset. Both clocks are moved to 6 s before it: the hold lasts seconds, not a moment.
  const left = Number(/resets in (\d+) s$/.exec((await meter(page).textContent()) ?? '')?.[1]);
  expect(left).toBeGreaterThanOrEqual(10);
  await moveClocks(page, (left - 6) * 1000);
  const held = nowhere();
  await field.fill(held);
  await expect(meter(page)).toHaveText(/^0 of 4 lookups left · resets in [4-7] s$/);
  await field.press('Enter');
  await expect(page.getByText(/^Waiting for the rate limit to reset, [1-7]\ss$/)).toBeVisible();
  await expectNoAxeViolations(page, 'a lookup held for the rate limit');
  // The answer, and the new window it opened (30 s long, so a slow check above cannot outlast it).
  await expect(notFound(held)).toBeVisible({ timeout: 15_000 });
  await expect(page.getByText(/Waiting for the rate limit/)).toHaveCount(0);
  await expect(meter(page)).toHaveText(/^3 of 4 lookups left/);
});
