import { screen } from '@testing-library/react';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { resetAccountScope } from '../../lib/account-scope.ts';
import { fakeApi, json, Route, renderRoutes } from '../../test/utils.tsx';
import { ProtectedLayout } from '../layouts.tsx';
import { ReviewRoute } from './review.tsx';

// "Review this area" on the search screen's ZIP listing links to /review?area=<ZIP>.
const routes = (
  <Route element={<ProtectedLayout />}>
    <Route path="/review" element={<ReviewRoute />} />
  </Route>
);
const session = () =>
  json({ account: { name: 'Harbor & Vale Realty', plan: 'professional' }, accountId: 'acct-a', demo: false });

beforeEach(() => {
  localStorage.clear();
  resetAccountScope();
});
afterEach(() => vi.unstubAllGlobals());

describe('starting a review from an area link', () => {
  it('opens the area panel with the ZIP code filled in', async () => {
    fakeApi({ 'GET /api/session': session, 'GET /api/reviews': () => json({ reviews: [] }) });
    renderRoutes(routes, '/review?area=78701');
    expect(await screen.findByRole('radio', { name: 'An area' })).toBeChecked();
    expect(screen.getByRole('textbox', { name: 'ZIP code' })).toHaveValue('78701');
  });

  it('ignores an area that is not a ZIP code', async () => {
    fakeApi({ 'GET /api/session': session, 'GET /api/reviews': () => json({ reviews: [] }) });
    renderRoutes(routes, '/review?area=<script>');
    expect(await screen.findByRole('radio', { name: 'Paste' })).toBeChecked();
    expect(screen.getByRole('textbox', { name: 'ZIP code', hidden: true })).toHaveValue('');
  });
});
