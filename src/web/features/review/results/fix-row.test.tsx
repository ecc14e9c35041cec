import { screen, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { useState } from 'react';
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { FixRowResponse, ReviewRowResult } from '../../../../contract/index.ts';
import { apiError, fakeApi, json, layOutElements, Route, renderRoutes } from '../../../test/utils.tsx';
import { makeProperty, makeRow, makeSummary } from '../testing/stats.fixtures.ts';
import { candidateCount } from './fix-row.tsx';
import { ReviewResults } from './review-results.tsx';

const NOW = new Date(2026, 10, 1, 12);
const SPRINGFIELD_IL = '100 Main St, Springfield, IL 62701';
const SPRINGFIELD_OR = '100 Main St, Springfield, OR 97477';
const FIX_PATH = 'POST /api/reviews/rev-1/rows/1/fix';

const ROWS: ReviewRowResult[] = [
  makeRow(0, {
    input: '9 Elm St, Austin, TX',
    property: makeProperty({ id: 'P-A', address: '9 ELM ST, AUSTIN, TX 78701' }),
  }),
  makeRow(1, {
    input: '100 Main St',
    outcome: 'ambiguous',
    candidates: [
      { id: 'c1', address: SPRINGFIELD_IL, confidence: 'high' },
      { id: 'c2', address: SPRINGFIELD_OR, confidence: 'low' },
    ],
    error: { code: 'ambiguous', message: 'More than one property matches.' },
  }),
];

/** The row as the server answers a fix that found one property. */
const fixedRow = (address: string, id: string, how: 'candidate' | 'edited'): ReviewRowResult => ({
  index: 1,
  input: '100 Main St',
  outcome: 'matched',
  property: makeProperty({ id, address: address.toUpperCase() }),
  // The record has the address looked up, as given.
  match: null,
  fix: { address, how, by: 'ab12cd34', at: '2026-11-01T11:00:00.000Z' },
  retrievedAt: '2026-11-01T11:00:00.000Z',
  seq: 9,
});

/** The results as the review page shows them, a fixed row replacing the old one as the live review does. */
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

async function openAmbiguous() {
  const user = userEvent.setup();
  renderRoutes(<Route path="/review/:id" element={<Page />} />, '/review/rev-1');
  await user.click(screen.getByRole('button', { name: '100 Main St' }));
  return { user, dialog: screen.getByRole('dialog', { name: '100 Main St' }) };
}

afterEach(() => vi.unstubAllGlobals());
layOutElements();

// userEvent drives a full page of charts and table: more than the default 5 s on a busy 2-core machine.
describe('fixing an ambiguous or unmatched row without leaving the review', { timeout: 30_000 }, () => {
  it('"Use this one" makes the candidate the row’s record, in the dialog, the table and the counts', async () => {
    const api = fakeApi({
      [FIX_PATH]: () =>
        json({ fixed: true, row: fixedRow(SPRINGFIELD_OR, 'c2', 'candidate') } satisfies FixRowResponse),
    });
    const { user, dialog } = await openAmbiguous();
    expect(within(dialog).getByText('2 candidates')).toBeInTheDocument();
    const list = within(dialog).getByRole('list', { name: 'Candidates' });
    const oregon = within(list).getByRole('link', { name: SPRINGFIELD_OR }).closest('li') as HTMLElement;
    expect(oregon.querySelector('[data-confidence]')).toHaveTextContent('Low confidence');
    const use = within(oregon).getByRole('button', { name: 'Use this one' });
    expect(use).toHaveAccessibleDescription(SPRINGFIELD_OR);
    await user.click(use);

    expect(api.calls.at(-1)?.body).toEqual({ address: SPRINGFIELD_OR, candidateId: 'c2' });
    const notice = await within(dialog).findByText(/Fixed in the review: looked up as/);
    expect(notice).toHaveTextContent(
      `Fixed in the review: looked up as “${SPRINGFIELD_OR}” (a candidate chosen).`,
    );
    // Focus goes to what changed, so a screen reader hears it.
    expect(notice.parentElement).toHaveFocus();
    expect(within(dialog).getByRole('heading', { name: SPRINGFIELD_OR.toUpperCase() })).toBeInTheDocument();
    expect(within(dialog).getByText(/^Row 2 · Matched/)).toBeInTheDocument();
    await user.click(within(dialog).getByRole('button', { name: 'Close' }));
    const row = screen.getByRole('button', { name: '100 Main St' }).closest('tr') as HTMLElement;
    expect(within(row).getByText(`Fixed: looked up as ${SPRINGFIELD_OR}`)).toBeInTheDocument();
    expect(within(row).getByText(SPRINGFIELD_OR.toUpperCase())).toBeInTheDocument();
  });

  it('an edited address that finds nothing or several leaves the row, and offers what it found', async () => {
    const answers: FixRowResponse[] = [
      {
        fixed: false,
        row: { index: 1, input: '100 Main St', outcome: 'ambiguous', seq: 2 },
        attempt: { outcome: 'not_found', error: { code: 'not_found', message: 'No property.' } },
      },
      {
        fixed: false,
        row: { index: 1, input: '100 Main St', outcome: 'ambiguous', seq: 2 },
        attempt: {
          outcome: 'ambiguous',
          candidates: [{ id: 'c9', address: '100 Main St Apt 1, Salem, OR 97301' }],
          error: { code: 'ambiguous', message: 'Several.', total: 12 },
        },
      },
      { fixed: true, row: fixedRow('100 Main St Apt 1, Salem, OR 97301', 'c9', 'candidate') },
    ];
    const api = fakeApi({ [FIX_PATH]: () => json(answers.shift()) });
    const { user, dialog } = await openAmbiguous();
    const field = within(dialog).getByRole('textbox', { name: 'Address to look up' });
    expect(field).toHaveValue('100 Main St');
    await user.clear(field);
    await user.type(field, '100 Main St, Nowhere, OR');
    await user.click(within(dialog).getByRole('button', { name: 'Look up again' }));
    expect(
      await within(dialog).findByText('Still no match for “100 Main St, Nowhere, OR”.'),
    ).toBeInTheDocument();
    expect(api.calls.at(-1)?.body).toEqual({ address: '100 Main St, Nowhere, OR' });
    expect(field).toHaveValue('100 Main St, Nowhere, OR');
    // Focus goes to what the lookup found, so a screen reader says it.
    expect(
      within(dialog)
        .getByText(/^Still no match/)
        .closest('[tabindex="-1"]'),
    ).toHaveFocus();
    expect(within(dialog).getByText(/Row 2 · Ambiguous/)).toBeInTheDocument();

    await user.clear(field);
    await user.type(field, '100 Main St, OR');
    await user.click(within(dialog).getByRole('button', { name: 'Look up again' }));
    expect(await within(dialog).findByText('Showing 1 of 12 candidates')).toBeInTheDocument();
    expect(within(dialog).getByRole('list', { name: 'Candidates' })).toHaveTextContent('Salem, OR');
    expect(within(dialog).queryByText(/Fixed in the review/)).not.toBeInTheDocument();

    // One of what it found is the one: the row is fixed, and the earlier attempt's notice is gone.
    await user.click(within(dialog).getByRole('button', { name: 'Use this one' }));
    expect(await within(dialog).findByText(/Fixed in the review/)).toBeInTheDocument();
    expect(within(dialog).queryByText(/matches more than one property/)).not.toBeInTheDocument();
    expect(api.calls.at(-1)?.body).toEqual({
      address: '100 Main St Apt 1, Salem, OR 97301',
      candidateId: 'c9',
    });
  });

  it('a lookup that cannot be made says why, and keeps the row and what was typed', async () => {
    fakeApi({
      [FIX_PATH]: () =>
        apiError(429, 'rate_limited', 'The rate limit is used up: try again in 40 seconds.', {
          resetAt: '2026-11-01T12:01:00Z',
        }),
    });
    const { user, dialog } = await openAmbiguous();
    const field = within(dialog).getByRole('textbox', { name: 'Address to look up' });
    await user.type(field, ', IL');
    await user.click(within(dialog).getByRole('button', { name: 'Look up again' }));
    const alert = await within(dialog).findByRole('alert');
    expect(alert).toHaveTextContent('The lookup could not be made. The row is unchanged.');
    expect(alert).toHaveTextContent('try again in 40 seconds');
    expect(field).toHaveValue('100 Main St, IL');
    expect(within(dialog).getByRole('list', { name: 'Candidates' })).toHaveTextContent(SPRINGFIELD_IL);
  });

  it('an empty address asks for one and sends nothing', async () => {
    const api = fakeApi({});
    const { user, dialog } = await openAmbiguous();
    await user.clear(within(dialog).getByRole('textbox', { name: 'Address to look up' }));
    await user.click(within(dialog).getByRole('button', { name: 'Look up again' }));
    expect(within(dialog).getByText('Enter the address to look up.')).toBeInTheDocument();
    expect(api.calls).toHaveLength(0);
  });

  it('counts candidates, saying when the service has more than it listed', () => {
    expect(candidateCount(1, undefined)).toBe('1 candidate');
    expect(candidateCount(3, 3)).toBe('3 candidates');
    expect(candidateCount(5, 12)).toBe('Showing 5 of 12 candidates');
  });
});
