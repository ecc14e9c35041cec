import { readFile } from 'node:fs/promises';
import { expect, type Page, test } from '@playwright/test';
import Papa from 'papaparse';
import {
  assessorExport,
  forwardedEmail,
  germanExcel,
  loanTapeXlsx,
  type ReviewFile,
  tabPaste,
} from './fixtures/review-files/files.ts';
import { expectNoAxeViolations, signInWithDemoKey } from './support.ts';

/*
 * Files as reviewers bring them (issue 27), one journey per shape, against the real built app: each is read,
 * mapped, reviewed on the server, exported, and the export joined back to its input by the source row number
 * (proplens_source_row; source_row for plain pasted lines): every data row of the input comes back once, in
 * order, with its own cells, and none that is not an input row.
 */

async function openReviews(page: Page) {
  await signInWithDemoKey(page);
  await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Review' }).click();
  await expect(page.getByRole('heading', { name: 'Review many addresses' })).toBeVisible();
}

async function upload(page: Page, file: { name: string; bytes: Buffer }) {
  await page.getByText('Upload a file').click();
  await page.getByLabel('CSV file').setInputFiles({ name: file.name, mimeType: '', buffer: file.bytes });
}

/** The option a select shows. */
const selected = (page: Page, name: string) => page.getByRole('combobox', { name }).locator('option:checked');

/** Names the review, starts it, and waits until every row has an outcome. */
async function startAndFinish(page: Page, name: string, rows: number) {
  await page.getByRole('textbox', { name: 'Review name' }).fill(name);
  await page.getByRole('button', { name: 'Start review' }).click();
  await expect(page.getByRole('heading', { name })).toBeVisible();
  await expect(page.getByRole('progressbar', { name: 'Review progress' })).toHaveAttribute(
    'aria-valuetext',
    `${rows} of ${rows}`,
    { timeout: 60_000 },
  );
}

/** The review's CSV export (the server's), parsed: one object per exported row. */
async function exportCsv(page: Page): Promise<{ columns: string[]; rows: Record<string, string>[] }> {
  const [download] = await Promise.all([
    page.waitForEvent('download'),
    page.getByRole('button', { name: 'Export CSV' }).click(),
  ]);
  const text = (await readFile((await download.path()) as string, 'utf8')).replace(/^\ufeff/, '');
  const parsed = Papa.parse<Record<string, string>>(text, { header: true, skipEmptyLines: true });
  return { columns: parsed.meta.fields ?? [], rows: parsed.data };
}

/**
 * The export joined back to the input: the same rows by source row number, in order, each once; the input's own
 * cells as they were; each row's outcome as expected (matched to its record, or no_address).
 */
function expectJoinsBack(
  exported: { columns: string[]; rows: Record<string, string>[] },
  input: Pick<ReviewFile, 'header' | 'rows'>,
) {
  expect(exported.columns.slice(0, input.header.length)).toEqual(input.header);
  expect(exported.rows.map((r) => Number(r.proplens_source_row))).toEqual(input.rows.map((r) => r.sourceRow));
  input.rows.forEach((row, i) => {
    const out = exported.rows[i] as Record<string, string>;
    const own = input.header.map((h) => out[h] ?? '');
    expect(own, `row ${row.sourceRow}'s cells`).toEqual(input.header.map((_, c) => row.cells[c] ?? ''));
    if ('matched' in row.expect) {
      expect([row.sourceRow, out.proplens_outcome, out.proplens_matched_address]).toEqual([
        row.sourceRow,
        'matched',
        row.expect.matched,
      ]);
    } else {
      expect([row.sourceRow, out.proplens_outcome, out.proplens_error_code]).toEqual([
        row.sourceRow,
        'failed',
        'no_address',
      ]);
    }
  });
}

test('an assessor export: situs columns mapped over the mailing address, vacant parcels found by APN, every row back', async ({
  page,
}) => {
  const file = await assessorExport();
  await openReviews(page);
  await upload(page, file);
  await expect(selected(page, 'Street column')).toHaveText('3 · Situs Street');
  await expect(selected(page, 'House number column')).toHaveText('2 · Situs No');
  await expect(selected(page, 'City column')).toHaveText('5 · Situs City');
  await expect(selected(page, 'Parcel number column')).toHaveText('1 · APN');
  await expect(
    page.getByText(
      '10 rows · 3 looked up by parcel number · 1 row without an address (kept, answered “no address”) · 1 blank line skipped',
    ),
  ).toBeVisible();
  const preview = page.getByRole('table', { name: /Preview/ });
  await expect(preview.getByRole('row').nth(3)).toHaveText(`4Parcel ${file.rows[2]?.cells[0]}`);
  await expectNoAxeViolations(page, 'an assessor export mapped');

  await startAndFinish(page, 'Assessor export', 10);
  expectJoinsBack(await exportCsv(page), file);
});

test('a German Excel CSV: semicolons, Windows-1252, Straße and Hausnr. apart, decimal commas kept', async ({
  page,
}) => {
  const file = await germanExcel();
  await openReviews(page);
  await upload(page, file);
  await expect(page.getByText(/Read as Windows-1252 \(Excel’s CSV\)/)).toBeVisible();
  await expect(selected(page, 'Street column')).toHaveText('2 · Straße');
  await expect(selected(page, 'House number column')).toHaveText('3 · Hausnr.');
  await expect(page.getByText('6 addresses · 1 blank line skipped')).toBeVisible();

  await startAndFinish(page, 'Objekte', 6);
  const exported = await exportCsv(page);
  expectJoinsBack(exported, file);
  // The letters Windows-1252 wrote come back as letters, the euro sign included.
  expect(exported.columns).toContain('Kaufpreis €');
  expect(exported.rows[0]?.Bemerkung).toBe('Gärtnerei nebenan; ruhige Straße');
  expect(exported.rows[0]?.['Wohnfläche m²']).toBe('80,5');
});

test('an XLSX loan tape: the first sheet, cells as the sheet shows them, ZIPs keep their leading zero', async ({
  page,
}) => {
  const file = await loanTapeXlsx();
  await openReviews(page);
  await upload(page, file);
  await expect(selected(page, 'Sheet')).toHaveText('Tape');
  const first = file.rows[0]?.cells ?? [];
  await expect(
    page
      .getByRole('table', { name: /Preview/ })
      .getByRole('row')
      .nth(1),
  ).toHaveText(`2${first[1]}, ${first[2]}, ${first[3]} ${first[4]}`);
  expect(first[4]).toMatch(/^0/);
  await expect(page.getByText('6 addresses · 1 blank line skipped')).toBeVisible();

  await startAndFinish(page, 'Loan tape', 6);
  // The closing date and the amount come back as the sheet shows them ("1/15/24"), in the rows' own cells.
  expectJoinsBack(await exportCsv(page), file);
});

test('rows copied from a spreadsheet and pasted: read as columns, mapped as a file, every row back', async ({
  page,
}) => {
  const pasted = await tabPaste();
  await openReviews(page);
  await page.getByRole('textbox', { name: 'Addresses' }).fill(pasted.text);
  await expect(page.getByText(/Read as rows of a spreadsheet/)).toBeVisible();
  await expect(selected(page, 'Street column')).toHaveText('1 · Street');
  await expect(selected(page, 'ZIP column')).toHaveText('4 · Zip');
  await expect(page.getByText('5 addresses · 1 blank line skipped')).toBeVisible();
  await expectNoAxeViolations(page, 'a pasted table mapped');

  await startAndFinish(page, 'Pasted from Sheets', 5);
  expectJoinsBack(await exportCsv(page), pasted);
});

test('an email pasted: greeting, heading and signature set aside and listed, list numbers dropped', async ({
  page,
}) => {
  const email = await forwardedEmail();
  await openReviews(page);
  await page.getByRole('textbox', { name: 'Addresses' }).fill(email.text);
  await expect(
    page.getByText('4 addresses · 2 blank lines skipped · 7 lines set aside: not an address'),
  ).toBeVisible();
  await page.getByText(/Not an address: 7 lines set aside/).click();
  await expect(page.getByText('Line 12:').locator('xpath=..')).toHaveText(
    'Line 12: “Phone: (512) 555-0100” (a phone number)',
  );
  await expectNoAxeViolations(page, 'an email pasted, its set-aside lines open');

  await startAndFinish(page, 'From the IC email', 4);
  const exported = await exportCsv(page);
  // A plain paste has no columns of its own: PropLens's columns are not prefixed.
  expect(exported.rows.map((r) => [Number(r.source_row), r.input, r.outcome])).toEqual(
    email.lines.map((l) => [l.sourceRow, l.address, 'matched']),
  );
});

test('a file whose columns are a guess: what each would send is shown before Start, and the one picked is used', async ({
  page,
}) => {
  const [a, b] = (await germanExcel()).rows.map((r) => r.expect);
  if (!a || !b || !('matched' in a) || !('matched' in b)) throw new Error('no demo addresses');
  const street = (address: string) => address.split(',')[0] ?? address;
  // No header; the first column holds the street alone, the third the whole address.
  const csv = [a.matched, b.matched].map((m, i) => `${street(m)},REF-${i},"${m}"`).join('\r\n');
  await openReviews(page);
  await upload(page, { name: 'no-header.csv', bytes: Buffer.from(csv) });
  const check = page.getByRole('region', { name: 'Check the address columns' });
  await expect(check).toContainText('No column is named like an address');
  await expect(check).toContainText(
    `As chosen: “${street(a.matched)}”, “${street(b.matched)}” — no city or ZIP: many streets share that name.`,
  );
  await expectNoAxeViolations(page, 'the check of guessed columns');
  await check.getByRole('button', { name: 'Use this: Column 3' }).click();
  await expect(check).toHaveCount(0);
  await expect(
    page
      .getByRole('table', { name: /Preview/ })
      .getByRole('row')
      .nth(1),
  ).toHaveText(`1${a.matched}`);
});
