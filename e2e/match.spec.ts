import { expect, type Page, test } from '@playwright/test';
import { expectNoAxeViolations, signInWithDemoKey } from './support.ts';

const CONGRESS = '1100 Congress Ave, Austin, TX 78701';
const searchFor = (address: string) => `/search?${new URLSearchParams({ address })}`;

/**
 * With SHOTS_DIR set, each screen is photographed light and dark, on a 390 px phone and on a desktop, for a
 * person to look at; without it, nothing is written.
 */
async function shoot(page: Page, name: string) {
  const dir = process.env.SHOTS_DIR;
  if (!dir) return;
  const viewport = page.viewportSize();
  for (const [label, size] of [
    ['phone', { width: 390, height: 844 }],
    ['desktop', { width: 1280, height: 900 }],
  ] as const) {
    for (const colorScheme of ['light', 'dark'] as const) {
      await page.setViewportSize(size);
      await page.emulateMedia({ colorScheme });
      await page.screenshot({ path: `${dir}/${name}-${label}-${colorScheme}.png`, fullPage: true });
    }
  }
  await page.emulateMedia({ colorScheme: 'light' });
  if (viewport) await page.setViewportSize(viewport);
}

/** Calls the BFF as the page does (same cookie, the CSRF header). */
async function api<T>(page: Page, path: string): Promise<T> {
  const res = await page.request.get(path, { headers: { 'X-Requested-With': 'proplens' } });
  expect(res.ok(), `${path} answered ${res.status()}`).toBe(true);
  return (await res.json()) as T;
}

test('a typo is corrected in the open: the match is explained, and the field shows the record’s address', async ({
  page,
}) => {
  await signInWithDemoKey(page);
  const field = page.getByRole('combobox', { name: 'Address' });
  await field.fill('1100 Congres Ave, Austn, TX');
  await field.press('Enter');
  const notice = page.getByRole('region', { name: 'How the address was matched' });
  await expect(notice).toContainText('corrected: Congres → Congress, Austn → Austin; added: ZIP 78701');
  await expect(notice).toContainText('You typed: “1100 Congres Ave, Austn, TX”');
  await expect(page.getByRole('heading', { name: CONGRESS })).toBeVisible();
  await expect(field).toHaveValue(CONGRESS);
  await expect(page).toHaveTitle(`${CONGRESS} · PropLens`);
  await expect(page).toHaveURL(/address=1100\+Congres\+Ave/);
  await expectNoAxeViolations(page, 'a corrected match');
  await shoot(page, 'match-typo');

  // An exact spelling says nothing.
  await page.goto(searchFor('1100 CONGRESS AVENUE, Austin, Texas 78701'));
  await expect(page.getByRole('heading', { name: CONGRESS })).toBeVisible();
  await expect(notice).toHaveCount(0);
});

test('a ZIP code alone lists its properties, page by page, each openable, with a way to review the area', async ({
  page,
}) => {
  await signInWithDemoKey(page);
  // A ZIP of the demo data with more than one page of properties.
  const { items } = await api<{ items: { attributes: { zip?: string } }[] }>(
    page,
    '/api/properties/search?q=100%20Main%20St',
  );
  let zip = '';
  for (const candidate of new Set(items.map((p) => p.attributes.zip ?? ''))) {
    const page1 = await api<{ nextCursor?: string }>(page, `/api/properties/search?q=${candidate}`);
    if (/^\d{5}$/.test(candidate) && page1.nextCursor) {
      zip = candidate;
      break;
    }
  }
  expect(zip, 'a ZIP with more than one page').toMatch(/^\d{5}$/);

  await page.goto(searchFor(zip));
  await expect(page.getByRole('heading', { name: `Properties in ZIP code ${zip}` })).toBeVisible();
  const list = page.getByRole('list', { name: `Properties in ZIP code ${zip}` });
  const links = list.getByRole('link');
  await expect(links.first()).toBeVisible();
  const first = await links.count();
  expect(first).toBeGreaterThan(1);
  await expect(page.getByRole('link', { name: 'Review this area' })).toHaveAttribute(
    'href',
    `/review?area=${zip}`,
  );
  await expectNoAxeViolations(page, 'a ZIP code listing');
  await shoot(page, 'zip-listing');

  await page.getByRole('button', { name: 'Show more' }).click();
  await expect.poll(() => links.count()).toBeGreaterThan(first);
  // The keyboard carries on from the first property the page added.
  await expect(links.nth(first)).toBeFocused();
  const address = (await links.nth(first).textContent()) ?? '';
  await links.nth(first).click();
  await expect(page.getByRole('heading', { name: address })).toBeVisible();
});

test('an ambiguous address: how many in all, grouped by state, paged with Show more, narrowed by state', async ({
  page,
}) => {
  await signInWithDemoKey(page);
  await page.goto(searchFor('100 Main St'));
  await expect(page.getByText('More than one property matches')).toBeVisible();
  const status = page.getByText(/^Showing \d+ of \d+, by state and city\.$/);
  await expect(status).toBeVisible();
  const [, shown, total] = /Showing (\d+) of (\d+)/.exec((await status.textContent()) ?? '') ?? [];
  expect(Number(total)).toBeGreaterThan(Number(shown));
  const groups = page.getByRole('list', { name: /^Matching properties in / });
  expect(await groups.count()).toBeGreaterThan(1);
  await expectNoAxeViolations(page, 'an ambiguous address with many candidates');
  await shoot(page, 'ambiguous');

  await page.getByRole('button', { name: 'Show more' }).click();
  await expect
    .poll(async () => Number(/Showing (\d+)|All (\d+)/.exec((await status.textContent()) ?? '')?.[1]))
    .toBeGreaterThan(Number(shown));

  // Narrow to the first state listed: a more precise search, in the URL.
  const state = ((await groups.first().getAttribute('aria-label')) ?? '').replace(
    'Matching properties in ',
    '',
  );
  const narrow = page.getByRole('form', { name: 'Narrow down' });
  await narrow.getByLabel('State').selectOption({ label: state });
  await narrow.getByRole('button', { name: 'Narrow' }).click();
  await expect(page).toHaveURL(/address=100\+Main\+St%2C\+[A-Z]{2}$/);
  // Either the one property in that state, or candidates all in it. (The lists of the search before may still be
  // on the page for a moment, the narrowed state's among them: wait for the new answer, not for any list.)
  const narrowed = page.getByRole('list', { name: /^Matching properties in / });
  const article = page.getByRole('article');
  await expect
    .poll(async () => (await article.count()) > 0 || (await narrowed.count()) === 1, {
      message: 'the narrowed search answered: one property, or the candidates of one state',
    })
    .toBe(true);
  if ((await article.count()) === 0) {
    await expect(narrowed).toHaveCount(1);
    await expect(narrowed).toHaveAccessibleName(`Matching properties in ${state}`);
  }
});

test('the demo tour walks through the showcase searches', async ({ page }) => {
  await signInWithDemoKey(page);
  const tour = page.getByRole('region', { name: 'Demo tour' });
  await expect(tour.getByRole('listitem')).toHaveCount(9);
  await expectNoAxeViolations(page, 'the search screen with the demo tour');
  await shoot(page, 'demo-tour');

  await tour.getByRole('link', { name: 'A typo' }).click();
  await expect(page.getByRole('region', { name: 'How the address was matched' })).toBeVisible();
  await expect(tour).toContainText('Demo tour: stop 4 of 9, a typo');
  await tour.getByRole('link', { name: 'Next: ambiguous →' }).click();
  await expect(page.getByText('More than one property matches')).toBeVisible();
  await expect(tour).toContainText('stop 5 of 9');
  await expectNoAxeViolations(page, 'the demo tour next to a result');
  await shoot(page, 'demo-tour-folded');
});

test('Copy ID copies an ID the search then finds', async ({ page, context }) => {
  await context.grantPermissions(['clipboard-read', 'clipboard-write']);
  await signInWithDemoKey(page);
  await page.goto(searchFor('233 S Wacker Dr, Chicago IL'));
  const heading = page.getByRole('heading', { level: 2 });
  await expect(heading).toBeVisible();
  const address = (await heading.textContent()) ?? '';
  await page.getByRole('button', { name: 'Copy ID' }).click();
  await expect(page.getByRole('status').filter({ hasText: 'Copied' })).toBeVisible();
  const id = await page.evaluate(() => navigator.clipboard.readText());
  expect(id).toMatch(/\S/);

  const field = page.getByRole('combobox', { name: 'Address' });
  await field.fill(id);
  await field.press('Enter');
  await expect(page.getByRole('heading', { name: address })).toBeVisible();
  await expect(page.getByRole('region', { name: 'How the address was matched' })).toHaveCount(0);
});

test('a printed record is evidence: no controls, and who retrieved it when', async ({ page }) => {
  await signInWithDemoKey(page);
  await page.goto(searchFor('1100 Congres Ave, Austn, TX'));
  await expect(page.getByRole('heading', { name: CONGRESS })).toBeVisible();
  await page.emulateMedia({ media: 'print' });
  await expect(page.getByRole('banner')).toBeHidden();
  await expect(page.getByRole('search', { name: 'Property search' })).toBeHidden();
  await expect(page.getByRole('button', { name: 'Copy ID' })).toBeHidden();
  await expect(page.getByRole('button', { name: 'Sign out' })).toBeHidden();
  await expect(page.getByRole('heading', { name: 'Find a property' })).toBeHidden();
  await expect(page.getByRole('region', { name: 'How the address was matched' })).toBeVisible();
  await expect(page.getByText(/Retrieved at .+ on .+ by .+\./)).toBeVisible();
  if (process.env.SHOTS_DIR)
    await page.screenshot({ path: `${process.env.SHOTS_DIR}/record-print.png`, fullPage: true });
  await page.emulateMedia({ media: 'screen' });
  await expect(page.getByRole('button', { name: 'Copy ID' })).toBeVisible();
});
