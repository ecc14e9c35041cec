import type { IncomingMessage, ServerResponse } from 'node:http';
import { isHttps } from './request-context.ts';

/**
 * The security headers of every answer, for an app that loads only its own script and style and is never
 * framed: the set Hono's secureHeaders sends, with our policy. They are the same for every request, so they
 * are set on the Node response before the app runs (`withSecurityHeaders`), as nginx's `add_header` would:
 * a Hono middleware set them on a Fetch `Headers` object per request, a tenth of a cached hit's CPU
 * (docs/decisions/005-lean-hot-path.md). Headers the app sets win over these.
 */
const CONTENT_SECURITY_POLICY = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data:",
  "font-src 'self'",
  "connect-src 'self'",
  "object-src 'none'",
  "base-uri 'none'",
  "form-action 'self'",
  "frame-ancestors 'none'",
].join('; ');

export const SECURITY_HEADERS: readonly (readonly [name: string, value: string])[] = [
  ['Content-Security-Policy', CONTENT_SECURITY_POLICY],
  ['Cross-Origin-Opener-Policy', 'same-origin'],
  ['Cross-Origin-Resource-Policy', 'same-origin'],
  ['Origin-Agent-Cluster', '?1'],
  ['Permissions-Policy', 'camera=(), microphone=(), geolocation=()'],
  ['Referrer-Policy', 'no-referrer'],
  ['X-Content-Type-Options', 'nosniff'],
  ['X-DNS-Prefetch-Control', 'off'],
  ['X-Download-Options', 'noopen'],
  ['X-Frame-Options', 'DENY'],
  ['X-Permitted-Cross-Domain-Policies', 'none'],
];

/** Only where the request came over HTTPS: over plain HTTP it would be ignored or wrong. */
export const STRICT_TRANSPORT_SECURITY = 'max-age=31536000; includeSubDomains';

type Listener<Req, Res> = (req: Req, res: Res) => unknown;

/** A Node request listener that answers with the security headers (HSTS where the request is HTTPS). */
export function withSecurityHeaders<Req extends IncomingMessage, Res extends ServerResponse>(
  listener: Listener<Req, Res>,
  trustProxy: boolean,
): Listener<Req, Res> {
  return (req, res) => {
    for (const [name, value] of SECURITY_HEADERS) res.setHeader(name, value);
    const proto = req.headers['x-forwarded-proto'];
    if (isHttps(req, '', Array.isArray(proto) ? proto[0] : proto, trustProxy)) {
      res.setHeader('Strict-Transport-Security', STRICT_TRANSPORT_SECURITY);
    }
    return listener(req, res);
  };
}
