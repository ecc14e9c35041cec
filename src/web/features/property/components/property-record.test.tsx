import { render, screen, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { Property } from '../../../../contract/index.ts';
import { MatchNotice } from './match-notice.tsx';
import { PropertyRecord, reliabilitySentence, retrievedLine } from './property-record.tsx';

const now = new Date(2026, 10, 21, 15, 0);
const record = (over: Partial<Property> = {}): Property => ({
  id: 'pi_1oesttw0',
  address: '1100 Congress Ave, Austin, TX 78701',
  source: 'Travis Central Appraisal District',
  sourceKind: 'assessor',
  confidence: 'high',
  lastVerified: '2026-11-09',
  attributes: {
    county: 'Travis County',
    yearBuilt: 1898,
    assessedValue: 276900,
    livingAreaSqft: 2430,
    lotSizeSqft: 87120,
    other: { flood_zone: 'X' },
  },
  ...over,
});

describe('the record', () => {
  it('shows the three badges in words, each with a description for assistive technology', () => {
    render(<PropertyRecord property={record()} now={now} />);
    const badges = within(screen.getByRole('list', { name: 'Reliability' }));
    expect(badges.getByText('High confidence')).toBeInTheDocument();
    expect(badges.getByText('Travis Central Appraisal District')).toBeInTheDocument();
    expect(badges.getByText('· Assessor record')).toBeInTheDocument();
    expect(badges.getByText(/Verified 12 days ago/)).toBeInTheDocument();
    const tooltips = screen.getAllByRole('tooltip', { hidden: true });
    expect(tooltips.map((t) => t.textContent).join(' ')).toMatch(/Last verified on November 9, 2026/);
    expect(tooltips.map((t) => t.textContent).join(' ')).toMatch(/source and how recently/);
  });

  it.each([
    ['high', 'High confidence'],
    ['medium', 'Medium confidence'],
    ['low', 'Low confidence'],
  ] as const)('labels %s confidence as "%s"', (level, text) => {
    render(<PropertyRecord property={record({ confidence: level })} now={now} />);
    expect(screen.getByText(text)).toBeInTheDocument();
  });

  it.each([
    ['2026-08-23', 'fresh', 'Verified 3 months ago'],
    ['2026-08-22', 'ageing', 'Verified over 3 months ago'],
    ['2025-11-21', 'ageing', 'Verified 12 months ago'],
    ['2025-11-20', 'stale', 'Verified over a year ago'],
  ])('puts a record verified on %s in the %s tier', (date, tier, text) => {
    const { container } = render(<PropertyRecord property={record({ lastVerified: date })} now={now} />);
    expect(container.querySelector(`[data-tier="${tier}"]`)).toHaveTextContent(text);
    expect(container.querySelector(`[data-tier="${tier}"]`)).toHaveTextContent(
      `(${tier === 'ageing' ? 'aging' : tier})`,
    );
  });

  it('sums reliability up in one sentence, with a warning when stale or low', () => {
    expect(reliabilitySentence(record(), 12)).toBe(
      'High confidence: from Travis Central Appraisal District, verified 12 days ago.',
    );
    expect(reliabilitySentence(record({ confidence: 'low' }), 12)).toMatch(/Confirm it independently/);
    expect(reliabilitySentence(record({ confidence: 'medium' }), 800)).toMatch(/over a year old/);
  });

  it('formats the attributes: currency, areas with acres, and fields it does not know', () => {
    render(<PropertyRecord property={record()} now={now} />);
    expect(screen.getByText('$276,900')).toBeInTheDocument();
    expect(screen.getByText('2,430 sq ft')).toBeInTheDocument();
    expect(screen.getByText('87,120 sq ft (2.00 acres)')).toBeInTheDocument();
    expect(screen.getByText('Flood zone')).toBeInTheDocument();
  });

  it('says "Demo data" on a record of the built-in reference service, and only there', () => {
    const { unmount } = render(<PropertyRecord property={record()} now={now} demo />);
    expect(screen.getByText('Demo data')).toBeInTheDocument();
    unmount();
    render(<PropertyRecord property={record()} now={now} />);
    expect(screen.queryByText('Demo data')).not.toBeInTheDocument();
  });

  it('renders untrusted text as text, never as markup', () => {
    const { container } = render(
      <PropertyRecord property={record({ source: '<img src=x onerror=alert(1)>' })} now={now} />,
    );
    expect(container.querySelector('img')).toBeNull();
    expect(screen.getAllByText(/<img src=x/).length).toBeGreaterThan(0);
  });
});

describe('the record as evidence', () => {
  afterEach(() => vi.unstubAllEnvs());

  it('"Copy ID" copies the identifier and says what it is for', async () => {
    const user = userEvent.setup();
    render(<PropertyRecord property={record()} now={now} />);
    const button = screen.getByRole('button', { name: 'Copy ID' });
    expect(button).toHaveAccessibleDescription(
      'The service’s identifier for this record: paste it into the search to open it again.',
    );
    await user.click(button);
    expect(await navigator.clipboard.readText()).toBe('pi_1oesttw0');
    expect(screen.getByRole('status')).toHaveTextContent('Copied');
  });

  it('"Copy ID" says how to copy by hand when the browser refuses', async () => {
    const user = userEvent.setup();
    render(<PropertyRecord property={record()} now={now} />);
    vi.spyOn(navigator.clipboard, 'writeText').mockRejectedValue(new Error('denied'));
    await user.click(screen.getByRole('button', { name: 'Copy ID' }));
    expect(screen.getByRole('status')).toHaveTextContent('Copy failed: select the ID and copy it');
  });

  it('says when and for which account it was retrieved, in en-US with the time zone', () => {
    vi.stubEnv('TZ', 'America/Chicago');
    const at = new Date('2026-11-21T21:04:00Z');
    expect(retrievedLine(at, 'Harbor & Vale Realty')).toBe(
      'Retrieved at 3:04 PM CST on November 21, 2026 by Harbor & Vale Realty.',
    );
    render(<PropertyRecord property={record()} now={now} retrieved={{ at, by: 'Harbor & Vale Realty' }} />);
    expect(
      screen.getByText(/Retrieved at 3:04 PM CST on November 21, 2026 by Harbor & Vale Realty\./),
    ).toBeVisible();
  });

  it('marks the record for the print stylesheet', () => {
    const { container } = render(<PropertyRecord property={record()} now={now} />);
    expect(container.querySelector('article[data-print-record]')).toBe(screen.getByRole('article'));
  });
});

describe('the match explanation', () => {
  const match = {
    typed: '1100 Congres Ave, Austn, TX',
    matched: '1100 Congress Ave, Austin, TX 78701',
    changes: [
      { kind: 'corrected', part: 'street', typed: 'Congres', matched: 'Congress' },
      { kind: 'corrected', part: 'city', typed: 'Austn', matched: 'Austin' },
      { kind: 'added', part: 'zip', typed: '', matched: '78701' },
    ],
  } as const;

  it('says a correction was made, to what, each change, and what was typed', () => {
    render(<MatchNotice match={{ ...match, changes: [...match.changes] }} />);
    const notice = screen.getByRole('region', { name: 'How the address was matched' });
    expect(notice).toHaveTextContent(
      'Matched after correcting what was typed: 1100 Congress Ave, Austin, TX 78701',
    );
    expect(notice).toHaveTextContent('corrected: Congres → Congress, Austn → Austin; added: ZIP 78701.');
    expect(notice).toHaveTextContent('You typed: “1100 Congres Ave, Austn, TX”');
  });

  it('only added parts: says they were added, without calling it a correction', () => {
    render(
      <MatchNotice
        match={{ typed: '1100 Congress Ave, Austin TX', matched: match.matched, changes: [match.changes[2]] }}
      />,
    );
    const notice = screen.getByRole('region', { name: 'How the address was matched' });
    expect(notice).toHaveTextContent(
      'Matched, with parts the service added: 1100 Congress Ave, Austin, TX 78701',
    );
    expect(notice).toHaveTextContent('added: ZIP 78701.');
    expect(notice).not.toHaveTextContent(/correct/);
  });
});
