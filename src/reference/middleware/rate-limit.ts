import type { Context, MiddlewareHandler } from 'hono';
import type { ReferenceDeps, ReferenceEnv } from '../context.ts';
import { errorResponse, formatReset } from '../wire.ts';

/** X-RateLimit-*: on every answer behind the rate limiter, refusals included, and on storm 429s. */
export function setRateLimitHeaders(
  c: Context,
  deps: Pick<ReferenceDeps, 'dialect' | 'now'>,
  limit: number,
  remaining: number,
  resetAt: number,
): void {
  c.header('X-RateLimit-Limit', String(limit));
  c.header('X-RateLimit-Remaining', String(Math.max(0, remaining)));
  c.header('X-RateLimit-Reset', formatReset(resetAt, deps.now(), deps.dialect));
}

/**
 * Counts every request, known key or not, before the key is judged: a client guessing keys is limited
 * like any other. Buckets by the key's hash, or by the client's address when no key came.
 */
export function rateLimit(deps: ReferenceDeps): MiddlewareHandler<ReferenceEnv> {
  return async (c, next) => {
    const keyHash = c.get('keyHash');
    const bucket = keyHash ?? `anonymous:${clientAddress(c)}`;
    const decision = deps.limiter.take(bucket, deps.ruleFor(c.get('caller')?.plan ?? 'anonymous'));
    setRateLimitHeaders(c, deps, decision.limit, decision.remaining, decision.resetAt);
    if (!decision.allowed) {
      return errorResponse(
        c,
        deps.dialect,
        429,
        'rate_limited',
        'Rate limit exceeded. Retry after the reset time.',
      );
    }
    await next();
  };
}

function clientAddress(c: Context): string {
  const incoming = (c.env as { incoming?: { socket?: { remoteAddress?: string } } } | undefined)?.incoming;
  return incoming?.socket?.remoteAddress ?? 'local';
}
