import type { Lane } from '../../../contract/index.ts';
import {
  type AttemptResult,
  type BudgetState,
  type BudgetStore,
  type Decision,
  initialBudget,
  observe,
  type RateView,
  reserve,
  view,
} from '../../upstream/budget.ts';

export class MemoryBudgetStore implements BudgetStore {
  readonly #states = new Map<string, BudgetState>();

  constructor(private readonly maxKeys = 10_000) {}

  #state(key: string): BudgetState {
    let s = this.#states.get(key);
    if (s) {
      this.#states.delete(key);
    } else {
      s = initialBudget();
      if (this.#states.size >= this.maxKeys) this.#states.delete(this.#states.keys().next().value as string);
    }
    this.#states.set(key, s);
    return s;
  }

  readonly now = {
    reserve: (key: string, lane: Lane, now: number): Decision => reserve(this.#state(key), lane, now),
    observe: (key: string, result: AttemptResult, now: number): void => {
      observe(this.#state(key), result, now);
    },
  };

  async reserve(key: string, lane: Lane, now: number): Promise<Decision> {
    return this.now.reserve(key, lane, now);
  }

  async observe(key: string, result: AttemptResult, now: number): Promise<void> {
    this.now.observe(key, result, now);
  }

  async view(key: string, now: number): Promise<RateView | null> {
    return view(this.#states.get(key), now);
  }
}
