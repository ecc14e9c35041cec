import { join } from 'node:path';
import { expect, test } from '@playwright/test';
import { openDatabase } from '../src/bff/db/database.ts';
import { referenceRecords, signInWithDemoKey } from './support.ts';

/*
 * Work while signed out (issue 29), on the BFF that has no demo keys (playwright.config.ts: in front of the
 * monitoring server's reference, 4 lookups per 2 s): the demo keeps no keys, so this one signs in with a key its
 * reference knows as an ordinary key. Its clock is the system's, so the review waits real rate windows. By the
 * time the journey has signed out (up to 8 s after Start on a loaded machine: the sign-out loads the review
 * list and asks first), at most 4 rows a window have been asked and 4 more are in hand (2 parked for the next
 * window, the rest on their way), so rows of 25 are left that nobody had taken: those go on the kept key. It
 * takes 5 to 6 windows after Start, 10 to 12 s.
 */
const ROWS = 25;
const WINDOW_MS = 2_000;

test.use({ baseURL: process.env.E2E_UNATTENDED_URL });

/** The review's current run as its server's database has it (nobody is signed in to ask the API). */
async function runOnServer(baseURL: string, reviewId: string) {
  const database = await openDatabase({
    dir: join(process.env.PROPLENS_E2E_DB as string, new URL(baseURL).port),
  });
  try {
    const run = await database.db
      .selectFrom('review_runs')
      .select(['run', 'finished_at'])
      .where('review_id', '=', reviewId)
      .orderBy('run', 'desc')
      .executeTakeFirstOrThrow();
    const pending = await database.db
      .selectFrom('review_results')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where('review_id', '=', reviewId)
      .where('run', '=', run.run)
      .where('state', '=', 'pending')
      .executeTakeFirstOrThrow();
    return { finished: run.finished_at !== null, pending: Number(pending.n) };
  } finally {
    await database.close();
  }
}

test('with "Work while I\'m signed out" on, a review started before signing out finishes with nobody signed in, its lookups on record as unattended', async ({
  page,
  baseURL,
}, testInfo) => {
  const records = await referenceRecords(ROWS, 1_000 + testInfo.repeatEachIndex * 1_000);
  const name = `Overnight portfolio #${testInfo.repeatEachIndex + 1}`;
  await signInWithDemoKey(page, 'pi_demo_professional');

  await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Settings' }).click();
  const keep = page.getByRole('switch', { name: "Work while I'm signed out" });
  // Enabled once the account's state has loaded (off until then).
  await expect(keep).toBeEnabled();
  await expect(keep).toHaveAttribute('aria-checked', 'false');
  await keep.click();
  await expect(keep).toHaveAttribute('aria-checked', 'true');
  await expect(page.getByRole('status').filter({ hasText: /^On since / })).toBeVisible();

  await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Review' }).click();
  await page.getByRole('textbox', { name: 'Addresses' }).fill(records.map((r) => r.address).join('\n'));
  await page.getByRole('textbox', { name: 'Review name' }).fill(name);
  await page.getByRole('button', { name: 'Start review' }).click();
  await expect(page.getByRole('heading', { name })).toBeVisible();
  const reviewUrl = page.url();
  const reviewId = new URL(reviewUrl).pathname.split('/').pop() as string;

  // The account's only session ends: nobody of it is signed in anywhere. Rows nobody had asked yet are left. With
  // the key kept, nothing pauses, so the sign-out asks nothing.
  await page.getByRole('button', { name: 'Sign out' }).click();
  await expect(page).toHaveURL(/\/sign-in$/);
  const atSignOut = await runOnServer(baseURL as string, reviewId);
  expect(atSignOut.pending, 'rows not yet asked when the last session ended').toBeGreaterThan(0);

  // They are asked with the kept key, and the review finishes, while nobody is signed in.
  await expect
    .poll(async () => (await runOnServer(baseURL as string, reviewId)).finished, {
      message: 'the review finished with nobody signed in',
      timeout: 10 * WINDOW_MS,
      intervals: [250],
    })
    .toBe(true);

  // Signing in again: the review is done, and Activity marks each row asked meanwhile as unattended.
  await signInWithDemoKey(page, 'pi_demo_professional');
  await page.goto(reviewUrl);
  await expect(page.getByText(`Done: all ${ROWS} addresses have an outcome.`)).toBeVisible();
  await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Activity' }).click();
  const unattended = page
    .getByRole('table', { name: 'Activity' })
    .getByRole('row')
    .filter({ hasText: 'Review row · unattended, on the kept key' });
  await expect(unattended.first()).toBeVisible();
  expect(await unattended.count()).toBeGreaterThanOrEqual(atSignOut.pending);

  // Turned off, the kept key is deleted: the account's reviews wait for a sign-in again. Signed out, nobody of
  // the account is left signed in (a session left live would lend its key to the next run's review).
  await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Settings' }).click();
  await keep.click();
  await expect(keep).toHaveAttribute('aria-checked', 'false');
  await page.getByRole('button', { name: 'Sign out' }).click();
  await expect(page).toHaveURL(/\/sign-in$/);
});
