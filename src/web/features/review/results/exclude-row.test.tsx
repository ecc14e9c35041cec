import { screen, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { useState } from 'react';
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { ReviewRowResult } from '../../../../contract/index.ts';
import { apiError, fakeApi, json, layOutElements, Route, renderRoutes } from '../../../test/utils.tsx';
import { makeProperty, makeRow, makeSummary } from '../testing/stats.fixtures.ts';
import { ReviewResults } from './review-results.tsx';

/*
 * Excluding a row from a review later (issue 27), as a reviewer does it from the row's details: the row keeps
 * its place in the table, marked, and leaves every figure; "Include again" brings it back.
 */

const NOW = new Date(2026, 10, 1, 12);
const PATH = 'rows/1/exclusion';

const ROWS: ReviewRowResult[] = [
  makeRow(0, {
    input: '9 Elm St, Austin, TX',
    property: makeProperty({ id: 'P-A', address: '9 ELM ST, AUSTIN, TX 78701' }),
  }),
  makeRow(1, {
    input: '1 Office Park, Austin, TX',
    property: makeProperty({ id: 'P-B', address: '1 OFFICE PARK, AUSTIN, TX 78701' }),
  }),
];
const EXCLUDED = { reason: 'Office, not collateral', by: 'ab12cd34', at: '2026-11-01T11:00:00.000Z' };

function Page() {
  const [rows, setRows] = useState(ROWS);
  return (
    <ReviewResults
      review={makeSummary({ totalRows: 2 })}
      accountName="Acme Appraisals"
      rows={rows}
      now={NOW}
      onRowFixed={(r) => setRows((old) => old.map((o) => (o.index === r.index ? r : o)))}
    />
  );
}

afterEach(() => vi.unstubAllGlobals());
layOutElements();

describe('excluding a row from the review', { timeout: 30_000 }, () => {
  it('marks the row, takes it out of every figure, and Include again brings it back', async () => {
    const api = fakeApi({
      'GET /api/session': () => apiError(401, 'unauthenticated', 'Sign in.'),
      [`PUT /api/reviews/rev-1/${PATH}`]: ({ body }) =>
        json({ ...ROWS[1], excluded: { ...EXCLUDED, reason: (body as { reason: string }).reason } }),
      [`DELETE /api/reviews/rev-1/${PATH}`]: () => json(ROWS[1]),
    });
    const user = userEvent.setup();
    renderRoutes(<Route path="/review/:id" element={<Page />} />, '/review/rev-1');
    const summary = screen.getByRole('region', { name: 'Reliability summary' });
    expect(within(summary).getByText('of 2 addresses')).toBeInTheDocument();

    await user.click(screen.getByRole('button', { name: '1 Office Park, Austin, TX' }));
    const dialog = screen.getByRole('dialog', { name: '1 Office Park, Austin, TX' });
    await user.click(within(dialog).getByText('Exclude this row from the review'));
    await user.type(
      within(dialog).getByRole('textbox', { name: 'Reason (optional)' }),
      ' Office, not collateral ',
    );
    await user.click(within(dialog).getByRole('button', { name: 'Exclude row' }));

    expect(api.calls.find((c) => c.method === 'PUT')?.body).toEqual({ reason: 'Office, not collateral' });
    const notice = await within(dialog).findByTestId('row-excluded');
    expect(notice).toHaveTextContent('Excluded from the review.');
    expect(notice).toHaveTextContent('“Office, not collateral”. By key ab12cd34');
    // Focus goes to what now stands, so a screen reader says it.
    expect(notice).toHaveFocus();
    expect(within(dialog).getByText(/^Row 2 · Matched · Excluded/)).toBeInTheDocument();

    await user.click(within(dialog).getByRole('button', { name: 'Close' }));
    // In the table, in its place, marked; in the summary, in no figure but its own.
    const row = screen
      .getByRole('button', { name: '1 Office Park, Austin, TX' })
      .closest('tr') as HTMLElement;
    expect(within(row).getByText('Excluded')).toBeInTheDocument();
    expect(within(summary).getByText('of 1 address · 1 excluded')).toBeInTheDocument();
    const outcomes = within(summary).getByRole('list', { name: 'Outcomes' });
    expect(within(outcomes).getByText('Matched:').nextElementSibling).toHaveTextContent('1');
    expect(within(outcomes).getByText('Excluded:').nextElementSibling).toHaveTextContent('1');
    // The Excluded filter shows the excluded rows alone.
    await user.click(screen.getByRole('checkbox', { name: /Excluded/ }));
    expect(screen.queryByRole('button', { name: '9 Elm St, Austin, TX' })).not.toBeInTheDocument();
    expect(screen.getByRole('button', { name: '1 Office Park, Austin, TX' })).toBeInTheDocument();

    await user.click(screen.getByRole('button', { name: '1 Office Park, Austin, TX' }));
    const again = screen.getByRole('dialog', { name: '1 Office Park, Austin, TX' });
    await user.click(within(again).getByRole('button', { name: 'Include again' }));
    expect(api.calls.at(-1)?.method).toBe('DELETE');
    expect(await within(again).findByText('Exclude this row from the review')).toBeInTheDocument();
    expect(within(summary).getByText('of 2 addresses')).toBeInTheDocument();
  });

  it('says why an exclusion was refused, and keeps the reason typed', async () => {
    fakeApi({
      'GET /api/session': () => apiError(401, 'unauthenticated', 'Sign in.'),
      [`PUT /api/reviews/rev-1/${PATH}`]: () =>
        apiError(409, 'conflict', 'This row is not uploaded yet: exclude it once every row is in.'),
    });
    const user = userEvent.setup();
    renderRoutes(<Route path="/review/:id" element={<Page />} />, '/review/rev-1');
    await user.click(screen.getByRole('button', { name: '1 Office Park, Austin, TX' }));
    const dialog = screen.getByRole('dialog', { name: '1 Office Park, Austin, TX' });
    await user.click(within(dialog).getByText('Exclude this row from the review'));
    const reason = within(dialog).getByRole('textbox', { name: 'Reason (optional)' });
    await user.type(reason, 'Sold');
    await user.click(within(dialog).getByRole('button', { name: 'Exclude row' }));
    expect(await within(dialog).findByRole('alert')).toHaveTextContent(
      'This row is not uploaded yet: exclude it once every row is in.',
    );
    expect(reason).toHaveValue('Sold');
  });
});
