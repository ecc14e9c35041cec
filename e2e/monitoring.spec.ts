import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import { expect, test } from '@playwright/test';
import { Webhook } from 'standardwebhooks';
import {
  answeredOnServer,
  fastForwardUntil,
  moveClock,
  referenceRecords,
  signInWithDemoKey,
} from './support.ts';

/*
 * A monitored review (issue 29), on the monitoring server (playwright.config.ts): "Every minute" is offered, its
 * reference re-verifies every record each minute it is up, and its clock is the journey's to move, so the
 * scheduled run comes when the journey moves past the minute instead of a real minute later. A webhook receiver
 * of the journey's own, on loopback, takes what PropLens posts.
 */
const ROWS = 3;

interface Received {
  headers: IncomingHttpHeaders;
  body: string;
}

/** A webhook receiver on a free loopback port: every POST is kept and answered 204. */
async function startReceiver() {
  const received: Received[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      received.push({ headers: req.headers, body: Buffer.concat(chunks).toString('utf8') });
      res.writeHead(204).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/proplens`,
    received,
    close: () => new Promise((resolve) => server.close(resolve)),
  };
}

const typeOf = (r: Received) => (JSON.parse(r.body) as { type: string }).type;

test('a review monitored every minute: a re-check that finds changes leaves an unread alert linked to its changes, and a signed review.changed webhook', async ({
  page,
}, testInfo) => {
  const receiver = await startReceiver();
  try {
    const records = await referenceRecords(ROWS, testInfo.repeatEachIndex * 200);
    const name = `Watched collateral #${testInfo.repeatEachIndex + 1}`;
    await signInWithDemoKey(page);

    // Settings: an endpoint for the receiver, whose signing secret is shown this once.
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Settings' }).click();
    await page.getByRole('textbox', { name: 'Webhook URL' }).fill(receiver.url);
    await page.getByRole('button', { name: 'Add endpoint' }).click();
    const secretText = page.locator('code').filter({ hasText: /^whsec_/ });
    await expect(secretText).toBeVisible();
    const secret = (await secretText.textContent()) as string;
    await page.getByRole('button', { name: 'I have copied it' }).click();
    await expect(secretText).toHaveCount(0);
    await expect(page.getByRole('list', { name: 'Webhook endpoints' })).toContainText(receiver.url);

    // A finished review (its rate windows moved through), then Monitor, every minute.
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Review' }).click();
    await page.getByRole('textbox', { name: 'Addresses' }).fill(records.map((r) => r.address).join('\n'));
    await page.getByRole('textbox', { name: 'Review name' }).fill(name);
    await page.getByRole('button', { name: 'Start review' }).click();
    await expect(page.getByRole('heading', { name })).toBeVisible();
    const url = page.url();
    const reviewId = new URL(url).pathname.split('/').pop() as string;
    await fastForwardUntil(page, async () => (await answeredOnServer(page, url)) === ROWS);
    await expect(page.getByText(`Done: all ${ROWS} addresses have an outcome.`)).toBeVisible();
    await page.getByRole('button', { name: 'Monitor' }).click();
    const dialog = page.getByRole('dialog', { name: 'Monitor this review' });
    await dialog.getByRole('combobox', { name: 'Schedule' }).selectOption({ label: 'Every minute' });
    await dialog.getByRole('button', { name: 'Start monitoring' }).click();
    await expect(page.getByRole('region', { name: 'Monitoring' })).toContainText('Monitored: Every minute');

    // Past the next minute the scheduled re-check runs; the records it finds re-verified since are an alert.
    // The clock then moves on in small steps: each makes the scheduler look at once for what is due (a finished
    // run to compare, an alert to send) instead of at its next pass, seconds away.
    await moveClock(page, 60_000);
    const sent = () => receiver.received.some((r) => typeOf(r) === 'review.changed');
    await fastForwardUntil(page, async () => sent(), {
      stepMs: 200,
      timeout: 30_000,
      message: 'the receiver got review.changed',
    });
    const changed = receiver.received.find((r) => typeOf(r) === 'review.changed') as Received;
    // Signed with the secret Settings showed (Standard Webhooks: id, timestamp, signature over the body).
    const event = new Webhook(secret).verify(changed.body, changed.headers as Record<string, string>) as {
      type: string;
      data: { reviewId: string; run: number; rows: { before: unknown; after: unknown }[] };
    };
    expect(event.type).toBe('review.changed');
    expect(event.data.reviewId).toBe(reviewId);
    expect(event.data.run).toBe(2);
    expect(event.data.rows.length).toBeGreaterThan(0);
    expect(() =>
      new Webhook(`whsec_${Buffer.alloc(24, 1).toString('base64')}`).verify(
        changed.body,
        changed.headers as Record<string, string>,
      ),
    ).toThrow();

    // The header counts the alert (a page loaded asks at once; an open one looks again every 20 s);
    // /notifications lists it, linked to the review's changes.
    await page.goto('/search');
    await page.getByRole('link', { name: /^Notifications \d+ unread$/ }).click();
    const alert = page.getByRole('listitem').filter({ hasText: name }).first();
    await expect(alert).toContainText('run 2');
    await expect(alert).toContainText(/\d+ rows? changed/);
    await alert.getByRole('link', { name: 'Changes since run 1' }).click();
    await expect(page).toHaveURL(url);
    await expect(page.getByRole('region', { name: /^Changes since / })).toContainText(/changed/);
  } finally {
    await receiver.close();
  }
});
