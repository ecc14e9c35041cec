import { render, screen } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { apiError, fakeApi } from '../../../test/utils.tsx';
import { makeSummary } from '../testing/stats.fixtures.ts';
import { ExportActions } from './export-actions.tsx';

// Half past midnight on 2 November, the reader's time: their day, whatever the UTC date.
const NOW = new Date(2026, 10, 2, 0, 30);
const counts = { total: 3, done: 3, matched: 3, notFound: 0, ambiguous: 0, failed: 0 };
const review = makeSummary({
  id: 'rv_abc',
  totalRows: 3,
  runs: [
    { number: 1, startedAt: '2026-11-01T00:00:00Z', finishedAt: '2026-11-01T00:10:00Z', counts },
    { number: 2, startedAt: '2026-11-01T01:00:00Z', finishedAt: '2026-11-01T01:10:00Z', counts },
  ],
});

const file = (body: string, name: string, type: string) =>
  new Response(body, {
    headers: { 'content-type': type, 'content-disposition': `attachment; filename="${name}"` },
  });

/** What the page saved: each Blob URL's blob, and the name each click gave it. */
function savedFiles() {
  const saved: { name: string; blob: Blob }[] = [];
  const blobs = new Map<string, Blob>();
  URL.createObjectURL = (b: Blob) => {
    const url = `blob:test/${blobs.size}`;
    blobs.set(url, b);
    return url;
  };
  URL.revokeObjectURL = () => {};
  vi.spyOn(HTMLAnchorElement.prototype, 'click').mockImplementation(function (this: HTMLAnchorElement) {
    saved.push({ name: this.download, blob: blobs.get(this.href) as Blob });
  });
  return saved;
}

describe('Export CSV and Export JSON', () => {
  const original = { create: URL.createObjectURL, revoke: URL.revokeObjectURL };
  let saved: { name: string; blob: Blob }[];
  beforeEach(() => {
    saved = savedFiles();
  });
  afterEach(() => {
    URL.createObjectURL = original.create;
    URL.revokeObjectURL = original.revoke;
    vi.restoreAllMocks();
    vi.unstubAllGlobals();
  });

  const renderActions = (rowCount = 3) =>
    render(<ExportActions review={review} rowCount={rowCount} onPrint={() => {}} now={() => NOW} />);

  it('download the server’s export of the run on screen, saved under the server’s name', async () => {
    const api = fakeApi({
      'GET /api/reviews/rv_abc/export.csv': () =>
        file(
          '\ufeffinput,outcome\r\n1 Main St,matched\r\n',
          'proplens-portfolio-q3-2026-11-02.csv',
          'text/csv',
        ),
      'GET /api/reviews/rv_abc/export.json': () =>
        file('{"rows":[]}\n', 'proplens-portfolio-q3-2026-11-02.json', 'application/json'),
    });
    const user = userEvent.setup();
    renderActions();
    await user.click(screen.getByRole('button', { name: 'Export CSV' }));
    expect(
      await screen.findByText('Saved proplens-portfolio-q3-2026-11-02.csv (3 rows).'),
    ).toBeInTheDocument();
    const [csvCall] = api.calls;
    expect(csvCall?.url.pathname).toBe('/api/reviews/rv_abc/export.csv');
    expect(Object.fromEntries(csvCall?.url.searchParams ?? [])).toEqual({ run: '2', today: '2026-11-02' });
    // An /api call like any other: the CSRF header the BFF requires of every call.
    expect(csvCall?.headers.get('X-Requested-With')).toBe('proplens');
    expect(saved.map((f) => f.name)).toEqual(['proplens-portfolio-q3-2026-11-02.csv']);
    expect(await saved[0]?.blob.text()).toContain('1 Main St,matched');

    await user.click(screen.getByRole('button', { name: 'Export JSON' }));
    expect(await screen.findByText(/Saved proplens-portfolio-q3-2026-11-02\.json/)).toBeInTheDocument();
    expect(api.calls[1]?.url.pathname).toBe('/api/reviews/rv_abc/export.json');
    expect(saved.map((f) => f.name)).toEqual([
      'proplens-portfolio-q3-2026-11-02.csv',
      'proplens-portfolio-q3-2026-11-02.json',
    ]);
  });

  it('ask for semicolons when the reviewer chooses Excel’s European CSV', async () => {
    const api = fakeApi({
      'GET /api/reviews/rv_abc/export.csv': () =>
        file(
          '\ufeffinput;outcome\r\n1 Main St;matched\r\n',
          'proplens-portfolio-q3-2026-11-02.csv',
          'text/csv',
        ),
    });
    const user = userEvent.setup();
    renderActions();
    await user.selectOptions(screen.getByRole('combobox', { name: 'CSV separator' }), 'semicolon');
    await user.click(screen.getByRole('button', { name: 'Export CSV' }));
    expect(await screen.findByText(/Saved proplens-portfolio-q3-2026-11-02\.csv/)).toBeInTheDocument();
    expect(Object.fromEntries(api.calls[0]?.url.searchParams ?? [])).toEqual({
      run: '2',
      today: '2026-11-02',
      separator: 'semicolon',
    });
  });

  it('wait for the file with both buttons off, then say so when the server refuses', async () => {
    let answer: (r: Response) => void = () => {};
    fakeApi({
      'GET /api/reviews/rv_abc/export.csv': () => new Promise<Response>((resolve) => (answer = resolve)),
    });
    const user = userEvent.setup();
    renderActions();
    await user.click(screen.getByRole('button', { name: 'Export CSV' }));
    expect(screen.getByRole('status')).toHaveTextContent('Preparing the CSV file…');
    expect(screen.getByRole('button', { name: 'Export CSV' })).toBeDisabled();
    expect(screen.getByRole('button', { name: 'Export JSON' })).toBeDisabled();
    answer(apiError(404, 'not_found', 'There is no such review or run in this account.'));
    expect(await screen.findByRole('alert')).toHaveTextContent(
      'The export could not be made. There is no such review or run in this account. Try again.',
    );
    expect(saved).toEqual([]);
    expect(screen.getByRole('button', { name: 'Export CSV' })).toBeEnabled();
  });

  it('are off while the review has no rows to export', () => {
    renderActions(0);
    expect(screen.getByRole('button', { name: 'Export CSV' })).toBeDisabled();
    expect(screen.getByRole('button', { name: 'Export JSON' })).toBeDisabled();
  });
});
