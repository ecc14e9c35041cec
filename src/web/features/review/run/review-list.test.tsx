import { screen, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { fakeApi, Route, renderRoutes, signedIn } from '../../../test/utils.tsx';
import { makeSignOff, makeSummary } from '../testing/stats.fixtures.ts';
import { ReviewList } from './review-list.tsx';

afterEach(() => vi.unstubAllGlobals());

describe('the review list', () => {
  it('says which reviews are signed off and approved, and what deleting one takes with it', async () => {
    fakeApi({ 'GET /api/session': signedIn() });
    const signOff = makeSignOff();
    const reviews = [
      makeSummary({ id: 'rv_a', name: 'Approved tape', totalRows: 4, signOff }),
      makeSummary({
        id: 'rv_b',
        name: 'Signed tape',
        totalRows: 4,
        signOff: makeSignOff({ approved: null }),
      }),
      makeSummary({ id: 'rv_c', name: 'Open tape', totalRows: 4 }),
    ];
    renderRoutes(
      <Route path="/review" element={<ReviewList reviews={reviews} accountId="acct-a" />} />,
      '/review',
    );
    const item = (name: string) => screen.getByRole('link', { name }).closest('li') as HTMLElement;
    expect(item('Approved tape')).toHaveTextContent('Signed off and approved');
    expect(item('Signed tape')).toHaveTextContent('Signed off');
    expect(item('Signed tape')).not.toHaveTextContent('approved');
    expect(item('Open tape')).not.toHaveTextContent('Signed off');
    await userEvent.click(
      within(item('Approved tape')).getByRole('button', { name: 'Delete review Approved tape' }),
    );
    expect(
      screen.getByText(
        'Delete it and its results for everyone in the account, its sign-off and approval with them?',
      ),
    ).toBeInTheDocument();
  });
});
