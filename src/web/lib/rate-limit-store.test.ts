import { afterEach, describe, expect, it } from 'vitest';
import { enterAccount, leaveAccount, resetAccountScope } from './account-scope.ts';
import {
  currentRateLimit,
  markRateLimitExhausted,
  publishRateLimit,
  resetRateLimit,
} from './rate-limit-store.ts';

const at = (s: number) => new Date(Date.UTC(2026, 10, 21, 12, 0, s)).toISOString();

afterEach(() => {
  resetRateLimit();
  resetAccountScope();
});

describe('the rate-limit store', () => {
  it('follows each answer; an answer from an earlier window that arrives late is ignored', () => {
    publishRateLimit({ limit: 60, remaining: 58, resetAt: at(42), windowS: 60 });
    publishRateLimit({ limit: 60, remaining: 60, resetAt: at(102) });
    expect(currentRateLimit()).toEqual({ limit: 60, remaining: 60, resetAt: at(102) });
    publishRateLimit({ limit: 60, remaining: 57, resetAt: at(42) });
    expect(currentRateLimit()?.remaining).toBe(60);
  });

  it('within one window the lowest count wins, whatever order the answers come in', () => {
    publishRateLimit({ limit: 60, remaining: 55, resetAt: at(42), windowS: 60 });
    // An answer that left the BFF earlier, with a reset read a second apart.
    publishRateLimit({ limit: 60, remaining: 56, resetAt: at(43) });
    expect(currentRateLimit()).toEqual({ limit: 60, remaining: 55, resetAt: at(43), windowS: 60 });
  });

  it('a 429 leaves nothing until its reset, keeping the limit and window', () => {
    publishRateLimit({ limit: 4, remaining: 1, resetAt: at(10), windowS: 12 });
    markRateLimitExhausted(at(10));
    expect(currentRateLimit()).toEqual({ limit: 4, remaining: 0, resetAt: at(10), windowS: 12 });
  });

  it('forgets the budget on sign-out and when another account signs in', () => {
    enterAccount('acct-a');
    publishRateLimit({ limit: 60, remaining: 3, resetAt: at(42) });
    enterAccount('acct-b');
    expect(currentRateLimit()).toBeNull();
    publishRateLimit({ limit: 600, remaining: 599, resetAt: at(42) });
    leaveAccount();
    expect(currentRateLimit()).toBeNull();
  });
});
