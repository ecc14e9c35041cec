import type { RateLimit } from '../contract/index.ts';

/**
 * What the upstream last told us of one key's rate limit, so we never send a request that is certain to be
 * refused. Behind an interface: replicas will share it through Redis.
 */
export interface RateBudget {
  get(keyHash: string): Promise<BudgetState | undefined>;
  set(keyHash: string, state: BudgetState): Promise<void>;
}

export interface BudgetState {
  limit: number;
  remaining: number;
  /** Epoch ms on our clock. */
  resetAt: number;
}

export function toRateLimit(state: BudgetState | undefined, now: number): RateLimit | null {
  if (!state) return null;
  // After the reset the window is full again, whatever we last heard.
  const remaining = now >= state.resetAt ? state.limit : state.remaining;
  return { limit: state.limit, remaining, resetAt: new Date(state.resetAt).toISOString() };
}

export class MemoryRateBudget implements RateBudget {
  readonly #states = new Map<string, BudgetState>();

  constructor(private readonly maxKeys = 10_000) {}

  async get(keyHash: string) {
    return this.#states.get(keyHash);
  }

  async set(keyHash: string, state: BudgetState) {
    this.#states.delete(keyHash);
    this.#states.set(keyHash, state);
    if (this.#states.size > this.maxKeys) this.#states.delete(this.#states.keys().next().value as string);
  }
}
