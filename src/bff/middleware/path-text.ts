import type { MiddlewareHandler } from 'hono';
import type { AppContext, AppEnv } from '../context.ts';
import { ApiError } from '../errors.ts';

/**
 * A path segment (a review id) reaches the database as text, which on PostgreSQL cannot hold U+0000: refused
 * here for every route, as the contract's `text` refuses it in a body or a query, so both databases answer 400.
 */
export const pathText: MiddlewareHandler<AppEnv> = async (c, next) => {
  checkPathText(c);
  await next();
};

/** The check itself (throws 400), for a middleware that does more than this (apiRequest). */
export function checkPathText(c: AppContext): void {
  if (c.req.path.includes('\u0000') || c.req.path.includes('%00'))
    throw new ApiError(
      400,
      'bad_request',
      'Remove the NUL character (U+0000) from the address of the request.',
    );
}
