import { act, render, screen } from '@testing-library/react';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { publishRateLimit, resetRateLimit } from '../../../lib/rate-limit-store.ts';
import { RateLimitMeter } from './rate-limit-meter.tsx';

beforeEach(() => vi.useFakeTimers({ now: new Date('2026-11-21T12:00:00Z') }));
afterEach(() => {
  act(() => resetRateLimit());
  vi.useRealTimers();
});

describe('the rate-limit meter', () => {
  it('shows nothing until the BFF has reported a budget', () => {
    const { container } = render(<RateLimitMeter />);
    expect(container).toBeEmptyDOMElement();
  });

  it('says in words what is left and when it resets, counting down, then shows the window full again', () => {
    render(<RateLimitMeter />);
    act(() =>
      publishRateLimit({ limit: 60, remaining: 58, resetAt: '2026-11-21T12:00:42.000Z', windowS: 60 }),
    );
    expect(screen.getByText('58 of 60 lookups left · resets in 42 s')).toBeInTheDocument();
    const meter = screen.getByRole('meter', { name: 'Lookups left' }) as HTMLMeterElement;
    expect([meter.value, meter.max]).toEqual([58, 60]);
    act(() => vi.advanceTimersByTime(10_000));
    expect(screen.getByText('58 of 60 lookups left · resets in 32 s')).toBeInTheDocument();
    act(() => vi.advanceTimersByTime(32_000));
    expect(screen.getByText('60 of 60 lookups left')).toBeInTheDocument();
  });

  it('never says the window resets later than the window is long (a reset counted up to the whole second)', () => {
    render(<RateLimitMeter />);
    act(() =>
      publishRateLimit({ limit: 60, remaining: 59, resetAt: '2026-11-21T12:01:00.400Z', windowS: 60 }),
    );
    expect(screen.getByText('59 of 60 lookups left · resets in 60 s')).toBeInTheDocument();
  });

  it('has shorter words for the widths where the account shares the header with every link', () => {
    render(<RateLimitMeter />);
    act(() =>
      publishRateLimit({ limit: 60, remaining: 58, resetAt: '2026-11-21T12:00:42.000Z', windowS: 60 }),
    );
    // Which of the two shows is the stylesheet's (lg:max-xl); e2e/account.spec.ts holds it to one line.
    expect(screen.getByText('58 of 60 left · resets in 42 s')).toHaveClass('hidden', 'lg:max-xl:inline');
    expect(screen.getByText('58 of 60 lookups left · resets in 42 s')).toHaveClass('lg:max-xl:hidden');
  });

  it('names the real window in its hint, not "per minute" whatever it is', () => {
    render(<RateLimitMeter />);
    act(() => publishRateLimit({ limit: 4, remaining: 1, resetAt: '2026-11-21T12:00:09.000Z', windowS: 12 }));
    expect(screen.getByText('1 of 4 lookups left · resets in 9 s').parentElement).toHaveAttribute(
      'title',
      'The property service allows your key 4 lookups every 12 seconds.',
    );
  });
});
