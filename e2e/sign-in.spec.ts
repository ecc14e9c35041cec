import { expect, type Page, test } from '@playwright/test';
import { expectNoAxeViolations, signInThroughKeyScreen } from './support.ts';

test('the key screen explains itself and has no accessibility violations', async ({ page }) => {
  await page.goto('/');
  await expect(page).toHaveURL(/\/sign-in/);
  await expect(page.getByRole('heading', { name: 'Sign in to PropLens' })).toBeVisible();
  await expect(page.getByLabel('API key')).toHaveAttribute('type', 'password');
  await expect(page.getByText('Developer → API keys')).toBeVisible();
  await expectNoAxeViolations(page, 'the key screen');
});

test('the demo key signs in; reload keeps the session; sign out returns to the key screen', async ({
  page,
}) => {
  await signInThroughKeyScreen(page);
  await expect(page.getByText('Harbor & Vale Realty')).toBeVisible();
  await expect(page.getByText('Professional plan')).toBeVisible();
  await expectNoAxeViolations(page, 'the signed-in home');

  // Nothing key-like is left in the browser.
  const stored = await page.evaluate(
    () => JSON.stringify({ ...localStorage, ...sessionStorage }) + document.cookie,
  );
  expect(stored).not.toContain('pi_demo');

  await page.reload();
  await expect(page.getByText('Harbor & Vale Realty')).toBeVisible();

  await page.getByRole('button', { name: 'Sign out' }).click();
  await expect(page.getByLabel('API key')).toBeVisible();
  await page.reload();
  await expect(page).toHaveURL(/\/sign-in/);
});

test('a starter-plan key is told which plans have API access and how to reach sales', async ({ page }) => {
  await page.goto('/sign-in');
  await page.getByLabel('API key').fill('pi_demo_starter');
  await page.getByRole('button', { name: 'Sign in' }).click();
  const alert = page.getByRole('alert');
  await expect(alert).toContainText('This account’s plan has no API access');
  await expect(alert).toContainText('professional or enterprise');
  await expect(alert).toContainText('sales@');
  await expectNoAxeViolations(page, 'the key screen with a plan error');
});

test('a wrong key is told it was not accepted and what to check', async ({ page }) => {
  await page.goto('/sign-in');
  await page.getByLabel('API key').fill('pi_this_is_not_a_key');
  await page.getByRole('button', { name: 'Sign in' }).click();
  await expect(page.getByRole('alert')).toContainText('That API key was not accepted');
  await expect(page.getByLabel('API key')).toBeFocused();
});

test('the key field has the cursor on arrival, and the plan refusal links to sales', async ({ page }) => {
  await page.goto('/sign-in');
  const field = page.getByLabel('API key');
  await expect(field).toBeFocused();
  await field.fill('pi_demo_starter');
  await field.press('Enter');
  const sales = page.getByRole('alert').getByRole('link', { name: /^sales@/ });
  await expect(sales).toHaveAttribute('href', /^mailto:sales@/);
});

test('"Try the demo" signs in with one click, fetching the search screen while the key is checked', async ({
  page,
}) => {
  await page.goto('/sign-in');
  const events: string[] = [];
  page.on('request', (r) => {
    if (/\/assets\/search-[^/]+\.js$/.test(r.url())) events.push('search chunk requested');
  });
  page.on('response', (r) => {
    if (r.url().endsWith('/api/session') && r.request().method() === 'POST') events.push('signed in');
  });
  await expect(page.getByRole('button', { name: 'Try the demo' })).toBeVisible();
  await expectNoAxeViolations(page, 'the key screen with demo keys');
  await page.getByRole('button', { name: 'Try the demo' }).click();
  await expect(page.getByRole('heading', { name: 'Find a property' })).toBeVisible();
  await expect(page.getByText('Harbor & Vale Realty')).toBeVisible();
  expect(events).toEqual(['search chunk requested', 'signed in']);
});

test('a page that does not exist has the header and a way back, signed in or not', async ({ page }) => {
  await page.goto('/no/such/page');
  await expect(page.getByRole('heading', { name: 'Page not found' })).toBeVisible();
  await expect(page.getByRole('banner').getByRole('link', { name: 'PropLens home' })).toBeVisible();
  await expectNoAxeViolations(page, 'the 404 page, signed out');

  await signInThroughKeyScreen(page);
  await page.getByRole('link', { name: 'PropLens home' }).click();
  // An in-app move to a missing page (as a stale link in the app would make), so there is a page to go back to.
  await page.evaluate(() => {
    window.history.pushState({ usr: null, key: 'e2e404', idx: 1 }, '', '/search/nothing-here');
    window.dispatchEvent(new PopStateEvent('popstate', { state: window.history.state }));
  });
  await expect(page.getByRole('heading', { name: 'Page not found' })).toBeVisible();
  await expect(page.getByRole('banner')).toContainText('Harbor & Vale Realty');
  await expect(page.getByRole('button', { name: 'Sign out' })).toBeVisible();
  await expectNoAxeViolations(page, 'the 404 page, signed in');
  await page.getByRole('button', { name: 'Back to the previous page' }).click();
  await expect(page.getByRole('heading', { name: 'Find a property' })).toBeVisible();
  await page.goto('/nope');
  await page.getByRole('link', { name: 'Go to search' }).click();
  await expect(page.getByRole('heading', { name: 'Find a property' })).toBeVisible();
});

/** Sums layout shifts not caused by input (the CLS of the page's life so far). */
async function watchLayoutShifts(page: Page) {
  await page.addInitScript(() => {
    const w = window as unknown as { __cls: number; __shifts: string[] };
    w.__cls = 0;
    w.__shifts = [];
    new PerformanceObserver((list) => {
      for (const e of list.getEntries() as (PerformanceEntry & {
        value: number;
        hadRecentInput: boolean;
        sources?: { node?: Node }[];
      })[]) {
        if (e.hadRecentInput) continue;
        w.__cls += e.value;
        w.__shifts.push(
          `${e.value.toFixed(4)} ${(e.sources ?? []).map((s) => (s.node as Element | undefined)?.outerHTML?.slice(0, 80)).join(' | ')}`,
        );
      }
    }).observe({ type: 'layout-shift', buffered: true });
  });
}
const layoutShifts = (page: Page) =>
  page.evaluate(() => (window as unknown as { __shifts: string[] }).__shifts);

for (const viewport of [
  { name: 'desktop', width: 1280, height: 800 },
  { name: 'phone', width: 390, height: 844 },
]) {
  test(`cold loads on ${viewport.name} paint the page's frame first and shift nothing (CLS 0)`, async ({
    page,
  }) => {
    await page.setViewportSize(viewport);
    // Before the script runs, the first paint is already the header, not a blank page.
    let headerBeforeScript = false;
    await page.route(/\/assets\/index-[^/]+\.js$/, async (route) => {
      headerBeforeScript = await page
        .getByRole('link', { name: 'PropLens home' })
        .waitFor({ timeout: 5000 })
        .then(
          () => true,
          () => false,
        );
      await route.continue();
    });
    await watchLayoutShifts(page);
    await page.goto('/sign-in');
    await expect(page.getByLabel('API key')).toBeFocused();
    expect(headerBeforeScript).toBe(true);
    await page.waitForLoadState('networkidle');
    expect(await layoutShifts(page), 'layout shifts on the key screen').toEqual([]);
    await page.unroute(/\/assets\/index-[^/]+\.js$/);

    await page.getByRole('button', { name: 'Try the demo' }).click();
    await expect(page.getByRole('heading', { name: 'Find a property' })).toBeVisible();
    // A cold load of a record (a reload: session check, search screen, lookup).
    await page.goto(`/search?address=${encodeURIComponent('233 S Wacker Dr, Chicago IL')}`);
    await expect(page.getByRole('heading', { name: '233 S Wacker Dr, Chicago, IL 60606' })).toBeVisible();
    await page.waitForLoadState('networkidle');
    expect(await layoutShifts(page), 'layout shifts on a record').toEqual([]);
  });
}
