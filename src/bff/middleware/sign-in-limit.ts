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
    const address = clientGroup(c, options.trustProxy);
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
 * The client's address as one client counts: an IPv4 address (IPv4-mapped IPv6 written as IPv4), or the /64
 * of an IPv6 one (one subscriber's network: a host holds a /64 and can use any address in it). Undefined
 * in-process (tests).
 */
export function clientGroup(c: AppContext, trustProxy: boolean): string | undefined {
  const address = clientAddress(c, trustProxy);
  return address === undefined ? undefined : addressGroup(address);
}

/** clientGroup's rule for one address as written. */
export function addressGroup(written: string): string {
  const address = written.toLowerCase();
  if (!address.includes(':')) return address;
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/.exec(address);
  if (mapped) return mapped[1] as string;
  const [head = '', tail = ''] = address.split('::');
  const left = head === '' ? [] : head.split(':');
  const right = tail === '' ? [] : tail.split(':');
  const groups = address.includes('::')
    ? [...left, ...Array(Math.max(0, 8 - left.length - right.length)).fill('0'), ...right]
    : left;
  return `${groups
    .slice(0, 4)
    .map((g) => g.replace(/^0+(?=.)/, ''))
    .join(':')}::/64`;
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
