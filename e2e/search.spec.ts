import { expect, type Page, test } from '@playwright/test';
import { expectNoAxeViolations, signInWithDemoKey } from './support.ts';

const CONGRESS = '1100 Congress Ave, Austin, TX 78701';

function countApiRequests(page: Page) {
  const seen: string[] = [];
  page.on('request', (r) => {
    const url = new URL(r.url());
    if (url.pathname.startsWith('/api/properties/')) seen.push(`${url.pathname}${url.search}`);
  });
  return seen;
}

test('a messy spelling resolves to a record a reviewer can judge at a glance', async ({ page }) => {
  await signInWithDemoKey(page);
  await expect(page).toHaveURL(/\/search$/);
  const field = page.getByRole('combobox', { name: 'Address' });
  await expect(field).toBeFocused();
  await expectNoAxeViolations(page, 'the empty search screen');

  await field.fill('1100 congress avenue,   austin TEXAS');
  await field.press('Enter');
  await expect(page.getByRole('heading', { name: CONGRESS })).toBeVisible();
  await expect(page).toHaveURL(/address=1100\+congress\+avenue/);
  const badges = page.getByRole('list', { name: 'Reliability' });
  await expect(badges.getByText('High confidence')).toBeVisible();
  await expect(badges.getByText('Travis Central Appraisal District')).toBeVisible();
  await expect(badges.getByText(/^Verified .* ago|^Verified (today|yesterday)/)).toBeVisible();
  await expect(page.getByTestId('reliability-summary')).toHaveText(
    /^High confidence: from Travis Central Appraisal District, verified .+\.$/,
  );
  await expect(page.getByRole('meter', { name: 'Lookups left' })).toBeAttached();
  await expectNoAxeViolations(page, 'a record');

  // The URL is the state: a shared link shows the same record.
  const shared = await page.context().newPage();
  await shared.goto(page.url());
  await expect(shared.getByRole('heading', { name: CONGRESS })).toBeVisible();
  await shared.close();
});

test('a repeated search is instant and sends no request', async ({ page }) => {
  await signInWithDemoKey(page);
  const requests = countApiRequests(page);
  const field = page.getByRole('combobox', { name: 'Address' });
  await field.fill('233 S Wacker Dr, Chicago IL');
  await field.press('Enter');
  await expect(page.getByRole('heading', { name: '233 S Wacker Dr, Chicago, IL 60606' })).toBeVisible();
  await field.fill('1100 Congress Ave, Austin, TX');
  await field.press('Enter');
  await expect(page.getByRole('heading', { name: CONGRESS })).toBeVisible();
  const before = requests.filter((r) => r.startsWith('/api/properties/resolve')).length;
  expect(before).toBe(2);

  await field.fill('233 S Wacker Dr, Chicago IL');
  await field.press('Enter');
  await expect(page.getByRole('heading', { name: '233 S Wacker Dr, Chicago, IL 60606' })).toBeVisible();
  expect(requests.filter((r) => r.startsWith('/api/properties/resolve')).length).toBe(before);
});

test('suggestions can be chosen from the keyboard', async ({ page }) => {
  await signInWithDemoKey(page);
  const field = page.getByRole('combobox', { name: 'Address' });
  await field.pressSequentially('1100 congress', { delay: 20 });
  const option = page.getByRole('option', { name: CONGRESS });
  await expect(option).toBeVisible();
  await expectNoAxeViolations(page, 'the open suggestion list');
  await field.press('ArrowDown');
  await expect(field).toHaveAttribute('aria-activedescendant', /.+/);
  await field.press('Enter');
  await expect(page.getByRole('heading', { name: CONGRESS })).toBeVisible();
});

test('ambiguous and unknown addresses say what to do, and sign-out ends it', async ({ page }) => {
  await signInWithDemoKey(page);
  await page.goto('/search?address=100%20Main%20St');
  await expect(page.getByText('More than one property matches')).toBeVisible();
  const choices = page.getByRole('list', { name: /^Matching properties in / }).getByRole('link');
  expect(await choices.count()).toBeGreaterThan(1);
  await expectNoAxeViolations(page, 'an ambiguous address');
  const first = (await choices.first().textContent()) ?? '';
  await choices.first().click();
  await expect(page.getByRole('heading', { name: first })).toBeVisible();

  await page.goto('/search?address=99999%20Congress%20Ave%2C%20Austin%2C%20TX');
  await expect(page.getByText('No property matches “99999 Congress Ave, Austin, TX”')).toBeVisible();
  await expect(page.getByRole('list', { name: 'Did you mean' })).toBeVisible();
  await expectNoAxeViolations(page, 'an unknown address');

  await page.getByRole('button', { name: 'Sign out' }).click();
  await expect(page.getByLabel('API key')).toBeVisible();
  await page.goto('/search?address=100%20Main%20St');
  await expect(page).toHaveURL(/\/sign-in\?next=/);
});

test('an address that is not found, ambiguous or a unit unknown logs no error in the browser console', async ({
  page,
}) => {
  // Chromium logs every 4xx a page fetches ("Failed to load resource: ... 404"): an expected answer must not
  // be one, or the console of anyone investigating a real fault fills with noise.
  const errors: string[] = [];
  page.on('console', (m) => {
    if (m.type() === 'error') errors.push(m.text());
  });
  await signInWithDemoKey(page);
  await page.goto(`/search?address=${encodeURIComponent('999 Nowhere St, Austin, TX 78701')}`);
  await expect(page.getByText('No property matches “999 Nowhere St, Austin, TX 78701”')).toBeVisible();
  await page.goto('/search?address=100%20Main%20St');
  await expect(page.getByText('More than one property matches')).toBeVisible();
  await page.goto(`/search?address=${encodeURIComponent('615 Bourbon St Apt 9, New Orleans, LA 70116')}`);
  await expect(page.getByText('The building is known, but not that unit')).toBeVisible();
  // Typed as well as opened from a link.
  const field = page.getByRole('combobox', { name: 'Address' });
  await field.fill('12 Nowhere Rd, Austin, TX');
  await field.press('Enter');
  await expect(page.getByText('No property matches “12 Nowhere Rd, Austin, TX”')).toBeVisible();
  expect(errors).toEqual([]);
});

test('the layout holds on a 360 px phone', async ({ page }) => {
  await page.setViewportSize({ width: 360, height: 740 });
  await signInWithDemoKey(page);
  await page.goto(`/search?address=${encodeURIComponent(CONGRESS)}`);
  await expect(page.getByRole('heading', { name: CONGRESS })).toBeVisible();
  const overflow = await page.evaluate(
    () => document.documentElement.scrollWidth - document.documentElement.clientWidth,
  );
  expect(overflow).toBeLessThanOrEqual(0);
  await expectNoAxeViolations(page, 'a record on a phone');
});

test('a unit that does not exist offers its building', async ({ page }) => {
  await signInWithDemoKey(page);
  await page.goto(`/search?address=${encodeURIComponent('615 Bourbon St Apt 9, New Orleans, LA 70116')}`);
  await expect(page.getByText('The building is known, but not that unit')).toBeVisible();
  await expect(page.getByRole('link', { name: '615 Bourbon St, New Orleans, LA 70116' })).toBeVisible();
  await expectNoAxeViolations(page, 'a unit that does not exist');
});

test('an intersection or a landmark is told what PropLens looks up, at no lookup, and the example runs', async ({
  page,
}) => {
  await signInWithDemoKey(page);
  const requests = countApiRequests(page);
  for (const text of ['Congress Ave & 6th St', 'Texas State Capitol']) {
    await page.goto(`/search?address=${encodeURIComponent(text)}`);
    await expect(page.getByText(`PropLens looks up street addresses; try ${CONGRESS}`)).toBeVisible();
  }
  expect(requests.filter((r) => r.startsWith('/api/properties/resolve'))).toEqual([]);
  await expectNoAxeViolations(page, 'a landmark answered with what PropLens looks up');
  await page.getByRole('link', { name: CONGRESS }).click();
  await expect(page.getByRole('heading', { name: CONGRESS })).toBeVisible();
});

test('offline: says so, and runs the search when the connection is back', async ({ page, context }) => {
  await signInWithDemoKey(page);
  await context.setOffline(true);
  const field = page.getByRole('combobox', { name: 'Address' });
  await field.fill('233 S Wacker Dr, Chicago IL');
  await field.press('Enter');
  await expect(page.getByText('You are offline')).toBeVisible();
  await expectNoAxeViolations(page, 'the offline state');
  await context.setOffline(false);
  await expect(page.getByRole('heading', { name: '233 S Wacker Dr, Chicago, IL 60606' })).toBeVisible();
});

test('upstream unavailable: explains, and retries on request', async ({ page }) => {
  await signInWithDemoKey(page);
  // The BFF's answer when the provider is down, as the browser would receive it.
  await page.route('**/api/properties/resolve?**', (route) =>
    route.fulfill({
      status: 502,
      contentType: 'application/json',
      body: JSON.stringify({
        error: { code: 'upstream_unavailable', message: 'The property service is having trouble.' },
      }),
    }),
  );
  await page.goto(`/search?address=${encodeURIComponent('742 Evergreen Ter, Springfield, OR')}`);
  await expect(page.getByText('The property service is not answering')).toBeVisible();
  await expectNoAxeViolations(page, 'the upstream-unavailable state');
  await page.unroute('**/api/properties/resolve?**');
  await page.getByRole('button', { name: 'Try again' }).click();
  await expect(page.getByRole('heading', { name: '742 Evergreen Ter, Springfield, OR 97477' })).toBeVisible();
});

test.describe('dark mode', () => {
  test.use({ colorScheme: 'dark' });

  test('the key screen and a record have no accessibility violations in the dark theme', async ({ page }) => {
    await page.goto('/sign-in');
    await expectNoAxeViolations(page, 'the key screen, dark');
    await signInWithDemoKey(page);
    await page.goto(`/search?address=${encodeURIComponent('742 Evergreen Ter, Springfield, OR')}`);
    await expect(page.getByText('Low confidence', { exact: true })).toBeVisible();
    await expectNoAxeViolations(page, 'a low-confidence, stale record, dark');
    await page.goto('/search?address=100%20Main%20St');
    await expect(page.getByText('More than one property matches')).toBeVisible();
    await expectNoAxeViolations(page, 'an ambiguous address, dark');
  });
});
