import { readFile } from 'node:fs/promises';
import { expect, type Page } from '@playwright/test';
import { unzipSync, zipSync } from 'fflate';
import { exportFileName } from '../src/bff/reviews/export-columns.ts';

/*
 * Export evidence on a finished review, then check the packet on /verify as someone without an account would
 * (a fresh browser context: no session), once as downloaded and once with one byte of its CSV changed (issue 30).
 * A step of a journey that already has a finished review on screen, so it costs seconds, not a server.
 */
export async function exportAndVerifyEvidence(page: Page, reviewName: string) {
  const [download] = await Promise.all([
    page.waitForEvent('download'),
    page.getByRole('button', { name: 'Export evidence' }).click(),
  ]);
  // Named as the CSV and JSON exports are: proplens-<the review's name, made safe>-<day>.evidence.zip.
  expect(download.suggestedFilename().replace(/\d{4}-\d\d-\d\d(?=\.evidence\.zip$)/, 'DAY')).toBe(
    exportFileName(reviewName, 'evidence.zip', 'DAY'),
  );
  const packet = await readFile((await download.path()) as string);

  const stranger = await (await page.context().browser()?.newContext())?.newPage();
  if (!stranger) throw new Error('no browser to open /verify in');
  const uploads: string[] = [];
  stranger.on('request', (r) => {
    if (r.method() !== 'GET' || r.postData()) uploads.push(`${r.method()} ${r.url()}`);
  });
  await stranger.goto(new URL('/verify', page.url()).href);
  const packetInput = stranger.getByLabel(/Evidence packet/);
  await packetInput.setInputFiles({
    name: download.suggestedFilename(),
    mimeType: 'application/zip',
    buffer: packet,
  });
  await expect(stranger.getByRole('status')).toContainText(
    // The e2e servers name no ALLOWED_HOSTS: a packet never names a host the request alone claimed.
    /^Verified: signed by PropLens \(its host name was not configured\) on \d{4}-\d\d-\d\d; 4 files, none changed/,
  );

  const files = unzipSync(new Uint8Array(packet));
  const csv = new Uint8Array(files['results.csv'] as Uint8Array);
  csv[csv.length - 3] = (csv[csv.length - 3] as number) ^ 1;
  await packetInput.setInputFiles({
    name: 'changed.evidence.zip',
    mimeType: 'application/zip',
    buffer: Buffer.from(zipSync({ ...files, 'results.csv': csv })),
  });
  await expect(stranger.getByRole('status')).toContainText('Not verified: results.csv was changed.');
  // The packet never left the browser: nothing but GETs (the page, its scripts, the JWKS).
  expect(uploads).toEqual([]);
  await stranger.context().close();
}
