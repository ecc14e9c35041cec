import { screen } from '@testing-library/react';
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { CustodyState } from '../../../../contract/custody.ts';
import { fakeApi, json, Route, renderRoutes } from '../../../test/utils.tsx';
import { CustodyOffer, CustodyWaitingNote } from './custody-notes.tsx';

const session = {
  account: { name: 'Harbor & Vale Realty', plan: 'professional' },
  accountId: 'acct-a',
  demo: false,
  keyFingerprint: '3f9a1c2e',
  keyName: null,
};
const off: CustodyState = {
  available: true,
  on: false,
  keyFingerprint: null,
  keyName: null,
  since: null,
  problem: null,
  problemAt: null,
  unavailableReason: null,
};

function show(state: CustodyState, waiting: boolean, minutes: number | null) {
  fakeApi({ 'GET /api/session': () => json(session), 'GET /api/custody': () => json(state) });
  return renderRoutes(
    <Route
      path="/review/r1"
      element={
        <>
          <CustodyWaitingNote waiting={waiting} />
          <CustodyOffer minutes={minutes} />
        </>
      }
    />,
    '/review/r1',
  );
}

afterEach(() => vi.unstubAllGlobals());

describe('custody on the review pages', () => {
  it('a waiting review links to the setting; a long review to start offers it while it is off', async () => {
    show(off, true, 90);
    expect(await screen.findByTestId('custody-offer')).toHaveTextContent(/may outlast your sign-in/);
    const links = screen.getAllByRole('link', { name: "Work while I'm signed out" });
    expect(links).toHaveLength(2);
    for (const link of links) expect(link).toHaveAttribute('href', '/settings#work-while-signed-out');
  });

  it('says the kept key was refused, and when; offers nothing when on or for a short review', async () => {
    const { unmount } = show(
      { ...off, problem: 'refused', problemAt: '2026-11-25T09:30:00.000Z' },
      false,
      30,
    );
    expect(await screen.findByTestId('custody-refused')).toHaveTextContent(
      /^The service refused the stored key on .*2026.*; sign in to resume\.$/,
    );
    expect(screen.queryByTestId('custody-offer')).toBeNull();
    unmount();
    show({ ...off, on: true, keyFingerprint: '3f9a1c2e' }, false, 600);
    await vi.waitFor(() =>
      expect(vi.mocked(fetch).mock.calls.some(([u]) => String(u).includes('/api/custody'))).toBe(true),
    );
    expect(screen.queryByTestId('custody-offer')).toBeNull();
    expect(screen.queryByRole('link')).toBeNull();
  });
});
