import { expect, test } from '@playwright/test';
import { expectNoAxeViolations, signInWithDemoKey } from './support.ts';

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
  await signInWithDemoKey(page);
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
