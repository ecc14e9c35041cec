import type { MiddlewareHandler } from 'hono';
import { secureHeaders } from 'hono/secure-headers';
import type { AppEnv } from '../context.ts';

/** Hono's secureHeaders, set for an app that loads only its own script and style and is never framed. */
const headers = secureHeaders({
  contentSecurityPolicy: {
    defaultSrc: ["'self'"],
    scriptSrc: ["'self'"],
    styleSrc: ["'self'"],
    imgSrc: ["'self'", 'data:'],
    fontSrc: ["'self'"],
    connectSrc: ["'self'"],
    objectSrc: ["'none'"],
    baseUri: ["'none'"],
    formAction: ["'self'"],
    frameAncestors: ["'none'"],
  },
  xFrameOptions: 'DENY',
  referrerPolicy: 'no-referrer',
  crossOriginOpenerPolicy: 'same-origin',
  permissionsPolicy: { camera: [], microphone: [], geolocation: [] },
  // HSTS only where the request came over HTTPS (below): over plain HTTP it would be ignored or wrong.
  strictTransportSecurity: false,
});

export const securityHeaders: MiddlewareHandler<AppEnv> = async (c, next) => {
  await headers(c, async () => {
    await next();
    if (c.get('https')) c.header('Strict-Transport-Security', 'max-age=31536000; includeSubDomains');
  });
};
