import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { expect, type Page, test } from '@playwright/test';
import Papa from 'papaparse';
import { openDatabase } from '../src/bff/db/database.ts';
import type { StoredAnswer } from '../src/bff/reviews/look-up-row.ts';
import { seedReview } from '../src/bff/test-support/seed-review.ts';
import type { Property } from '../src/contract/index.ts';
import { signInWithDemoKey } from './support.ts';

/*
 * A 5,000-row review as a reviewer meets it: opened from the list, scrolled to its last row, filtered, exported
 * in both formats. The review is written straight into the server's database as the worker would have left it
 * (5,000 lookups at any pace would be most of this journey's time, and the journey is about the page).
 */

const TOTAL = 5_000;
const NAME = 'Loan tape 5,000';
const n = (x: number) => x.toLocaleString('en-US');

/** Row i: matched, but every tenth not found (500 of them). */
function answer(i: number, input: string): StoredAnswer {
  const retrievedAt = '2026-11-01T10:00:00.000Z';
  if (i % 10 === 9)
    return {
      outcome: 'not_found',
      error: { code: 'not_found', message: 'No property matches.' },
      cached: false,
      retrievedAt,
    };
  const property: Property = {
    id: `pi_${String(i).padStart(8, '0')}`,
    address: input.toUpperCase(),
    source: 'Sangamon County Assessor',
    sourceKind: 'assessor',
    confidence: i % 3 === 0 ? 'medium' : 'high',
    lastVerified: '2026-03-02',
    attributes: { city: 'Springfield', state: 'IL', zip: '62701', yearBuilt: 1950 + (i % 70) },
  };
  return { outcome: 'matched', property, match: null, cached: false, retrievedAt };
}

/** Writes the finished review into the database of the server this project's pages use. */
async function seedLargeReview(page: Page, baseURL: string): Promise<void> {
  const session = await page.request.get('/api/session', { headers: { 'X-Requested-With': 'proplens' } });
  const { accountId } = (await session.json()) as { accountId: string };
  const dir = join(process.env.PROPLENS_E2E_DB as string, new URL(baseURL).port);
  const database = await openDatabase({ dir });
  try {
    await seedReview(database, {
      accountId,
      name: NAME,
      columns: ['loan_id', 'address'],
      runs: 1,
      total: TOTAL,
      row: (i) => {
        const input = `${i + 1} Large St, Springfield, IL 62701`;
        return {
          address: input,
          cells: [`L-${String(i + 1).padStart(4, '0')}`, input],
          answers: [answer(i, input)],
        };
      },
    });
  } finally {
    await database.close();
  }
}

/** Saves an export from its button; the file's text. */
async function exported(page: Page, button: 'Export CSV' | 'Export JSON'): Promise<string> {
  const [download] = await Promise.all([
    page.waitForEvent('download'),
    page.getByRole('button', { name: button }).click(),
  ]);
  return readFile((await download.path()) as string, 'utf8');
}

test('a 5,000-row review opens, scrolls to its last row, filters, and exports every row', async ({
  page,
  baseURL,
}) => {
  await signInWithDemoKey(page);
  await seedLargeReview(page, baseURL as string);

  await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Review' }).click();
  await page.getByRole('link', { name: NAME }).click();
  await expect(page.getByRole('heading', { name: NAME })).toBeVisible();
  await expect(page.getByTestId('review-status')).toHaveText(
    `Done: all ${n(TOTAL)} addresses have an outcome.`,
  );
  const results = page.getByRole('table', { name: 'Results' });
  await expect(page.getByText(`Showing all ${n(TOTAL)} rows`)).toBeVisible();
  await expect(results).toHaveAttribute('aria-rowcount', String(TOTAL + 1));
  const input = (i: number) =>
    results.getByRole('button', { name: `${i} Large St, Springfield, IL 62701`, exact: true });
  await expect(input(1)).toBeVisible();

  // The wheel, as a reviewer scrolls, until the last row is in view (the table draws only the rows in view).
  await results.hover();
  await expect(async () => {
    await page.mouse.wheel(0, 100_000);
    await expect(input(TOTAL)).toBeVisible({ timeout: 1_000 });
  }).toPass({ timeout: 30_000 });
  await expect(input(1)).toHaveCount(0);

  await page.getByRole('combobox', { name: 'Outcome' }).selectOption('Not found');
  await expect(page.getByText(`Showing ${n(TOTAL / 10)} of ${n(TOTAL)} rows, filtered by`)).toBeVisible();
  await expect(results).toHaveAttribute('aria-rowcount', String(TOTAL / 10 + 1));
  await page.getByRole('searchbox', { name: 'Search results' }).fill('4990 Large');
  await expect(results).toHaveAttribute('aria-rowcount', '2');
  await expect(results.getByRole('row').filter({ hasText: '4990 Large St' })).toContainText('Not found');

  // The export is the whole review, whatever the table is filtered to.
  const csv = Papa.parse<Record<string, string>>(
    (await exported(page, 'Export CSV')).replace(/^\ufeff/, ''),
    {
      header: true,
      skipEmptyLines: true,
    },
  );
  expect(csv.data).toHaveLength(TOTAL);
  expect(csv.meta.fields?.slice(0, 2)).toEqual(['loan_id', 'address']);
  expect(csv.data.at(-1)?.loan_id).toBe(`L-${TOTAL}`);
  expect(csv.data.filter((r) => r.proplens_outcome === 'not_found')).toHaveLength(TOTAL / 10);

  const json = JSON.parse(await exported(page, 'Export JSON')) as { rows: unknown[]; columns: string[] };
  expect(json.rows).toHaveLength(TOTAL);
  expect(json.columns.slice(0, 2)).toEqual(['loan_id', 'address']);
});
