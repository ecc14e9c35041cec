import { describe, expect, it } from 'vitest';
import { initialBudget, observe, plainWindowS, RESET_MARGIN_MS, reserve, view } from './budget.ts';

const t0 = Date.parse('2026-11-22T12:00:00Z');

describe('budget', () => {
  it('shows a window as full again once its reset has passed, whatever was last heard', () => {
    const s = initialBudget();
    reserve(s, 'interactive', t0);
    observe(s, { kind: 'answer', status: 200, rate: { limit: 60, remaining: 0, resetAt: t0 + 60_000 } }, t0);
    expect(view(s, t0 + 59_999)).toMatchObject({ limit: 60, remaining: 0 });
    expect(view(s, t0 + 60_000)).toMatchObject({ limit: 60, remaining: 60 });
  });

  it('shows nothing before the upstream has stated a limit', () => {
    expect(view(initialBudget(), t0)).toBeNull();
  });

  it('ignores a late answer from a window that has ended', () => {
    const s = initialBudget();
    reserve(s, 'interactive', t0);
    observe(s, { kind: 'answer', status: 200, rate: { limit: 10, remaining: 9, resetAt: t0 + 10_000 } }, t0);
    reserve(s, 'interactive', t0 + 9_000); // sent in the old window, answered after the reset
    const later = t0 + 10_000 + RESET_MARGIN_MS + 1;
    expect(reserve(s, 'interactive', later)).toEqual({ ok: true }); // the window refilled
    observe(
      s,
      { kind: 'answer', status: 200, rate: { limit: 10, remaining: 8, resetAt: t0 + 10_000 } },
      later,
    );
    // The old window's "8 left" does not shrink the new window: 10, less the two in flight or answered since.
    expect(s.remaining).toBe(8);
    // The new window is the old one's length on from its reset; the old answer does not move it back.
    expect(s.resetAt).toBe(t0 + 20_000);
  });

  it('takes the lowest Remaining reported in a window once nothing is in flight (answers overtake each other)', () => {
    const s = initialBudget();
    reserve(s, 'interactive', t0);
    observe(s, { kind: 'answer', status: 200, rate: { limit: 10, remaining: 9, resetAt: t0 + 10_000 } }, t0);
    reserve(s, 'interactive', t0 + 1);
    reserve(s, 'interactive', t0 + 2);
    // The second request's answer (7 left) arrives before the first's (8 left).
    observe(
      s,
      { kind: 'answer', status: 200, rate: { limit: 10, remaining: 7, resetAt: t0 + 10_000 } },
      t0 + 3,
    );
    observe(
      s,
      { kind: 'answer', status: 200, rate: { limit: 10, remaining: 8, resetAt: t0 + 10_000 } },
      t0 + 4,
    );
    expect(s.remaining).toBe(7);
  });

  it('counts another client on the same key: the upstream’s lower figure wins', () => {
    const s = initialBudget();
    reserve(s, 'interactive', t0);
    observe(s, { kind: 'answer', status: 200, rate: { limit: 10, remaining: 9, resetAt: t0 + 10_000 } }, t0);
    reserve(s, 'interactive', t0 + 1);
    observe(
      s,
      { kind: 'answer', status: 200, rate: { limit: 10, remaining: 2, resetAt: t0 + 10_000 } },
      t0 + 2,
    );
    expect(s.remaining).toBe(2);
  });
});

describe('plainWindowS: the window as the plan means it, from whole-second resets', () => {
  it.each([
    [60_000, 60],
    [61_000, 60],
    [61_900, 60],
    [59_000, 60],
    [58_000, 60],
    [62_000, 60],
    [57_000, 57],
    [63_000, 63],
    [10_800, 10],
    [12_000, 12],
    [1_000, 1],
    [1_400, 1],
    [121_000, 120],
    [90_000, 90],
    [91_000, 90],
    [3_598_000, 3_600],
    [3_601_000, 3_600],
    [3_597_000, 3_597],
    [86_401_000, 86_400],
  ])('%i ms observed is %i s', (ms, seconds) => expect(plainWindowS(ms)).toBe(seconds));
});
