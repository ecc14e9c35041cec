import { screen } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { Property } from '../../../../contract/index.ts';
import { fakeApi, json, Route, renderRoutes } from '../../../test/utils.tsx';
import { BuildingUnits } from './building-units.tsx';

const BUILDING = '615 Bourbon St, New Orleans, LA 70116';
const record = (id: string, address: string, attributes: Property['attributes'] = {}): Property => ({
  id,
  address,
  source: 'Orleans Parish Assessor',
  sourceKind: 'assessor',
  confidence: 'high',
  lastVerified: '2026-10-01',
  attributes,
});

const render = (property: Property) =>
  renderRoutes(<Route path="/search" element={<BuildingUnits property={property} />} />, '/search');

const searches = (api: ReturnType<typeof fakeApi>) =>
  api.calls
    .filter((c) => c.url.pathname === '/api/properties/search')
    .map((c) => c.url.searchParams.get('q'));

afterEach(() => vi.unstubAllGlobals());

describe('a building with units of its own', () => {
  it('says how many, and lists them only when asked (the list costs a lookup)', async () => {
    const api = fakeApi({
      'GET /api/properties/search': () =>
        json({
          items: [
            record('b', BUILDING, { unitCount: 2 }),
            record('u1', '615 Bourbon St Apt 1, New Orleans, LA 70116', { unit: '1' }),
            record('u2', '615 Bourbon St Apt 2, New Orleans, LA 70116', { unit: '2' }),
          ],
          rateLimit: null,
        }),
    });
    render(record('b', BUILDING, { unitCount: 2 }));
    expect(screen.getByRole('heading', { name: 'This building has 2 units on record' })).toBeInTheDocument();
    expect(searches(api)).toEqual([]);
    await userEvent.click(screen.getByRole('button', { name: 'Show them' }));
    const list = await screen.findByRole('list', { name: `Units of ${BUILDING}` });
    expect(list.querySelectorAll('li')).toHaveLength(2);
    expect(
      screen.getByRole('link', { name: '615 Bourbon St Apt 2, New Orleans, LA 70116' }),
    ).toBeInTheDocument();
    expect(searches(api)).toEqual([BUILDING]);
  });

  it('says so when the service lists none of them', async () => {
    fakeApi({
      'GET /api/properties/search': () => json({ items: [record('b', BUILDING)], rateLimit: null }),
    });
    render(record('b', BUILDING, { unitCount: 3 }));
    await userEvent.click(screen.getByRole('button', { name: 'Show them' }));
    expect(
      await screen.findByText('The service listed none of the units for this address.'),
    ).toBeInTheDocument();
  });

  it('says nothing for a unit, or a record that states no units', () => {
    const { container } = render(
      record('u', '615 Bourbon St Apt 1, New Orleans, LA 70116', { unit: '1', unitCount: 2 }),
    );
    expect(container).toBeEmptyDOMElement();
  });
});
