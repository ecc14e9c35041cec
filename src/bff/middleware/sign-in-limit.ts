import type { MiddlewareHandler } from 'hono';
import { LRUCache } from 'lru-cache';
import type { AppContext, AppEnv } from '../context.ts';
import { ApiError } from '../errors.ts';

const WINDOW_MS = 60_000;

/**
 * Sign-ins per client address per minute (SIGN_IN_RATE_PER_MINUTE; 0: no limit), counted in this replica's
 * memory: a flood of sign-ins from one address (the demo's public keys make them free) is refused with 429
 * and Retry-After before it can crowd other people's sessions out of the store. Addresses are remembered in an
 * LRU of bounded size, so a flood of addresses costs bounded memory.
 */
export function signInLimit(options: {
  perMinute: number;
  trustProxy: boolean;
  now?: () => number;
}): MiddlewareHandler<AppEnv> {
  const now = options.now ?? Date.now;
  const windows = new LRUCache<string, { start: number; count: number }>({ max: 100_000 });
  return async (c, next) => {
    const address = clientAddress(c, options.trustProxy);
    if (options.perMinute > 0 && address) {
      const t = now();
      let w = windows.get(address);
      if (!w || t >= w.start + WINDOW_MS) {
        w = { start: t, count: 0 };
        windows.set(address, w);
      }
      if (w.count >= options.perMinute) {
        const retryAfterS = Math.max(1, Math.ceil((w.start + WINDOW_MS - t) / 1000));
        throw new ApiError(
          429,
          'too_many_sign_ins',
          `Too many sign-ins from this address: try again in ${retryAfterS} s.`,
          { retryAfterS },
        );
      }
      w.count++;
    }
    await next();
  };
}

/**
 * Who is asking: the socket's peer, or behind a trusted proxy (TRUST_PROXY) the address that proxy appended
 * to X-Forwarded-For (its last entry; earlier ones are the client's to write). Undefined in-process (tests).
 */
function clientAddress(c: AppContext, trustProxy: boolean): string | undefined {
  if (trustProxy) {
    const forwarded = c.req.header('x-forwarded-for')?.split(',').at(-1)?.trim();
    if (forwarded) return forwarded;
  }
  const env = c.env as { incoming?: { socket?: { remoteAddress?: string } } } | undefined;
  return env?.incoming?.socket?.remoteAddress;
}
