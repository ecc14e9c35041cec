import type { MiddlewareHandler } from 'hono';
import type { ReferenceDeps, ReferenceEnv } from '../context.ts';
import { createFaultPicker } from '../faults.ts';
import { errorResponse } from '../wire.ts';
import { setRateLimitHeaders } from './rate-limit.ts';

/** Tells an in-process caller (no socket to destroy) to fail the call as a dropped connection would. */
export const DROP_HEADER = 'x-reference-drop-connection';

/**
 * Misbehaviour on demand (REFERENCE_FAULTS). Mounted first: a real outage does not check your key. One
 * picker per app, so the same seed gives the same faults for the same sequence of requests.
 */
export function injectFaults(deps: ReferenceDeps): MiddlewareHandler<ReferenceEnv> {
  const { faults, dialect } = deps;
  const pickFault = createFaultPicker(faults);
  return async (c, next) => {
    if (faults.latencyMs > 0) await deps.sleep(faults.latencyMs);
    const fault = pickFault();
    if (fault === 'drop') {
      const incoming = (c.env as { incoming?: { socket?: { destroy(): void } } } | undefined)?.incoming;
      incoming?.socket?.destroy();
      return c.body(null, 502, { [DROP_HEADER]: '1' });
    }
    if (fault === 'storm') {
      setRateLimitHeaders(c, deps, deps.ruleFor('anonymous').requests, 0, deps.now() + 3000);
      return errorResponse(c, dialect, 429, 'rate_limited', 'Too many requests. Retry after the reset time.');
    }
    if (fault === 'error500') return errorResponse(c, dialect, 500, 'internal', 'Internal error.');
    if (fault === 'error503') return errorResponse(c, dialect, 503, 'unavailable', 'Service unavailable.');
    await next();
    if (fault === 'malformed' && c.res.status === 200) {
      const text = await c.res.text();
      c.res = new Response(text.slice(0, Math.max(1, Math.floor(text.length / 2))), c.res);
    }
  };
}
