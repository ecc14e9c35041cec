import { render, screen, within } from '@testing-library/react';
import { MemoryRouter } from 'react-router';
import { describe, expect, it } from 'vitest';
import type { AuditEntry } from '../../../../contract/index.ts';
import { AuditTable } from './audit-table.tsx';

const action = (id: number, kind: AuditEntry['kind'], who: string): AuditEntry => ({
  id: String(id),
  at: new Date(Date.UTC(2026, 10, 24, 10, 0, id)).toISOString(),
  kind,
  keyFingerprint: who,
  session: 's1',
  query: 'Q4 loan tape',
  outcome: 'ok',
  propertyId: null,
  source: null,
  confidence: null,
  lastVerified: null,
  cached: false,
  cachedAt: null,
  upstreamRequestId: null,
  reviewId: 'rv_1',
  row: null,
});

describe('the Activity table', () => {
  it('names a review paused, resumed or cancelled, with a link to the review and who did it', () => {
    render(
      <MemoryRouter>
        <AuditTable
          entries={[
            action(3, 'review_cancelled', 'aaaa1111'),
            action(2, 'review_resumed', 'bbbb2222'),
            { ...action(1, 'review_row', 'aaaa1111'), outcome: 'matched', row: 0 },
          ]}
        />
      </MemoryRouter>,
    );
    const rows = within(screen.getByRole('table', { name: 'Activity' }))
      .getAllByRole('row')
      .slice(1);
    expect(
      rows.map((r) =>
        within(r)
          .getAllByRole('cell')
          .slice(1, 4)
          .map((c) => c.textContent),
      ),
    ).toEqual([
      ['key aaaa1111', 'Review cancelledQ4 loan tapethe review', 'OK'],
      ['key bbbb2222', 'Review resumedQ4 loan tapethe review', 'OK'],
      ['key aaaa1111', 'Review rowQ4 loan taperow 1 of a review', 'Matched'],
    ]);
    // Each entry of a review links to it; a row is numbered from 1, as the review numbers it.
    expect(screen.getByRole('link', { name: 'row 1 of a review' })).toHaveAttribute('href', '/review/rv_1');
    expect(screen.getAllByRole('link', { name: 'the review' })).toHaveLength(2);
  });

  it('says which lookups were made unattended, on the key kept for work while signed out', () => {
    render(
      <MemoryRouter>
        <AuditTable
          entries={[
            { ...action(2, 'review_row', 'aaaa1111'), session: 'unattended', outcome: 'matched', row: 1 },
            { ...action(1, 'review_row', 'aaaa1111'), outcome: 'matched', row: 0 },
          ]}
        />
      </MemoryRouter>,
    );
    const [unattended, attended] = within(screen.getByRole('table', { name: 'Activity' }))
      .getAllByRole('row')
      .slice(1);
    expect(unattended).toHaveTextContent('Review row · unattended, on the kept key');
    expect(attended).not.toHaveTextContent('unattended');
  });
});
