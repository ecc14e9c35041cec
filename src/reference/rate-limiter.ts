import type { Plan } from '../contract/index.ts';

export interface RateRule {
  requests: number;
  seconds: number;
}

/** Parses `<requests>/<seconds>`, e.g. `60/60`. */
export function parseRateRule(text: string): RateRule {
  const m = /^\s*(\d+)\s*\/\s*(\d+)\s*$/.exec(text);
  const requests = Number(m?.[1]);
  const seconds = Number(m?.[2]);
  if (!m || requests < 1 || seconds < 1) {
    throw new Error(`rate limit "${text}" is not <requests>/<seconds> with both at least 1, e.g. 60/60`);
  }
  return { requests, seconds };
}

export const DEFAULT_PLAN_RULES: Record<Plan | 'anonymous', RateRule> = {
  anonymous: { requests: 60, seconds: 60 },
  starter: { requests: 60, seconds: 60 },
  professional: { requests: 60, seconds: 60 },
  enterprise: { requests: 600, seconds: 60 },
};

export interface RateDecision {
  allowed: boolean;
  limit: number;
  remaining: number;
  /** Epoch milliseconds at which the current window ends. */
  resetAt: number;
}

/**
 * Fixed-window counter per key. Check-and-count is one synchronous step, so concurrent requests on the
 * event loop can never both take the last slot.
 */
export class RateLimiter {
  readonly #windows = new Map<string, { start: number; count: number }>();

  constructor(private readonly now: () => number) {}

  take(bucket: string, rule: RateRule): RateDecision {
    const now = this.now();
    const windowMs = rule.seconds * 1000;
    let w = this.#windows.get(bucket);
    if (!w || now >= w.start + windowMs) {
      w = { start: now - ((now - (w?.start ?? now)) % windowMs), count: 0 };
      this.#windows.set(bucket, w);
      this.#sweep(now, windowMs);
    }
    const allowed = w.count < rule.requests;
    if (allowed) w.count++;
    return { allowed, limit: rule.requests, remaining: rule.requests - w.count, resetAt: w.start + windowMs };
  }

  /** Forget windows long over, so a stream of random keys cannot grow the map without bound. */
  #sweep(now: number, windowMs: number): void {
    if (this.#windows.size < 10_000) return;
    for (const [k, w] of this.#windows) if (now >= w.start + windowMs) this.#windows.delete(k);
  }
}
