import { render, screen, within } from '@testing-library/react';
import { MemoryRouter } from 'react-router';
import { afterEach, describe, expect, it, vi } from 'vitest';
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

/** A lookup that found a record, as a search or a review's row records it. */
const lookup = (id: number, over: Partial<AuditEntry> = {}): AuditEntry => ({
  ...action(id, 'resolve', 'aaaa1111'),
  query: '1100 Congress Ave, Austin, TX 78701',
  outcome: 'matched',
  propertyId: 'pi_1oesttw0',
  source: 'Travis Central Appraisal District',
  confidence: 'high',
  lastVerified: '2024-08-23',
  reviewId: null,
  ...over,
});

/** Today for the age of a verification: 24 November 2026, where the reader is. */
const NOW = new Date(2026, 10, 24, 12);

const bodyRows = () =>
  within(screen.getByRole('table', { name: 'Activity' }))
    .getAllByRole('row')
    .slice(1);

/** The cell under a column, found by its header's words. */
function cellUnder(row: HTMLElement, header: string): HTMLElement {
  const headers = within(screen.getByRole('table', { name: 'Activity' })).getAllByRole('columnheader');
  const index = headers.findIndex((h) => h.textContent === header);
  return within(row).getAllByRole('cell')[index] as HTMLElement;
}

afterEach(() => vi.unstubAllGlobals());

describe('the Activity table', () => {
  it('names who started a review when another key made its row’s lookup, by name where the key has one', () => {
    const row = (id: number, owner: string) =>
      lookup(id, { kind: 'review_row', reviewId: 'rv_1', row: id, reviewOwner: owner });
    render(
      <MemoryRouter>
        <AuditTable
          entries={[row(1, 'bbbb2222'), row(2, 'cccc3333'), row(3, 'aaaa1111')]}
          names={new Map([['bbbb2222', 'Dana Ortiz']])}
          now={NOW}
        />
      </MemoryRouter>,
    );
    const [named, unnamed, own] = bodyRows() as [HTMLElement, HTMLElement, HTMLElement];
    expect(cellUnder(named, 'What was asked')).toHaveTextContent('started by Dana Ortiz (key bbbb2222)');
    expect(cellUnder(unnamed, 'What was asked')).toHaveTextContent(/started by key cccc3333$/);
    // The key that made the lookup started the review itself: nothing more to say.
    expect(cellUnder(own, 'What was asked')).not.toHaveTextContent('started by');
  });

  it('names a review paused, resumed or cancelled, with a link to the review and who did it', () => {
    render(
      <MemoryRouter>
        <AuditTable
          entries={[
            action(3, 'review_cancelled', 'aaaa1111'),
            action(2, 'review_resumed', 'bbbb2222'),
            { ...action(1, 'review_row', 'aaaa1111'), query: '100 Main St', outcome: 'matched', row: 0 },
          ]}
        />
      </MemoryRouter>,
    );
    expect(
      bodyRows().map((r) =>
        within(r)
          .getAllByRole('cell')
          .slice(1, 4)
          .map((c) => c.textContent),
      ),
    ).toEqual([
      ['key aaaa1111', 'Review cancelled review “Q4 loan tape”', 'OK'],
      ['key bbbb2222', 'Review resumed review “Q4 loan tape”', 'OK'],
      ['key aaaa1111', 'Review row 100 Main St row 1 of review rv_1', 'Matched'],
    ]);
    // Each entry of a review links to it, a row's to that row; a row is numbered from 1, as the review numbers it.
    expect(screen.getByRole('link', { name: 'row 1 of review rv_1' })).toHaveAttribute(
      'href',
      '/review/rv_1?row=1',
    );
    const named = screen.getAllByRole('link', { name: 'review “Q4 loan tape”' });
    expect(named).toHaveLength(2);
    for (const link of named) expect(link).toHaveAttribute('href', '/review/rv_1');
  });

  it('says which review a row was of: by the id the entry holds, linked, never "a review"', () => {
    render(
      <MemoryRouter>
        <AuditTable
          entries={[
            { ...action(2, 'review_row_excluded', 'aaaa1111'), reviewId: 'rv_Q3tape', query: 'dup', row: 12 },
            { ...lookup(1), kind: 'review_row', reviewId: 'rv_Q3tape', row: 12 },
          ]}
        />
      </MemoryRouter>,
    );
    const [excluded, looked] = bodyRows() as [HTMLElement, HTMLElement];
    // The reason an exclusion gave stays what was asked; the review is named by its id (the entry has no name).
    expect(cellUnder(excluded, 'What was asked')).toHaveTextContent(
      'Row excluded dup row 13 of review rv_Q3tape',
    );
    expect(within(looked).getByRole('link', { name: 'row 13 of review rv_Q3tape' })).toHaveAttribute(
      'href',
      '/review/rv_Q3tape?row=13',
    );
    expect(screen.getByRole('table', { name: 'Activity' })).not.toHaveTextContent('of a review');
  });

  it('says when a record was verified as the record does: its age, and the exact day', () => {
    render(
      <MemoryRouter>
        <AuditTable
          now={NOW}
          entries={[lookup(2), lookup(1, { lastVerified: '2026-11-09' }), lookup(0, { lastVerified: null })]}
        />
      </MemoryRouter>,
    );
    const [old, recent, none] = bodyRows().map((r) => cellUnder(r, 'Verified')) as HTMLElement[];
    expect(old).toHaveTextContent('2 years ago August 23, 2024');
    expect(old?.querySelector('time')).toHaveAttribute('datetime', '2024-08-23');
    expect(recent).toHaveTextContent('15 days ago November 9, 2026');
    expect(none).toHaveTextContent('—');
    expect(screen.getByRole('table', { name: 'Activity' })).not.toHaveTextContent('2024-08-23');
  });

  it('says when each entry was made, in UTC, with the moment for machines', () => {
    render(
      <MemoryRouter>
        <AuditTable entries={[lookup(3)]} />
      </MemoryRouter>,
    );
    const time = cellUnder(bodyRows()[0] as HTMLElement, 'Time');
    expect(time).toHaveTextContent('Nov 24, 2026, 10:00:03 AM UTC');
    expect(time.querySelector('time')).toHaveAttribute('datetime', '2026-11-24T10:00:03.000Z');
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
    const [unattended, attended] = bodyRows();
    expect(unattended).toHaveTextContent('Review row · unattended, on the kept key');
    expect(attended).not.toHaveTextContent('unattended');
  });
});

describe('the Activity entries on a phone', () => {
  it('are a list of one entry each, saying what was asked and what came back, with no table to scroll', () => {
    vi.stubGlobal('matchMedia', (query: string) => ({
      matches: query === '(max-width: 639px)',
      media: query,
      addEventListener: () => {},
      removeEventListener: () => {},
    }));
    render(
      <MemoryRouter>
        <AuditTable
          now={NOW}
          entries={[
            lookup(2, { cached: true, cachedAt: '2026-11-24T09:00:00.000Z' }),
            { ...action(1, 'review_row', 'aaaa1111'), query: '100 Main St', outcome: 'not_found', row: 4 },
          ]}
        />
      </MemoryRouter>,
    );
    expect(screen.queryByRole('table')).not.toBeInTheDocument();
    const [found, missed] = within(screen.getByRole('list', { name: 'Activity' })).getAllByRole('listitem');
    const facts = (item: HTMLElement | undefined) =>
      Object.fromEntries(
        within(item as HTMLElement)
          .getAllByRole('term')
          .map((t) => [t.textContent, t.nextElementSibling?.textContent]),
      );
    expect(found).toHaveTextContent('Nov 24, 2026, 10:00:02 AM UTC');
    expect(found).toHaveTextContent('key aaaa1111');
    expect(found).toHaveTextContent('Lookup 1100 Congress Ave, Austin, TX 78701');
    expect(facts(found)).toEqual({
      Outcome: 'Matched',
      Record: 'pi_1oesttw0',
      Source: 'Travis Central Appraisal District',
      Confidence: 'high',
      Verified: '2 years ago August 23, 2024',
      Cached: 'Yes fetched Nov 24, 2026, 9:00:00 AM UTC',
    });
    expect(missed).toHaveTextContent('Review row 100 Main St row 5 of review rv_1');
    expect(facts(missed)).toEqual({ Outcome: 'Not found' });
    expect(within(missed as HTMLElement).getByRole('link', { name: 'row 5 of review rv_1' })).toHaveAttribute(
      'href',
      '/review/rv_1?row=5',
    );
  });
});
