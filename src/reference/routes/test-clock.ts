import { Hono } from 'hono';
import type { ControllableClock } from '../clock.ts';
import type { ReferenceDeps, ReferenceEnv } from '../context.ts';
import { errorResponse } from '../wire.ts';

/**
 * `/_test/clock`, only with `REFERENCE_CLOCK=controllable`: GET says the time and how far it was moved; POST
 * `{"advance_ms": n}` moves it forward. Not part of the service's interface, and never mounted otherwise (the
 * path is then an unknown endpoint like any other).
 */
export function testClockRoutes(deps: Pick<ReferenceDeps, 'dialect'>, clock: ControllableClock) {
  const state = () => ({ now: new Date(clock.now()).toISOString(), offset_ms: clock.offsetMs });
  return new Hono<ReferenceEnv>()
    .get('/', (c) => c.json(state()))
    .post('/', async (c) => {
      const body: unknown = await c.req.json().catch(() => undefined);
      const ms = (body as { advance_ms?: unknown } | undefined)?.advance_ms;
      if (typeof ms !== 'number' || !Number.isInteger(ms) || ms < 1 || ms > 86_400_000) {
        return errorResponse(
          c,
          deps.dialect,
          400,
          'invalid_query',
          'Send {"advance_ms": n} with n a whole number of milliseconds from 1 to 86400000.',
        );
      }
      clock.advance(ms);
      return c.json(state());
    });
}
