import { randomUUID } from 'node:crypto';
import type { MiddlewareHandler } from 'hono';
import { routePath } from 'hono/route';
import type { Logger } from 'pino';
import type { AppEnv } from '../context.ts';
import { answerHeader } from '../http.ts';
import { accessLogger } from '../logger.ts';
import type { BffMetrics } from '../metrics.ts';

/**
 * Is this request HTTPS? The socket says so (TLS), or, only when we sit behind a trusted TLS-terminating
 * proxy, the first X-Forwarded-Proto value (the one the client-facing proxy set; `https,http` is a chain).
 * Never the request target: an absolute-form target (`GET https://x/ HTTP/1.1`) over plain HTTP is not HTTPS.
 */
export function isHttps(
  incoming: { socket?: unknown } | undefined,
  url: string,
  forwardedProto: string | undefined,
  trustProxy: boolean,
): boolean {
  if (trustProxy && forwardedProto) return forwardedProto.split(',')[0]?.trim().toLowerCase() === 'https';
  // In-process tests (app.request) have no socket: the URL is all there is.
  if (!incoming?.socket) return url.startsWith('https:');
  return (incoming.socket as { encrypted?: boolean }).encrypted === true;
}

const METHODS = new Set(['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS']);
const REQUEST_ID_MAX = 64;

export interface RequestContextDeps {
  logger: Logger;
  trustProxy: boolean;
  /** Omitted: nothing is counted. */
  metrics?: Pick<BffMetrics, 'httpRequests' | 'httpDuration'>;
}

/**
 * The first thing every request passes through. It does three jobs:
 * - It sets the request id: a well-formed X-Request-Id from a proxy in front, or a new one. The id is
 *   answered back.
 * - It detects HTTPS.
 * - Once the request is answered, it writes one structured access-log line (path only: never headers or
 *   query) and the request metrics. Metrics are labelled by the pattern of the route that answered
 *   (`/api/properties/resolve`, `/api/*` for an unknown API path, `/*` for the SPA), never the raw path, so
 *   label values stay a small fixed set whatever clients send.
 *
 * One layer, not three (Hono's requestId, a log and a metrics middleware): each layer is an async call on
 * every request (docs/decisions/005-lean-hot-path.md). The access line has fixed fields, none a secret, so
 * it is written without the logger's redaction pass or general serialiser.
 */
export function requestContext({
  logger,
  trustProxy,
  metrics,
}: RequestContextDeps): MiddlewareHandler<AppEnv> {
  const accessLog = accessLogger(logger);
  return async (c, next) => {
    const started = performance.now();
    let id = c.req.header('x-request-id');
    if (!id || id.length > REQUEST_ID_MAX || /[^\w\-=]/.test(id)) id = randomUUID();
    c.set('requestId', id);
    answerHeader(c, 'X-Request-Id', id);
    const env = c.env as { incoming?: { socket?: unknown } } | undefined;
    c.set('https', isHttps(env?.incoming, c.req.url, c.req.header('x-forwarded-proto'), trustProxy));
    // Errors never escape next(): the app's error handler has already turned them into c.res.
    await next();
    const ms = performance.now() - started;
    const status = c.res.status;
    if (metrics) {
      const method = METHODS.has(c.req.method) ? c.req.method : 'OTHER';
      const route = routePath(c) || 'unmatched';
      metrics.httpRequests.inc({ method, route, status: String(status) });
      metrics.httpDuration.observe({ method, route }, ms / 1000);
    }
    accessLog({ requestId: id, method: c.req.method, path: c.req.path, status, ms: Math.round(ms) });
  };
}
