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
  const origin = c.req.header('origin');
  if (
    c.req.header(CSRF_HEADER.name) !== CSRF_HEADER.value ||
    (origin !== undefined && origin !== ownOrigin(c)) ||
    c.req.header('sec-fetch-site') === 'cross-site'
  ) {
    throw new ApiError(403, 'csrf', 'This request did not come from the PropLens app.');
  }
  answerHeader(c, 'Cache-Control', 'no-store');
  await next();
};

/**
 * The request's own authority: the Host header, or for an absolute-form target the target's (RFC 9112
 * §3.2.2: the Host header is then ignored), which @hono/node-server puts in the URL.
 */
const ownOrigin = (c: AppContext) => `${c.get('https') ? 'https' : 'http'}://${new URL(c.req.url).host}`;
