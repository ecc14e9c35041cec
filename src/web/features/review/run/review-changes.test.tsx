import { render, screen } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { describe, expect, it } from 'vitest';
import { makeProperty, makeRow } from '../testing/stats.fixtures.ts';
import { ReviewChanges } from './review-changes.tsx';

const counts = { total: 3, done: 3, matched: 3, notFound: 0, ambiguous: 0, failed: 0 };
const previous = { number: 1, startedAt: '2026-11-01T09:00:00Z', finishedAt: '2026-11-01T09:10:00Z', counts };

describe('Changes since …', () => {
  it('lists the changed records in a region the keyboard reaches and a screen reader names', async () => {
    const rows = Array.from({ length: 3 }, (_, i) =>
      makeRow(i, {
        property: makeProperty({ id: `p${i}`, confidence: 'low' }),
        previous: {
          outcome: 'matched',
          propertyId: `p${i}`,
          source: 'A Assessor',
          confidence: 'high',
          lastVerified: '2026-01-01',
        },
      }),
    );
    render(
      <>
        <button type="button">Before</button>
        <ReviewChanges previous={previous} rows={rows} />
      </>,
    );
    const list = screen.getByRole('list', { name: 'Changed records' });
    expect(list.children).toHaveLength(3);
    await userEvent.click(screen.getByRole('button', { name: 'Before' }));
    await userEvent.tab();
    expect(list).toHaveFocus();
    expect(screen.getByRole('region', { name: /Changes since/ })).toHaveTextContent(
      '3 records changed: 3 another source, 3 confidence down',
    );
  });
});
