import { cleanup, render, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { describe, expect, it, vi } from 'vitest';
import { CsvInput } from './csv-input.tsx';
import type { Draft } from './draft.ts';
import { PasteInput } from './paste-input.tsx';

/** The last draft an input offered (what Start review would send). */
function lastDraft(onDraft: ReturnType<typeof vi.fn>) {
  const calls = onDraft.mock.calls;
  const draft = calls.at(-1)?.[0] as Draft | null;
  if (!draft || draft.kind === 'area') throw new Error('no draft offered');
  return draft;
}

const previewRows = async () =>
  within(await screen.findByRole('table', { name: /Preview/ }))
    .getAllByRole('row')
    .slice(1)
    .map((r) => r.textContent);

async function upload(file: File) {
  const onDraft = vi.fn();
  render(<CsvInput onDraft={onDraft} />);
  await userEvent.upload(screen.getByLabelText('CSV file'), file);
  return onDraft;
}

async function workbook(sheets: Record<string, unknown[][]>): Promise<Uint8Array> {
  const XLSX = await import('@e965/xlsx');
  const book = XLSX.utils.book_new();
  for (const [name, rows] of Object.entries(sheets))
    XLSX.utils.book_append_sheet(book, XLSX.utils.aoa_to_sheet(rows), name);
  return new Uint8Array(XLSX.write(book, { type: 'array', bookType: 'xlsx' }) as ArrayBuffer);
}

describe('a file as Excel writes it', () => {
  it('reads a German semicolon CSV in Windows-1252, says so, and joins house number and street', async () => {
    // "Straße;Hausnr.;PLZ;Ort;Fläche" with decimal commas, in Windows-1252 (ß = 0xDF, ä = 0xE4).
    const text =
      'Straße;Hausnr.;PLZ;Ort;Fläche\r\nCongress Ave;1100;78701;Austin;85,5\r\n;;;;\r\nMain St;12;;Austin;70,25\r\n';
    const bytes = Uint8Array.from(text, (c) => ({ ß: 0xdf, ä: 0xe4 })[c] ?? c.charCodeAt(0));
    const onDraft = await upload(new File([bytes], 'objekte.csv', { type: 'text/csv' }));
    expect(await screen.findByText(/Read as Windows-1252 \(Excel’s CSV\)/)).toBeInTheDocument();
    expect(screen.getByRole('combobox', { name: 'Street column' })).toHaveDisplayValue('1 · Straße');
    expect(screen.getByRole('combobox', { name: 'House number column' })).toHaveDisplayValue('2 · Hausnr.');
    // Rows by their number in the spreadsheet: the header is row 1, the blank row 3 is counted.
    expect(await previewRows()).toEqual(['21100 Congress Ave, Austin, 78701', '412 Main St, Austin']);
    await waitFor(() =>
      expect(lastDraft(onDraft).prepared.rows.map((r) => [r.sourceRow, r.cells?.[4]])).toEqual([
        [2, '85,5'],
        [4, '70,25'],
      ]),
    );
    expect(lastDraft(onDraft).prepared.columns).toEqual(['Straße', 'Hausnr.', 'PLZ', 'Ort', 'Fläche']);
  });

  it('reads an XLSX workbook: the first sheet, cells as shown, ZIPs stored as text keep their zeros; another sheet on request', async () => {
    const bytes = await workbook({
      Loans: [
        ['Loan', 'Street', 'City', 'State', 'Zip', 'Amount'],
        ['L-1', '24 Main St', 'Chatham', 'NJ', '07928', 250000.5],
        [],
        ['L-2', '1100 Congress Ave', 'Austin', 'TX', 78701, 99],
      ],
      Notes: [['Address'], ['233 S Wacker Dr, Chicago IL']],
    });
    const onDraft = await upload(new File([bytes.buffer as ArrayBuffer], 'tape.xlsx'));
    expect(await previewRows()).toEqual([
      '224 Main St, Chatham, NJ 07928',
      '41100 Congress Ave, Austin, TX 78701',
    ]);
    await waitFor(() => expect(lastDraft(onDraft).prepared.rows[0]?.cells?.[5]).toBe('250000.5'));
    const sheet = screen.getByRole('combobox', { name: 'Sheet' });
    expect(sheet).toHaveDisplayValue('Loans');
    await userEvent.selectOptions(sheet, 'Notes');
    expect(await previewRows()).toEqual(['2233 S Wacker Dr, Chicago IL']);
    await waitFor(() => expect(lastDraft(onDraft).prepared.columns).toEqual(['Address']));
  });

  it('refuses a damaged XLSX with what to do, and changes nothing: the file read before stays', async () => {
    const good = await workbook({ A: [['Address'], ['1100 Congress Ave, Austin TX']] });
    const broken = new File([good.slice(0, 200)], 'broken.xlsx');
    // Alone: nothing to start.
    const alone = await upload(broken);
    expect(
      await screen.findByText(/“broken.xlsx” could not be read as an Excel workbook/),
    ).toBeInTheDocument();
    expect(alone).toHaveBeenLastCalledWith(null);
    cleanup();
    // After a good file: that file's rows are still offered, and the form says so.
    const onDraft = await upload(new File(['Address\n"1100 Congress Ave, Austin TX"\n'], 'good.csv'));
    expect(await previewRows()).toEqual(['21100 Congress Ave, Austin TX']);
    await userEvent.upload(screen.getByLabelText('CSV file'), broken);
    expect(
      await screen.findByText(/“broken.xlsx” could not be read as an Excel workbook/),
    ).toBeInTheDocument();
    expect(screen.getByText(/Nothing changed: the rows below, from “good.csv”/)).toBeInTheDocument();
    expect(await previewRows()).toEqual(['21100 Congress Ave, Austin TX']);
    await waitFor(() => expect(lastDraft(onDraft).origin).toBe('good.csv'));
    expect((screen.getByLabelText('CSV file') as HTMLInputElement).value).toBe('');
  });
});

describe('a guess the reviewer should check', () => {
  it('shows what a street-only column sends and what the other columns would, and takes the one picked', async () => {
    const csv =
      'Main St 12,12 Main St,"12 Main St, Austin, TX 78701"\nOak 4,14 Oak Ave,"14 Oak Ave, Austin, TX 78702"\n';
    const onDraft = await upload(new File([csv], 'noheader.csv'));
    const check = await screen.findByRole('region', { name: 'Check the address columns' });
    expect(check).toHaveTextContent('No column is named like an address');
    expect(check).toHaveTextContent(
      'As chosen: “12 Main St”, “14 Oak Ave” — no city or ZIP: many streets share that name.',
    );
    expect(check).toHaveTextContent(
      'Column 3 would send “12 Main St, Austin, TX 78701”, “14 Oak Ave, Austin, TX 78702”',
    );
    await userEvent.click(within(check).getByRole('button', { name: 'Use this: Column 3' }));
    expect(screen.queryByRole('region', { name: 'Check the address columns' })).not.toBeInTheDocument();
    await waitFor(() =>
      expect(lastDraft(onDraft).prepared.rows[0]?.input).toBe('12 Main St, Austin, TX 78701'),
    );
  });

  it('keeps a row without an address, by its parcel number, and maps a parcel column', async () => {
    const csv =
      'APN,Situs Address,Situs City,Situs Zip\nA-1,1100 Congress Ave,Austin,78701\nA-2,,,\n,,,\nA-3,12 Main St,Austin,78701\n';
    const onDraft = await upload(new File([csv], 'assessor.csv'));
    expect(await screen.findByRole('combobox', { name: 'Parcel number column' })).toHaveDisplayValue(
      '1 · APN',
    );
    expect(await previewRows()).toEqual([
      '21100 Congress Ave, Austin, 78701',
      '3Parcel A-2',
      '512 Main St, Austin, 78701',
    ]);
    expect(
      screen.getByText(/3 rows · 1 looked up by parcel number · 1 blank line skipped/),
    ).toBeInTheDocument();
    await userEvent.selectOptions(screen.getByRole('combobox', { name: 'Parcel number column' }), 'None');
    expect(
      await screen.findByText(/1 row without an address \(kept, answered “no address”\)/),
    ).toBeInTheDocument();
    await waitFor(() =>
      expect(lastDraft(onDraft).prepared.rows.map((r) => [r.sourceRow, r.outcome])).toEqual([
        [2, 'pending'],
        [3, 'failed'],
        [5, 'pending'],
      ]),
    );
  });
});

describe('pasted text', () => {
  it('reads rows copied from a spreadsheet as columns, with the file’s mapping', async () => {
    const onDraft = vi.fn();
    render(<PasteInput onDraft={onDraft} defaultName="Pasted" />);
    const text = 'Street\tCity\tState\n1100 Congress Ave\tAustin\tTX\n233 S Wacker Dr\tChicago\tIL';
    await userEvent.click(screen.getByRole('textbox', { name: 'Addresses' }));
    await userEvent.paste(text);
    expect(await screen.findByText(/Read as rows of a spreadsheet/)).toBeInTheDocument();
    expect(screen.getByRole('combobox', { name: 'City column' })).toHaveDisplayValue('2 · City');
    await waitFor(() =>
      expect(lastDraft(onDraft).prepared.rows.map((r) => [r.sourceRow, r.input])).toEqual([
        [2, '1100 Congress Ave, Austin, TX'],
        [3, '233 S Wacker Dr, Chicago, IL'],
      ]),
    );
    // A column chosen stays chosen.
    await userEvent.selectOptions(screen.getByRole('combobox', { name: 'State column' }), 'None');
    await waitFor(() => expect(lastDraft(onDraft).prepared.rows[0]?.input).toBe('1100 Congress Ave, Austin'));
  });

  it('lists the lines of an email that are not addresses, by line number, and sends the rest', async () => {
    const onDraft = vi.fn();
    render(<PasteInput onDraft={onDraft} defaultName="Pasted" />);
    await userEvent.click(screen.getByRole('textbox', { name: 'Addresses' }));
    await userEvent.paste('Hi all,\n1. 1100 Congress Ave, Austin TX\nThanks!\nPhone: (512) 555-0100');
    expect(await screen.findByText(/1 address · 3 lines set aside: not an address/)).toBeInTheDocument();
    await userEvent.click(screen.getByText(/Not an address: 3 lines set aside/));
    expect(screen.getByText('Line 4:').closest('li')).toHaveTextContent(
      'Line 4: “Phone: (512) 555-0100” (a phone number)',
    );
    expect(lastDraft(onDraft).prepared.rows.map((r) => [r.sourceRow, r.input])).toEqual([
      [2, '1100 Congress Ave, Austin TX'],
    ]);
  });
});

describe('files as the hostile review of issue 27 brought them', () => {
  it('R1: finds the header under a title line, says the title is not looked up, and lets the reviewer say which row is the header', async () => {
    const csv = [
      'Travis County Appraisal District - Parcel export run 2026-11-01',
      '',
      'APN,Owner Name,Mailing Address,Mailing City,Mailing State,Mailing Zip,Situs No,Situs Street,Unit #,Situs City,ST,Zip',
      '37119-028-4680,OWNER 0,71 E 2nd St,Jeffersonville,GA,31044,490,PATE RD,REAR,CHARLOTTE,NC,28235',
      '12001-656-7866,OWNER 1,341 Cedar Ave,Kennedy,MN,56733,251,MARY ST,N/A,GAINESVILLE,FL,32609',
    ].join('\n');
    const onDraft = await upload(new File([csv], 'title.csv'));
    expect(await previewRows()).toEqual([
      '4490 PATE RD REAR, CHARLOTTE, NC 28235',
      '5251 MARY ST, GAINESVILLE, FL 32609',
    ]);
    expect(screen.getByRole('checkbox', { name: 'Row 3 is the header' })).toBeChecked();
    const headerRow = screen.getByRole('combobox', { name: 'Header row' });
    expect(headerRow).toHaveDisplayValue(/^Row 3 · APN, Owner Name/);
    expect(headerRow).toHaveAccessibleDescription(
      'Row 1 above the header is a title, not addresses: not looked up.',
    );
    await waitFor(() => expect(lastDraft(onDraft).prepared.columns?.[0]).toBe('APN'));
    // The reviewer says there is no header: every row is data, the title too.
    await userEvent.click(screen.getByRole('checkbox', { name: 'Row 3 is the header' }));
    await waitFor(() =>
      expect(lastDraft(onDraft).prepared.rows.map((r) => r.sourceRow)).toEqual([1, 3, 4, 5]),
    );
    expect(screen.queryByRole('combobox', { name: 'Header row' })).not.toBeInTheDocument();
    // … and back: the header is found again.
    await userEvent.click(screen.getByRole('checkbox', { name: 'The first row is a header' }));
    await waitFor(() => expect(lastDraft(onDraft).prepared.rows.map((r) => r.sourceRow)).toEqual([4, 5]));
  }, 20_000); // Six re-renders of a 12-column form: slow on a loaded machine.

  it('R11: says before Start that the only address columns are the owner’s mailing address', async () => {
    const csv =
      'Owner,Mailing Address,Mailing City,Mailing State,Mailing Zip\nOwner 0,530 N 3rd St,Joplin,MO,64804\n';
    await upload(new File([csv], 'mailing.csv'));
    expect(await previewRows()).toEqual(['2530 N 3rd St, Joplin, MO 64804']);
    expect(screen.getByRole('region', { name: 'Check the address columns' })).toHaveTextContent(
      'These are the owner’s mailing address columns, not the property’s',
    );
  });

  it('R8: joins a cell’s line break; shows a refused row as refused, with why, and lists the refused rows', async () => {
    const csv =
      'Address\n"580 Morales Rd\nNew York, NY 10037"\nhttps://maps.example/12-main\n"12 Main St\u0007, Austin TX"\n';
    await upload(new File([csv], 'multiline.csv'));
    const rows = await previewRows();
    expect(rows[0]).toBe('2580 Morales Rd, New York, NY 10037');
    // The quoted line break keeps the cell in row 2, as in Excel: the next rows are 3 and 4.
    expect(rows[1]).toMatch(/^3refused, not looked up: /);
    expect(rows[2]).toMatch(/^4refused, not looked up: /);
    await userEvent.click(screen.getByText('Refused: 2 rows are not looked up'));
    expect(screen.getByText('Row 3:').closest('li')).toHaveTextContent(
      'Row 3: “https://maps.example/12-main” (',
    );
    expect(screen.getByText('Row 4:').closest('li')).toHaveTextContent(
      '(An address cannot contain control characters.)',
    );
  });

  it('R15: says which lines of a UTF-8 file were not UTF-8', async () => {
    const bytes = new Uint8Array([
      ...new TextEncoder().encode('Address,Note\n12 Main St,Müller\n14 Oak Ave,'),
      0x80,
      10,
    ]);
    await upload(new File([bytes], 'stray.csv'));
    expect(
      await screen.findByText(/Read as UTF-8, except line 3: not UTF-8, read as Windows-1252/),
    ).toBeInTheDocument();
    expect(screen.queryByText(/the file is not UTF-8/)).not.toBeInTheDocument();
  });

  it('R16: says when a file is wider than a review, and offers its rows all the same', async () => {
    const header = Array.from({ length: 250 }, (_, i) => (i === 229 ? 'Address' : `F${i + 1}`));
    const row = Array.from({ length: 250 }, (_, i) => (i === 229 ? '"12 Main St, Austin TX"' : 'x'));
    const onDraft = await upload(new File([`${header.join(',')}\n${row.join(',')}\n`], 'wide.csv'));
    expect(await screen.findByRole('status')).toHaveTextContent(
      'The file has 250 columns; a review keeps 200',
    );
    await waitFor(() => expect(lastDraft(onDraft).prepared.columns).toHaveLength(200));
  });

  it('R21: opens the first sheet Excel shows that has an address header, not a hidden or cover sheet', async () => {
    const XLSX = await import('@e965/xlsx');
    const book = XLSX.utils.book_new();
    XLSX.utils.book_append_sheet(book, XLSX.utils.aoa_to_sheet([['A'], ['B']]), 'Lookups');
    XLSX.utils.book_append_sheet(book, XLSX.utils.aoa_to_sheet([['Loan tape Q3'], ['Rows', 2]]), 'Summary');
    XLSX.utils.book_append_sheet(
      book,
      XLSX.utils.aoa_to_sheet([
        ['Loan', 'Property Address'],
        ['L-1', '1100 Congress Ave, Austin TX'],
      ]),
      'Portfolio',
    );
    book.Workbook = { Sheets: [{ name: 'Lookups', Hidden: 1 }, { name: 'Summary' }, { name: 'Portfolio' }] };
    const bytes = new Uint8Array(XLSX.write(book, { type: 'array', bookType: 'xlsx' }) as ArrayBuffer);
    await upload(new File([bytes], 'tape.xlsx'));
    expect(await previewRows()).toEqual(['21100 Congress Ave, Austin TX']);
    const sheet = screen.getByRole('combobox', { name: 'Sheet' });
    expect(sheet).toHaveDisplayValue('Portfolio');
    expect(within(sheet).getByRole('option', { name: 'Lookups (hidden in Excel)' })).toBeInTheDocument();
  });
});
