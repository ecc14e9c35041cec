import { useInfiniteQuery } from '@tanstack/react-query';
import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { AuditEntry } from '../../../../contract/index.ts';
import { fakeApi, json, Route, renderRoutes } from '../../../test/utils.tsx';
import { auditQueryOptions, NO_AUDIT_FILTERS } from '../api/get-audit-entries.ts';
import { AuditEntryList } from './audit-entry-list.tsx';

const entry = (id: number): AuditEntry => ({
  id: String(id),
  at: new Date(Date.UTC(2026, 10, 24, 10, 0, id)).toISOString(),
  kind: 'resolve',
  keyFingerprint: '3f9a1c2e',
  session: 's1',
  query: `${id} Zq Ave, Austin TX`,
  outcome: 'matched',
  propertyId: `P${id}`,
  source: null,
  confidence: null,
  lastVerified: null,
  cached: false,
  cachedAt: null,
  upstreamRequestId: null,
  reviewId: null,
  row: null,
});

function Entries() {
  const list = useInfiniteQuery(auditQueryOptions('acct-a', { ...NO_AUDIT_FILTERS, q: 'zq' }));
  return <AuditEntryList list={list} names={undefined} />;
}

afterEach(() => vi.unstubAllGlobals());

describe('the Activity entries of a text filter that searched part of the trail', () => {
  it('says how far back it searched, never "no activity", and searches on from there', async () => {
    fakeApi({
      'GET /api/activity': ({ url }) =>
        url.searchParams.get('cursor') === '900'
          ? json({ entries: [entry(7)], nextCursor: '500', searchedBackTo: '2026-11-20T08:00:00.000Z' })
          : url.searchParams.get('cursor') === '500'
            ? json({ entries: [entry(3)], nextCursor: null, searchedBackTo: null })
            : json({ entries: [], nextCursor: '900', searchedBackTo: '2026-11-23T09:30:00.000Z' }),
    });
    renderRoutes(<Route path="/activity" element={<Entries />} />, '/activity');
    expect(
      await screen.findByText('None found yet: searched the entries after Nov 23, 2026, 9:30:00 AM UTC.'),
    ).toBeInTheDocument();
    expect(screen.queryByText('No activity matches these filters.')).not.toBeInTheDocument();
    await userEvent.click(screen.getByRole('button', { name: 'Search older entries' }));
    expect(
      await screen.findByText('1 found so far: searched the entries after Nov 20, 2026, 8:00:00 AM UTC.'),
    ).toBeInTheDocument();
    expect(within(screen.getByRole('table', { name: 'Activity' })).getAllByRole('row')).toHaveLength(2);
    await userEvent.click(screen.getByRole('button', { name: 'Search older entries' }));
    await waitFor(() =>
      expect(within(screen.getByRole('table', { name: 'Activity' })).getAllByRole('row')).toHaveLength(3),
    );
    expect(screen.queryByText(/searched the entries after/)).not.toBeInTheDocument();
    expect(screen.getByText('That is the oldest entry kept.')).toBeInTheDocument();
  });

  it('says none match once the whole trail was searched', async () => {
    fakeApi({ 'GET /api/activity': () => json({ entries: [], nextCursor: null, searchedBackTo: null }) });
    renderRoutes(<Route path="/activity" element={<Entries />} />, '/activity');
    expect(await screen.findByText('No activity matches these filters.')).toBeInTheDocument();
  });
});
