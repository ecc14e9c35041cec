import AxeBuilder from '@axe-core/playwright';
import { expect, type Page } from '@playwright/test';

/**
 * Fails with the list of violations, so a report says what to fix.
 *
 * Legacy mode runs `axe.run` in the page itself. The default mode runs axe in every frame and then opens a
 * blank page, injects axe into it again and merges the frames' results there: the same rules over the same
 * nodes for a page without cross-origin frames (the app has no frames at all), at twice the time, which was
 * a third of the browser tests' run. Compared on the key screen, a record and review results, light and
 * dark: identical violations, passes, incomplete and inapplicable rules, node for node.
 */
export async function expectNoAxeViolations(page: Page, context: string) {
  // A frame would need the default mode again (legacy mode leaves cross-origin frames untested).
  expect(
    page.frames().map((f) => f.url()),
    `frames on ${context}`,
  ).toEqual([page.url()]);
  const results = await new AxeBuilder({ page }).setLegacyMode().analyze();
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

/** The e2e servers' dataset (playwright.config: REFERENCE_RECORDS 20000, the default seed). */
const E2E_RECORDS = 20_000;

/**
 * Records the e2e servers really hold, generated here exactly as the reference generates its dataset, so a
 * journey can use addresses that resolve. `from` spreads journeys over different records (and the BFF's
 * cache): each call gets fresh ones.
 */
export async function referenceRecords(count: number, from: number) {
  const { generateProperties } = await import('../src/reference/dataset/generate.ts');
  const { readReferenceConfig } = await import('../src/reference/config.ts');
  const { seed } = readReferenceConfig({});
  const out: { address: string; street: string; city: string; state: string; zip: string }[] = [];
  let i = 0;
  for (const p of generateProperties({ count: E2E_RECORDS, seed })) {
    // Every 37th record from `from` on: different streets and towns, no run of one building's units.
    if (i++ < from || (i - from) % 37 !== 0) continue;
    const street = `${p.street_number} ${p.street_name}${p.unit ? ` Apt ${p.unit}` : ''}`;
    out.push({ address: p.address, street, city: p.city, state: p.state, zip: p.zip });
    if (out.length === count) break;
  }
  return out;
}
