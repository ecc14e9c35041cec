import type { MiddlewareHandler } from 'hono';
import { routePath } from 'hono/route';
import type { AppEnv } from '../context.ts';
import type { BffMetrics } from '../metrics.ts';

const METHODS = new Set(['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS']);

/**
 * Counts every request and times it, labelled by the pattern of the route that answered
 * (`/api/properties/resolve`, `/api/*` for an unknown API path, `/*` for the SPA and anything unmatched),
 * never the raw path, so label values stay a small fixed set whatever clients send.
 */
export function requestMetrics(
  metrics: Pick<BffMetrics, 'httpRequests' | 'httpDuration'>,
): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    const started = performance.now();
    // Errors never escape next(): the app's error handler has already turned them into c.res.
    await next();
    const method = METHODS.has(c.req.method) ? c.req.method : 'OTHER';
    const route = routePath(c) || 'unmatched';
    metrics.httpRequests.inc({ method, route, status: String(c.res.status) });
    metrics.httpDuration.observe({ method, route }, (performance.now() - started) / 1000);
  };
}
