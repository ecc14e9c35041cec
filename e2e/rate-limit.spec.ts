import { expect, test } from '@playwright/test';
import { expectNoAxeViolations, signInWithDemoKey } from './support.ts';

// Runs against its own server: 4 upstream requests per 12 s, and the BFF waits at most 2 s.
test('hitting the rate limit shows a live countdown, never "not found", then recovers by itself', async ({
  page,
}) => {
  test.setTimeout(90_000);
  await signInWithDemoKey(page); // 1 request
  const addresses = [
    '1100 Congress Ave, Austin, TX',
    '233 S Wacker Dr, Chicago, IL',
    '742 Evergreen Ter, Springfield, OR',
  ];
  for (const a of addresses) {
    await page.goto(`/search?address=${encodeURIComponent(a)}`); // 2, 3, 4
    await expect(page.getByRole('list', { name: 'Reliability' })).toBeVisible();
  }
  await page.goto(`/search?address=${encodeURIComponent('1313 Mockingbird Ln, St Louis, MO')}`); // over the limit
  const alert = page.getByText('Rate limit reached: this search will run again automatically');
  await expect(alert).toBeVisible();
  await expect(page.getByText(/No property matches/)).toHaveCount(0);
  await expect(page.getByText(/Retrying in \d+ s/)).toBeVisible();
  await expectNoAxeViolations(page, 'the rate-limited state');

  await expect(page.getByRole('heading', { name: '1313 Mockingbird Ln, Saint Louis, MO 63101' })).toBeVisible(
    { timeout: 30_000 },
  );
  await expect(alert).toHaveCount(0);
});
