import type { Plan } from '../contract/index.ts';
import type { Account, AccountDirectory } from './accounts.ts';
import type { Dialect } from './dialect.ts';
import type { Drift } from './drift.ts';
import type { Faults } from './faults.ts';
import type { RateLimiter, RateRule } from './rate-limiter.ts';
import type { PropertyStore } from './store.ts';

/** What the route modules and middleware share, resolved once from ReferenceOptions by createReferenceApp. */
export interface ReferenceDeps {
  store: PropertyStore;
  dialect: Dialect;
  now: () => number;
  sleep: (ms: number) => Promise<void>;
  accounts: AccountDirectory;
  faults: Faults;
  limiter: RateLimiter;
  cursorSecret: string;
  /** The rate rule for a caller's plan (or for callers without a known key). */
  ruleFor: (plan: Plan | 'anonymous') => RateRule;
  /** REFERENCE_DRIFT_PERCENT: how a record has changed since the service started (identity when 0). */
  drift: Drift;
}

/** Per request: who called (set by the auth middleware), read by the routes behind it. */
export type ReferenceEnv = {
  Variables: {
    /** SHA-256 of the key sent, if any: the rate limiter's bucket. */
    keyHash: string | undefined;
    /** The account of a known key, eligible or not. */
    caller: Account | undefined;
    /** The account of a known key on a plan with API access; set only for requests that pass auth. */
    account: Account;
  };
};
