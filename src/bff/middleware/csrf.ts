import type { MiddlewareHandler } from 'hono';
import { CSRF_HEADER } from '../../contract/index.ts';
import type { AppContext, AppEnv } from '../context.ts';
import { ApiError } from '../errors.ts';
import { answerHeader } from '../http.ts';

/**
 * Where CSRF is checked: every /api call carries a custom header a cross-site form or image cannot send, and
 * no foreign Origin or cross-site fetch metadata. API answers are never cached.
 */
export const csrf: MiddlewareHandler<AppEnv> = async (c, next) => {
  checkCsrf(c);
  await next();
};

/** The check itself (throws 403 csrf), for a middleware that does more than this (apiRequest). */
export function checkCsrf(c: AppContext): void {
  const origin = c.req.header('origin');
  if (
    c.req.header(CSRF_HEADER.name) !== CSRF_HEADER.value ||
    (origin !== undefined && origin !== ownOrigin(c)) ||
    c.req.header('sec-fetch-site') === 'cross-site'
  ) {
    throw new ApiError(403, 'csrf', 'This request did not come from the PropLens app.');
  }
  answerHeader(c, 'Cache-Control', 'no-store');
}

/**
 * The origin the server answers on: the Host header. Never an absolute-form target's authority, which
 * @hono/node-server puts in the URL: RFC 9112 §3.2.2 has it override Host, but a browser sends that form only to
 * a proxy, so at this server it is whatever the client chose (`DELETE http://evil.example/...` with that Origin).
 * No Host (HTTP/1.0): no origin of our own to match, so a request naming an Origin is refused. Over HTTP the Host
 * has passed the listener's allow-list by now (request-guard.ts): a page on a name rebound to this server's
 * address, whose Origin would match its own Host, was refused 421 before it got here.
 */
const ownOrigin = (c: AppContext): string | null => {
  const host = c.req.header('host')?.trim().toLowerCase();
  return host ? `${c.get('https') ? 'https' : 'http'}://${host}` : null;
};
