import { screen, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { useState } from 'react';
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { ReviewRowResult, ReviewSummary } from '../../../../contract/index.ts';
import {
  apiError,
  fakeApi,
  json,
  layOutElements,
  location,
  Route,
  renderRoutes,
  signedIn,
} from '../../../test/utils.tsx';
import { makeProperty, makeRow, makeSignOff, makeSummary } from '../testing/stats.fixtures.ts';
import { ReviewResults } from './review-results.tsx';
import { WITHDRAWS_SIGN_OFF } from './sign-off.tsx';

/*
 * Decisions on rows and sign-off (issue 30), as a reviewer makes them on the results: Accept, Reject or Needs
 * follow-up from a row's dialog (with a note, and the history), the same for every ticked row at once ("Accept 3
 * selected"), the Decision filter, the summary's counts, Sign off and Approve.
 */

const NOW = new Date(2026, 10, 1, 12);
const DECIDED = { by: 'ab12cd34', at: '2026-11-01T11:00:00.000Z' };
const ROWS: ReviewRowResult[] = [0, 1, 2, 3].map((i) =>
  makeRow(i, {
    input: `${i + 1} Elm St, Austin, TX`,
    property: makeProperty({ id: `P-${i}`, address: `${i + 1} ELM ST, AUSTIN, TX 78701` }),
  }),
);

function Page({
  rows: initial = ROWS,
  review = makeSummary({ totalRows: 4 }),
}: {
  rows?: ReviewRowResult[];
  review?: ReviewSummary;
}) {
  const [rows, setRows] = useState(initial);
  return (
    <ReviewResults
      review={review}
      accountName="Acme Appraisals"
      rows={rows}
      now={NOW}
      onRowFixed={(r) => setRows((old) => old.map((o) => (o.index === r.index ? r : o)))}
    />
  );
}

const session = () => apiError(401, 'unauthenticated', 'Sign in.');
afterEach(() => vi.unstubAllGlobals());
layOutElements();

describe('decisions on rows', { timeout: 30_000 }, () => {
  it('opens the row its address names (?row=, as Activity links it), and closing it takes the number away', async () => {
    fakeApi({ 'GET /api/session': session });
    const user = userEvent.setup();
    renderRoutes(<Route path="/review/:id" element={<Page />} />, '/review/rev-1?row=2');
    expect(await screen.findByRole('dialog', { name: '2 Elm St, Austin, TX' })).toBeInTheDocument();
    expect(location.search).toBe('?row=2');
    await user.click(within(screen.getByRole('dialog')).getByRole('button', { name: 'Close' }));
    expect(screen.queryByRole('dialog')).toBeNull();
    expect(location.search).toBe('');
  });

  it('decides a row from its dialog with a note, shows who decided, and the earlier decisions', async () => {
    const api = fakeApi({
      'GET /api/session': session,
      'PUT /api/reviews/rev-1/rows/1/decision': ({ body }) =>
        json({ ...ROWS[1], decision: { ...(body as object), ...DECIDED } }),
      'GET /api/reviews/rev-1/rows/1/decisions': () =>
        json({
          history: [
            { decision: 'reject', note: '', ...DECIDED },
            { decision: 'follow_up', note: 'Site visit', ...DECIDED },
          ],
        }),
    });
    const user = userEvent.setup();
    renderRoutes(<Route path="/review/:id" element={<Page />} />, '/review/rev-1');
    await user.click(screen.getByRole('button', { name: '2 Elm St, Austin, TX' }));
    const dialog = screen.getByRole('dialog', { name: '2 Elm St, Austin, TX' });
    const decision = within(dialog).getByRole('region', { name: 'Decision' });
    expect(within(decision).getByTestId('row-decision')).toHaveTextContent('No decision yet.');
    await user.click(within(decision).getByLabelText('Note (optional)'));
    await user.paste('Site visit');
    await user.click(within(decision).getByRole('button', { name: 'Needs follow-up' }));

    expect(api.calls.find((c) => c.method === 'PUT')?.body).toEqual({
      decision: 'follow_up',
      note: 'Site visit',
    });
    await vi.waitFor(() =>
      expect(within(decision).getByTestId('row-decision')).not.toHaveTextContent('No decision yet.'),
    );
    expect(within(decision).getByTestId('row-decision')).toHaveTextContent(
      'Needs follow-up “Site visit”. By key ab12cd34',
    );
    // The table's row says it too, and the summary counts it.
    expect(
      within(screen.getByRole('table', { name: 'Results' })).getAllByText('Needs follow-up'),
    ).toHaveLength(1);
    const counts = screen.getByRole('list', { name: 'Decisions' });
    expect(counts).toHaveTextContent('Needs follow-up: 1');
    expect(counts).toHaveTextContent('No decision yet: 3');

    await user.click(within(decision).getByText('Earlier decisions'));
    const history = await within(decision).findByRole('list', { name: 'Decision history' });
    expect(
      within(history)
        .getAllByRole('listitem')
        .map((li) => li.textContent),
    ).toEqual([
      expect.stringMatching(/^Needs follow-up “Site visit” by key ab12cd34/),
      expect.stringMatching(/^Rejected by key ab12cd34/),
    ]);
  });

  it('decides every ticked row at once ("Accept 3 selected"), and filters by decision', async () => {
    const api = fakeApi({
      'GET /api/session': session,
      'POST /api/reviews/rev-1/decisions': ({ body }) =>
        json({ decided: (body as { rows: number[] }).rows.length }),
    });
    const user = userEvent.setup();
    const rows = ROWS.map((r, i) =>
      i === 3 ? { ...r, decision: { decision: 'reject' as const, note: '', ...DECIDED } } : r,
    );
    renderRoutes(<Route path="/review/:id" element={<Page rows={rows} />} />, '/review/rev-1');
    for (const i of [2, 0, 1])
      await user.click(screen.getByRole('checkbox', { name: `Select ${i + 1} Elm St, Austin, TX` }));
    await user.click(screen.getByRole('button', { name: 'Accept 3 selected' }));
    expect(api.calls.find((c) => c.method === 'POST')?.body).toEqual({ rows: [0, 1, 2], decision: 'accept' });
    expect(await screen.findByText('3 rows decided.')).toBeInTheDocument();
    expect(screen.queryByRole('button', { name: /^Accept .* selected$/ })).not.toBeInTheDocument();

    await user.selectOptions(screen.getByLabelText('Decision'), 'Rejected');
    const table = screen.getByRole('table', { name: 'Results' });
    expect(within(table).getAllByRole('row')).toHaveLength(2);
    expect(within(table).getByRole('button', { name: '4 Elm St, Austin, TX' })).toBeInTheDocument();
    expect(screen.getByText('Decision: Rejected')).toBeInTheDocument();
    await user.selectOptions(screen.getByLabelText('Decision'), 'No decision yet');
    expect(within(table).getAllByRole('row')).toHaveLength(4);
  });
});

describe('sign-off and approval', { timeout: 30_000 }, () => {
  it('asks a reason while rows are undecided, signs off, and shows the refusal of an approval by the same key', async () => {
    const signOff = { by: 'ab12cd34', at: '2026-11-01T11:30:00.000Z', run: 1, approved: null };
    const api = fakeApi({
      'GET /api/session': session,
      'POST /api/reviews/rev-1/sign-off': ({ body }) =>
        json(
          makeSummary({ totalRows: 4, signOff: { ...signOff, reason: (body as { reason: string }).reason } }),
        ),
      'POST /api/reviews/rev-1/approve': () =>
        apiError(
          409,
          'conflict',
          'You signed this review off: another key of the account approves it, so two people have looked.',
        ),
    });
    const user = userEvent.setup();
    renderRoutes(<Route path="/review/:id" element={<Page />} />, '/review/rev-1');
    const panel = screen.getByRole('region', { name: 'Sign-off' });
    expect(panel).toHaveTextContent('4 rows have no decision yet');
    await user.type(
      within(panel).getByLabelText('Reason for signing off with rows undecided'),
      'Valuer has them',
    );
    await user.click(within(panel).getByRole('button', { name: 'Sign off' }));
    expect(api.calls.find((c) => c.url.pathname.endsWith('/sign-off'))?.body).toEqual({
      reason: 'Valuer has them',
    });
    expect(await within(panel).findByTestId('signed-off')).toHaveTextContent(
      /Signed off on run 1 by key ab12cd34, .* \(rows left undecided: “Valuer has them”\)\.$/,
    );
    await user.click(within(panel).getByRole('button', { name: 'Approve' }));
    expect(
      await within(panel).findByText(/another key of the account approves it, so two people have looked/),
    ).toBeInTheDocument();
  });

  it('asks for the reason itself when rows are undecided and none is given, sending nothing', async () => {
    const api = fakeApi({ 'GET /api/session': session });
    const user = userEvent.setup();
    renderRoutes(<Route path="/review/:id" element={<Page />} />, '/review/rev-1');
    const panel = screen.getByRole('region', { name: 'Sign-off' });
    await user.click(within(panel).getByRole('button', { name: 'Sign off' }));
    const field = within(panel).getByLabelText('Reason for signing off with rows undecided');
    expect(field).toHaveAttribute('aria-invalid', 'true');
    expect(field).toHaveAccessibleDescription(
      'Write the reason, or decide the rows first. Shown with the sign-off, on the printout and in the export.',
    );
    expect(field).toHaveFocus();
    expect(api.calls.some((c) => c.url.pathname.endsWith('/sign-off'))).toBe(false);
    // A reason typed answers it: the field is no longer marked.
    await user.type(field, 'Valuer has them');
    expect(field).not.toHaveAttribute('aria-invalid');
    expect(within(panel).queryByText('Write the reason, or decide the rows first.')).toBeNull();
  });

  it('warns that a decision withdraws the sign-off, then says it was withdrawn', async () => {
    fakeApi({ 'GET /api/session': session });
    const signOff = makeSignOff();
    const user = userEvent.setup();
    // The page as its live view gives it summaries: the next one after the decision has no sign-off.
    function Withdrawing() {
      const [review, setReview] = useState(makeSummary({ totalRows: 4, signOff }));
      return (
        <>
          <button type="button" onClick={() => setReview(makeSummary({ totalRows: 4 }))}>
            Next summary
          </button>
          <Page review={review} />
        </>
      );
    }
    renderRoutes(<Route path="/review/:id" element={<Withdrawing />} />, '/review/rev-1');
    const table = screen.getByRole('table', { name: 'Results' });
    await user.click(within(table).getByRole('checkbox', { name: 'Select 1 Elm St, Austin, TX' }));
    expect(screen.getByText(WITHDRAWS_SIGN_OFF)).toBeInTheDocument();
    await user.click(screen.getByRole('button', { name: 'Next summary' }));
    const panel = screen.getByRole('region', { name: 'Sign-off' });
    expect(within(panel).getByRole('status')).toHaveTextContent(
      'The sign-off of run 1, and its approval, was withdrawn: a row’s decision or answer changed after it.',
    );
  });

  it('does not offer Approve to the key that signed off', async () => {
    const signOff = makeSignOff({ approved: null });
    fakeApi({
      'GET /api/session': signedIn({ keyFingerprint: 'ab12cd34', keyName: null }),
    });
    renderRoutes(
      <Route path="/review/:id" element={<Page review={makeSummary({ totalRows: 4, signOff })} />} />,
      '/review/rev-1',
    );
    const panel = screen.getByRole('region', { name: 'Sign-off' });
    expect(
      await within(panel).findByText('You signed it off: approving it is for another key of the account.'),
    ).toBeInTheDocument();
    expect(within(panel).queryByRole('button', { name: 'Approve' })).not.toBeInTheDocument();
  });

  it('shows who approved, on the page and in the printout, and the run signed off with the run since', () => {
    fakeApi({ 'GET /api/session': session });
    const run = (number: number) => ({
      number,
      startedAt: '2026-11-01T10:00:00.000Z',
      finishedAt: '2026-11-01T10:05:00.000Z',
      counts: { total: 4, done: 4, matched: 4, notFound: 0, ambiguous: 0, failed: 0 },
    });
    const review = makeSummary({
      totalRows: 4,
      runs: [run(1), run(2)],
      signOff: makeSignOff(),
    });
    renderRoutes(<Route path="/review/:id" element={<Page review={review} />} />, '/review/rev-1');
    const panel = screen.getByRole('region', { name: 'Sign-off' });
    expect(within(panel).getByTestId('signed-off')).toHaveTextContent(
      /^Signed off on run 1 by key ab12cd34, .*\. Run 2 since: no row’s answer changed\.$/,
    );
    expect(within(panel).getByTestId('approved')).toHaveTextContent(/^Approved by key cd34ef56, /);
    expect(within(panel).queryByRole('button', { name: 'Approve' })).not.toBeInTheDocument();
    // The printed header says it as well (two: the page's and the printout's).
    expect(screen.getAllByTestId('approved')).toHaveLength(2);
  });
});
