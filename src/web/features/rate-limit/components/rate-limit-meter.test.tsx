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

  it('counts down to the reset, then shows the window full again', () => {
    render(<RateLimitMeter />);
    act(() => publishRateLimit({ limit: 60, remaining: 3, resetAt: '2026-11-21T12:00:30.000Z' }));
    expect(screen.getByText('3/60 · resets in 30 s')).toBeInTheDocument();
    const meter = screen.getByRole('meter', { name: 'Requests left' }) as HTMLMeterElement;
    expect([meter.value, meter.max]).toEqual([3, 60]);
    act(() => vi.advanceTimersByTime(10_000));
    expect(screen.getByText('3/60 · resets in 20 s')).toBeInTheDocument();
    act(() => vi.advanceTimersByTime(20_000));
    expect(screen.getByText('60/60 · reset')).toBeInTheDocument();
  });
});
