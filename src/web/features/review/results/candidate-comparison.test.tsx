import { screen, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { Candidate } from '../../../../contract/index.ts';
import { ApiRequestError } from '../../../lib/api-client.ts';
import { apiError, fakeApi, json, Route, renderRoutes } from '../../../test/utils.tsx';
import { ResolveError } from '../../property/components/resolve-states.tsx';
import { makeProperty } from '../testing/stats.fixtures.ts';
import { CandidateComparison } from './candidate-comparison.tsx';

const SPRINGFIELD: Candidate[] = [
  { id: 'c1', address: '100 Main St, Springfield, IL 62701' },
  { id: 'c2', address: '100 Main St, Springfield, OR 97477' },
  { id: 'c3', address: '100 Main St, Springfield, MA 01103' },
];

const records = {
  [SPRINGFIELD[0]?.address as string]: makeProperty({
    id: 'IL',
    address: '100 MAIN ST, SPRINGFIELD, IL',
    confidence: 'medium',
  }),
  [SPRINGFIELD[1]?.address as string]: makeProperty({
    id: 'OR',
    address: '100 MAIN ST, SPRINGFIELD, OR',
    confidence: 'high',
  }),
  [SPRINGFIELD[2]?.address as string]: makeProperty({
    id: 'MA',
    address: '100 MAIN ST, SPRINGFIELD, MA',
    confidence: 'low',
  }),
};

function resolveApi(known: Record<string, ReturnType<typeof makeProperty>>) {
  return fakeApi({
    'GET /api/properties/resolve': ({ url }) => {
      const p = known[url.searchParams.get('address') ?? ''];
      return p ? json({ property: p, rateLimit: null }) : apiError(502, 'upstream_unavailable', 'Down.');
    },
  });
}

const compareSlot = (candidates: readonly Candidate[], close: () => void) => (
  <CandidateComparison candidates={candidates} onClose={close} />
);

afterEach(() => vi.unstubAllGlobals());

describe('Compare on the search screen', () => {
  it('compares the candidates of an ambiguous search, fetching only the ones chosen', async () => {
    const user = userEvent.setup();
    const api = resolveApi(records);
    const error = new ApiRequestError(409, 'ambiguous', 'More than one.', SPRINGFIELD, null, 3);
    renderRoutes(
      <Route
        path="/search"
        element={
          <ResolveError error={error} address="100 Main St" onRetry={() => {}} renderCompare={compareSlot} />
        }
      />,
      '/search',
    );
    expect(api.calls).toHaveLength(0);
    await user.click(screen.getByRole('button', { name: 'Compare' }));

    const comparison = await screen.findByRole('region', { name: 'Comparison' });
    expect(api.calls.map((c) => c.url.searchParams.get('address'))).toEqual(
      SPRINGFIELD.map((c) => c.address),
    );
    expect(within(comparison).getAllByRole('columnheader')).toHaveLength(4);
    // Three towns' 100 Main St: different properties, side by side, none crowned.
    expect(comparison).toHaveTextContent('These are 3 different properties');

    // Fewer records: no new request, one column less.
    await user.click(screen.getByRole('checkbox', { name: SPRINGFIELD[2]?.address }));
    expect(
      within(screen.getByRole('region', { name: 'Comparison' })).getAllByRole('columnheader'),
    ).toHaveLength(3);
    expect(api.calls).toHaveLength(3);

    await user.click(screen.getByRole('button', { name: 'Close comparison' }));
    expect(screen.queryByRole('region', { name: 'Comparison' })).not.toBeInTheDocument();
    expect(screen.getByRole('button', { name: 'Compare' })).toBeInTheDocument();
  });

  it('compares a building and its units, and says which could not be looked up', async () => {
    const user = userEvent.setup();
    const building = { id: 'b', address: '233 S Wacker Dr, Chicago, IL 60606' };
    const units = [
      building,
      { id: 'u1', address: '233 S Wacker Dr Unit 1, Chicago, IL 60606' },
      { id: 'u2', address: '233 S Wacker Dr Unit 2, Chicago, IL 60606' },
    ];
    resolveApi({
      [building.address]: makeProperty({
        id: 'B',
        address: building.address.toUpperCase(),
        attributes: { unit: null },
      }),
      [units[1]?.address as string]: makeProperty({ id: 'U1', address: 'UNIT 1', attributes: { unit: '1' } }),
    });
    const error = new ApiRequestError(404, 'unit_not_found', 'No such unit.', units);
    renderRoutes(
      <Route
        path="/search"
        element={
          <ResolveError
            error={error}
            address="233 S Wacker Dr Unit 9"
            onRetry={() => {}}
            renderCompare={compareSlot}
          />
        }
      />,
      '/search',
    );
    await user.click(screen.getByRole('button', { name: 'Compare' }));
    const comparison = await screen.findByRole('region', { name: 'Comparison' });
    expect(within(comparison).getByRole('rowheader', { name: /Unit/ })).toHaveTextContent('Differs');
    expect(screen.getByText('Some records could not be looked up')).toBeInTheDocument();
    expect(
      screen.getByText(/233 S Wacker Dr Unit 2, Chicago, IL 60606\. The comparison shows the others\./),
    ).toBeInTheDocument();
  });

  it('offers no Compare for a single candidate', () => {
    const error = new ApiRequestError(404, 'unit_not_found', 'No such unit.', [
      { id: 'b', address: '1 A St' },
    ]);
    renderRoutes(
      <Route
        path="/search"
        element={
          <ResolveError
            error={error}
            address="1 A St Unit 2"
            onRetry={() => {}}
            renderCompare={compareSlot}
          />
        }
      />,
      '/search',
    );
    expect(screen.queryByRole('button', { name: 'Compare' })).not.toBeInTheDocument();
  });
});
