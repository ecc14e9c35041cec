import type { MiddlewareHandler } from 'hono';
import type { AppEnv } from '../context.ts';
import { checkCsrf } from './csrf.ts';
import { checkPathText } from './path-text.ts';

/**
 * What every /api request passes first: the CSRF check (csrf.ts), then the refusal of a NUL in the path
 * (path-text.ts). One layer, not two: each middleware is an async call and a promise on every request, the
 * cached hits' included (docs/decisions/005-lean-hot-path.md).
 */
export const apiRequest: MiddlewareHandler<AppEnv> = (c, next) => {
  checkCsrf(c);
  checkPathText(c);
  return next();
};
