import { randomBytes } from 'node:crypto';
import { Hono } from 'hono';
import { AccountDirectory } from './accounts.ts';
import type { ControllableClock } from './clock.ts';
import type { ReferenceDeps, ReferenceEnv } from './context.ts';
import { DEFAULT_DIALECT, type Dialect } from './dialect.ts';
import { createDrift } from './drift.ts';
import { type Faults, NO_FAULTS } from './faults.ts';
import { identifyCaller, requireAccount } from './middleware/auth.ts';
import { notFound, onError } from './middleware/errors.ts';
import { injectFaults } from './middleware/faults.ts';
import { rateLimit } from './middleware/rate-limit.ts';
import { DEFAULT_PLAN_RULES, RateLimiter, type RateRule } from './rate-limiter.ts';
import { authRoutes } from './routes/auth.ts';
import { openApiRoutes } from './routes/openapi.ts';
import { propertyRoutes } from './routes/properties.ts';
import { testClockRoutes } from './routes/test-clock.ts';
import type { PropertyStore } from './store.ts';

export { DROP_HEADER } from './middleware/faults.ts';
export { DEFAULT_PAGE_SIZE, MAX_PAGE_SIZE } from './routes/properties.ts';

export interface ReferenceOptions {
  store: PropertyStore;
  dialect?: Dialect;
  /** Overrides every plan's rule (REFERENCE_RATE_LIMIT). */
  rateLimit?: RateRule;
  faults?: Faults;
  accounts?: AccountDirectory;
  now?: () => number;
  /** REFERENCE_CLOCK=controllable: its time (instead of `now`), and `/_test/clock` to move it forward. */
  clock?: ControllableClock;
  /** Sleep used for injected latency; tests pass a fake. */
  sleep?: (ms: number) => Promise<void>;
  /** Signs cursors. Random per process unless given, so a cursor from another run is refused. */
  cursorSecret?: string;
  /** REFERENCE_DRIFT_PERCENT and the seed that picks the drifting records; none when absent. */
  drift?: { percent: number; seed: number };
}

/**
 * The Property Intelligence Service. Order matters: the OpenAPI document is public; then faults (an outage
 * does not check your key), then the rate limiter (it counts refused keys too), then the key check; the
 * resources sit behind all of them.
 */
export function createReferenceApp(options: ReferenceOptions) {
  const now = options.clock?.now ?? options.now ?? Date.now;
  const deps: ReferenceDeps = {
    store: options.store,
    dialect: options.dialect ?? DEFAULT_DIALECT,
    now,
    sleep: options.sleep ?? ((ms: number) => new Promise<void>((r) => setTimeout(r, ms))),
    accounts: options.accounts ?? new AccountDirectory(),
    faults: options.faults ?? NO_FAULTS,
    limiter: new RateLimiter(now),
    cursorSecret: options.cursorSecret ?? randomBytes(32).toString('hex'),
    ruleFor: (plan) => options.rateLimit ?? DEFAULT_PLAN_RULES[plan],
    drift: createDrift({ percent: 0, seed: 0, ...options.drift, startedAt: now(), now }),
  };

  const app = new Hono<ReferenceEnv>();
  if (options.clock) {
    // A moved clock is the service's time in every answer: its Date header too, which clients read resets
    // against (the server's own Date header is the system's time).
    app.use(async (c, next) => {
      await next();
      c.header('Date', new Date(now()).toUTCString());
    });
    // Before the key check and the rate limiter: moving a test's clock is nobody's lookup.
    app.route('/_test/clock', testClockRoutes(deps, options.clock));
  }
  return app
    .route('/', openApiRoutes(deps))
    .use(injectFaults(deps), identifyCaller(deps), rateLimit(deps), requireAccount(deps))
    .route('/auth', authRoutes(deps))
    .route('/properties', propertyRoutes(deps))
    .notFound(notFound(deps.dialect))
    .onError(onError(deps.dialect));
}
