import AxeBuilder from '@axe-core/playwright';
import { expect, type Page } from '@playwright/test';

/** Fails with the list of violations, so a report says what to fix. */
export async function expectNoAxeViolations(page: Page, context: string) {
  const results = await new AxeBuilder({ page }).analyze();
  const summary = results.violations.map(
    (v) => `${v.id}: ${v.help} (${v.nodes.map((n) => n.target.join(' ')).join(', ')})`,
  );
  expect(summary, `axe violations on ${context}`).toEqual([]);
}

export async function signInWithDemoKey(page: Page) {
  await page.goto('/');
  await page.getByRole('button', { name: 'Use demo key' }).click();
  await page.getByRole('button', { name: 'Sign in' }).click();
  await expect(page.getByRole('button', { name: 'Sign out' })).toBeVisible();
  // The search screen loads lazily: wait for what the person actually sees.
  await expect(page.getByRole('heading', { name: 'Find a property' })).toBeVisible();
}
