import type { MiddlewareHandler } from 'hono';
import type { Logger } from 'pino';
import type { AppEnv } from '../context.ts';

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

/** HTTPS detection and one structured access-log line per request (path only: never headers or query). */
export function requestContext(logger: Logger, trustProxy: boolean): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    const env = c.env as { incoming?: { socket?: { encrypted?: boolean } } } | undefined;
    c.set('https', isHttps(env?.incoming, c.req.url, c.req.header('x-forwarded-proto'), trustProxy));
    const started = performance.now();
    await next();
    logger.info(
      {
        requestId: c.get('requestId'),
        method: c.req.method,
        path: c.req.path,
        status: c.res.status,
        ms: Math.round(performance.now() - started),
      },
      'request',
    );
  };
}
