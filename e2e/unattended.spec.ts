import { join } from 'node:path';
import { expect, test } from '@playwright/test';
import { openDatabase } from '../src/bff/db/database.ts';
import { referenceRecords, signInWithDemoKey } from './support.ts';

/*
 * Work while signed out (issue 29), on the BFF that has no demo keys (playwright.config.ts: the port above the
 * monitoring server, in front of its reference, 3 lookups per 5 s): the demo keeps no keys, so this one signs in
 * with a key its reference knows as an ordinary key. The BFF's clock is the system's, so the review waits real
 * rate windows: seven rows need two windows after the one they start in, at least one whole window (5 s) after
 * Start, which is when the journey has signed out.
 */
const ROWS = 7;
const WINDOW_MS = 5_000;

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
    const answered = await database.db
      .selectFrom('review_results')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where('review_id', '=', reviewId)
      .where('run', '=', run.run)
      .executeTakeFirstOrThrow();
    return { finished: run.finished_at !== null, answered: Number(answered.n) };
  } finally {
    await database.close();
  }
}

test('with "Work while I\'m signed out" on, a review started before signing out finishes with nobody signed in, its lookups on record as unattended', async ({
  page,
  baseURL,
}, testInfo) => {
  const records = await referenceRecords(ROWS, 15_000 + testInfo.repeatEachIndex * 300);
  const name = `Overnight portfolio #${testInfo.repeatEachIndex + 1}`;
  await signInWithDemoKey(page, 'pi_demo_professional');

  await page.goto('/settings');
  const keep = page.getByRole('switch', { name: "Work while I'm signed out" });
  await expect(keep).toHaveAttribute('aria-checked', 'false');
  await keep.click();
  await expect(keep).toHaveAttribute('aria-checked', 'true');
  await expect(page.getByRole('status').filter({ hasText: /^On since / })).toBeVisible();

  await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Review' }).click();
  await page.getByRole('textbox', { name: 'Addresses' }).fill(records.map((r) => r.address).join('\n'));
  await page.getByRole('textbox', { name: 'Review name' }).fill(name);
  const started = Date.now();
  await page.getByRole('button', { name: 'Start review' }).click();
  await expect(page.getByRole('heading', { name })).toBeVisible();
  const reviewUrl = page.url();
  const reviewId = new URL(reviewUrl).pathname.split('/').pop() as string;

  // The only session of the account ends: nobody of it is signed in anywhere.
  await page.getByRole('button', { name: 'Sign out' }).click();
  await page.getByRole('button', { name: 'Sign out now' }).click();
  await expect(page).toHaveURL(/\/sign-in$/);
  const atSignOut = await runOnServer(baseURL as string, reviewId);
  expect(
    atSignOut.finished,
    `signed out ${Date.now() - started} ms after Start, ${atSignOut.answered} of ${ROWS} rows answered: still running`,
  ).toBe(false);

  // It goes on with the kept key, and finishes, while nobody is signed in.
  await expect
    .poll(async () => (await runOnServer(baseURL as string, reviewId)).finished, {
      message: 'the review finished with nobody signed in',
      timeout: 4 * WINDOW_MS,
      intervals: [250],
    })
    .toBe(true);

  // Signing in again: the review is done, and Activity says which lookups ran on the kept key.
  await signInWithDemoKey(page, 'pi_demo_professional');
  await page.goto(reviewUrl);
  await expect(page.getByText(`Done: all ${ROWS} addresses have an outcome.`)).toBeVisible();
  await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Activity' }).click();
  const unattended = page
    .getByRole('table', { name: 'Activity' })
    .getByRole('row')
    .filter({ hasText: 'Review row · unattended, on the kept key' });
  await expect(unattended.first()).toBeVisible();
  expect(await unattended.count()).toBeGreaterThanOrEqual(ROWS - atSignOut.answered - 3);
});
