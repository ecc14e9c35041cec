import { createHmac, randomBytes, randomUUID, timingSafeEqual } from 'node:crypto';
import { resolve } from 'node:path';
import { serveStatic } from '@hono/node-server/serve-static';
import { type Context, Hono, type MiddlewareHandler } from 'hono';
import { bodyLimit } from 'hono/body-limit';
import { deleteCookie, getCookie, setCookie } from 'hono/cookie';
import type { Logger } from 'pino';
import {
  AddressInput,
  type AppConfig,
  addressKey,
  CreateSessionRequest,
  type DemoKey,
  type Property,
  type ResolveResponse,
  type SearchResponse,
  type SessionResponse,
} from '../contract/index.ts';
import { InFlight, type ResultCache } from './cache.ts';
import { ApiError, errorResponse, toApiError } from './errors.ts';
import { type RateBudget, toRateLimit } from './rate-budget.ts';
import { accountIdFor, hashKey, type Session, type SessionStore } from './sessions.ts';
import { ClientGone, type UpstreamClient } from './upstream/client.ts';

export interface BffDeps {
  upstream: UpstreamClient;
  sessions: SessionStore;
  cache: ResultCache<CachedResult>;
  budget: RateBudget;
  logger: Logger;
  /** Public demo keys, only when the upstream is the embedded reference service. */
  demoKeys: DemoKey[] | null;
  salesContact: string | null;
  sessionAbsoluteMs: number;
  trustProxy: boolean;
  /** Signs our search cursors; replicas must share it. */
  cursorSecret?: string;
  /** The built SPA; omitted in API-only tests. */
  distDir?: string;
  now?: () => number;
}

export type CachedResult =
  | { kind: 'property'; property: Property }
  | { kind: 'page'; items: Property[]; next: string | null };

type Env = { Variables: { requestId: string; https: boolean; session: Session; sessionId: string } };

const CSP = [
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

export function createBffApp(deps: BffDeps) {
  const now = deps.now ?? Date.now;
  const cursorSecret = deps.cursorSecret ?? randomBytes(32).toString('hex');
  const inFlight = new InFlight<CachedResult>();
  const app = new Hono<Env>();

  const isDemo = (apiKey: string) => deps.demoKeys?.some((d) => d.key === apiKey) ?? false;
  const isHttps = (c: Context<Env>) => c.get('https');
  const cookieName = (c: Context<Env>) => (isHttps(c) ? '__Host-proplens_session' : 'proplens_session');

  // Request id, structured access log, security headers: on every response, API or static.
  app.use('*', async (c, next) => {
    const requestId = randomUUID();
    c.set('requestId', requestId);
    c.set(
      'https',
      new URL(c.req.url).protocol === 'https:' ||
        (deps.trustProxy && c.req.header('x-forwarded-proto') === 'https'),
    );
    const started = performance.now();
    deps.logger.debug({ requestId, method: c.req.method, path: c.req.path }, 'request started');
    await next();
    c.header('X-Request-Id', requestId);
    c.header('Content-Security-Policy', CSP);
    c.header('X-Content-Type-Options', 'nosniff');
    c.header('Referrer-Policy', 'no-referrer');
    c.header('X-Frame-Options', 'DENY');
    c.header('Cross-Origin-Opener-Policy', 'same-origin');
    c.header('Permissions-Policy', 'camera=(), microphone=(), geolocation=()');
    if (isHttps(c)) c.header('Strict-Transport-Security', 'max-age=31536000; includeSubDomains');
    deps.logger.info(
      {
        requestId,
        method: c.req.method,
        path: c.req.path,
        status: c.res.status,
        ms: Math.round(performance.now() - started),
      },
      'request',
    );
  });

  app.get('/healthz', (c) => c.json({ status: 'ok' }));
  app.get('/readyz', async (c) =>
    (await deps.upstream.ready())
      ? c.json({ status: 'ready' })
      : c.json({ status: 'upstream unreachable' }, 503),
  );

  const api = new Hono<Env>();

  // CSRF: a custom header a cross-site form or image cannot send, and no foreign Origin.
  api.use('*', async (c, next) => {
    const origin = c.req.header('origin');
    const own = `${isHttps(c) ? 'https' : 'http'}://${c.req.header('host') ?? ''}`;
    if (
      c.req.header('x-requested-with') !== 'proplens' ||
      (origin !== undefined && origin !== own) ||
      c.req.header('sec-fetch-site') === 'cross-site'
    ) {
      throw new ApiError(403, 'csrf', 'This request did not come from the PropLens app.');
    }
    c.header('Cache-Control', 'no-store');
    await next();
  });

  const requireSession: MiddlewareHandler<Env> = async (c, next) => {
    const id = getCookie(c, cookieName(c));
    const session = id ? await deps.sessions.get(id) : undefined;
    if (!id || !session) {
      if (id) deleteCookie(c, cookieName(c), { path: '/', secure: isHttps(c) });
      throw new ApiError(401, 'unauthenticated', 'Your session has ended. Sign in again with your API key.');
    }
    c.set('session', session);
    c.set('sessionId', id);
    await next();
  };

  api.get('/config', (c) =>
    c.json({ demoKeys: deps.demoKeys, salesContact: deps.salesContact } satisfies AppConfig),
  );

  api.post(
    '/session',
    bodyLimit({
      maxSize: 4096,
      onError: () => {
        throw new ApiError(413, 'payload_too_large', 'The request body is too large.');
      },
    }),
    async (c) => {
      if (!(c.req.header('content-type') ?? '').toLowerCase().startsWith('application/json')) {
        throw new ApiError(400, 'bad_request', 'Send JSON with Content-Type: application/json.');
      }
      const parsed = CreateSessionRequest.safeParse(await c.req.json().catch(() => null));
      if (!parsed.success) {
        throw new ApiError(
          400,
          'bad_request',
          parsed.error.issues[0]?.message ?? 'Send { "apiKey": "..." }.',
        );
      }
      const apiKey = parsed.data.apiKey;
      const keyHash = hashKey(apiKey);
      const account = await deps.upstream.me(apiKey, keyHash);
      // A new sign-in never reuses a session id (no fixation).
      const previous = getCookie(c, cookieName(c));
      if (previous) await deps.sessions.delete(previous);
      const id = await deps.sessions.create({ apiKey, keyHash, account });
      setCookie(c, cookieName(c), id, {
        httpOnly: true,
        sameSite: 'Strict',
        path: '/',
        secure: isHttps(c),
        maxAge: Math.floor(deps.sessionAbsoluteMs / 1000),
      });
      deps.logger.info({ requestId: c.get('requestId'), plan: account.plan }, 'signed in');
      const rateLimit = toRateLimit(await deps.budget.get(keyHash), now());
      return c.json({
        account,
        accountId: accountIdFor(keyHash),
        demo: isDemo(apiKey),
        rateLimit,
      } satisfies SessionResponse);
    },
  );
  api.get('/session', requireSession, async (c) => {
    const session = c.get('session');
    const rateLimit = toRateLimit(await deps.budget.get(session.keyHash), now());
    return c.json({
      account: session.account,
      accountId: accountIdFor(session.keyHash),
      demo: isDemo(session.apiKey),
      rateLimit,
    } satisfies SessionResponse);
  });
  api.delete('/session', async (c) => {
    const id = getCookie(c, cookieName(c));
    if (id) await deps.sessions.delete(id);
    deleteCookie(c, cookieName(c), { path: '/', secure: isHttps(c) });
    return c.body(null, 204);
  });

  /** One cached, de-duplicated upstream call on behalf of the session's key. */
  const cached = async (
    c: Context<Env>,
    key: string,
    load: (signal: AbortSignal) => Promise<CachedResult>,
  ) => {
    const session = c.get('session');
    const cacheKey = `${session.keyHash}:${key}`;
    const hit = await deps.cache.get(cacheKey);
    if (hit) return hit;
    const result = await inFlight.run(cacheKey, load, c.req.raw.signal);
    await deps.cache.set(cacheKey, result);
    return result;
  };

  const withKeyRevocation = async <T>(c: Context<Env>, work: () => Promise<T>): Promise<T> => {
    try {
      return await work();
    } catch (err) {
      // The key stopped working upstream: this session is over.
      if (err instanceof ApiError && err.code === 'unauthenticated')
        await deps.sessions.delete(c.get('sessionId'));
      throw err;
    }
  };

  api.get('/properties/resolve', requireSession, async (c) => {
    const address = singleParam(c, 'address', 'Enter an address.');
    const session = c.get('session');
    const result = await withKeyRevocation(c, () =>
      cached(c, `resolve:${addressKey(address)}`, async (signal) => ({
        kind: 'property',
        property: await deps.upstream.resolve(session.apiKey, session.keyHash, address, signal),
      })),
    );
    if (result.kind !== 'property')
      throw new ApiError(500, 'internal', 'Cache holds the wrong kind of result.');
    const rateLimit = toRateLimit(await deps.budget.get(session.keyHash), now());
    return c.json({ property: result.property, rateLimit } satisfies ResolveResponse);
  });

  api.get('/properties/search', requireSession, async (c) => {
    const q = singleParam(c, 'q', 'Type part of an address.');
    const session = c.get('session');
    const cursors = params(c, 'cursor');
    if (cursors.length > 1) throw new ApiError(400, 'bad_request', 'Send the cursor parameter once.');
    let upstreamCursor: string | undefined;
    if (cursors[0] !== undefined) {
      const opened = openCursor(cursors[0], q, session.keyHash, cursorSecret);
      if (opened === null)
        throw new ApiError(
          400,
          'bad_request',
          'That page link is not valid for this search. Start the search again.',
        );
      upstreamCursor = opened;
    }
    const result = await withKeyRevocation(c, () =>
      cached(c, `search:${addressKey(q)}:${upstreamCursor ?? ''}`, async (signal) => {
        const page = await deps.upstream.search(session.apiKey, session.keyHash, q, upstreamCursor, signal);
        return { kind: 'page', items: page.items, next: page.nextCursor };
      }),
    );
    if (result.kind !== 'page') throw new ApiError(500, 'internal', 'Cache holds the wrong kind of result.');
    const body: SearchResponse = {
      items: result.items,
      rateLimit: toRateLimit(await deps.budget.get(session.keyHash), now()),
    };
    if (result.next) body.nextCursor = sealCursor(result.next, q, session.keyHash, cursorSecret);
    return c.json(body);
  });

  api.all('/session', () => {
    throw new ApiError(405, 'method_not_allowed', 'Use GET, POST or DELETE on /api/session.');
  });
  api.all('/properties/*', () => {
    throw new ApiError(405, 'method_not_allowed', 'Property endpoints take GET only.');
  });
  api.all('*', () => {
    throw new ApiError(404, 'not_found', 'No such API endpoint.');
  });

  app.route('/api', api);

  if (deps.distDir) mountSpa(app, deps.distDir);

  app.onError((err, c) => {
    if (err instanceof ClientGone) return c.body(null, 499 as 400);
    const apiError = toApiError(err);
    if (apiError.status >= 500 && apiError.code === 'internal') {
      deps.logger.error(
        {
          requestId: c.get('requestId'),
          err: { name: (err as Error).name, message: (err as Error).message },
        },
        'unexpected error',
      );
    }
    return errorResponse(c, apiError);
  });
  app.notFound((c) => errorResponse(c, new ApiError(404, 'not_found', 'Not found.')));
  return app;
}

/** Query values as URLSearchParams decodes them: invalid UTF-8 becomes U+FFFD, which we refuse. */
function params(c: Context, name: string): string[] {
  return new URL(c.req.url).searchParams.getAll(name);
}

function singleParam(c: Context, name: string, blank: string): string {
  const values = params(c, name);
  if (values.length > 1) throw new ApiError(400, 'bad_request', `Send the ${name} parameter once.`);
  const value = values[0] ?? '';
  if (value.includes('\uFFFD')) throw new ApiError(400, 'bad_request', 'The text is not valid UTF-8.');
  const parsed = AddressInput.safeParse(value);
  if (!parsed.success) {
    const message =
      value.trim() === '' ? blank : (parsed.error.issues[0]?.message ?? 'That is not an address.');
    throw new ApiError(400, 'bad_request', message);
  }
  return parsed.data.trim();
}

// Our search cursor wraps the upstream's: signed, and bound to the query and the account, so a client can
// neither forge one nor replay one against another search or key.
function mac(payload: string, secret: string): string {
  return createHmac('sha256', secret).update(payload).digest('base64url');
}

export function sealCursor(upstream: string, q: string, keyHash: string, secret: string): string {
  const payload = Buffer.from(
    JSON.stringify({ u: upstream, q: addressKey(q), k: keyHash.slice(0, 16) }),
  ).toString('base64url');
  return `${payload}.${mac(payload, secret)}`;
}

export function openCursor(cursor: string, q: string, keyHash: string, secret: string): string | null {
  if (cursor.length > 4096) return null;
  const [payload = '', sig = '', ...rest] = cursor.split('.');
  if (rest.length > 0) return null;
  const expected = Buffer.from(mac(payload, secret));
  const given = Buffer.from(sig);
  if (expected.length !== given.length || !timingSafeEqual(expected, given)) return null;
  try {
    const data = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8')) as {
      u?: unknown;
      q?: unknown;
      k?: unknown;
    };
    if (data.q !== addressKey(q) || data.k !== keyHash.slice(0, 16) || typeof data.u !== 'string')
      return null;
    return data.u;
  } catch {
    return null;
  }
}

/** The built SPA: hashed assets cached for a year, everything else revalidated, client routes to index. */
function mountSpa(app: Hono<Env>, distDir: string) {
  const root = resolve(distDir);
  app.use('*', async (c, next) => {
    await next();
    // Set here, not in serveStatic's onFound, which runs after the response is built and is lost.
    // Hashed names never change; index.html must be revalidated so a deploy is seen at once.
    if (c.res.status === 200) {
      c.header(
        'Cache-Control',
        c.req.path.startsWith('/assets/') ? 'public, max-age=31536000, immutable' : 'no-cache',
      );
    }
  });
  app.use('*', serveStatic({ root }));
  // Client-side routes (/search, /sign-in) are the app's index.html.
  app.get('*', serveStatic({ root, path: 'index.html' }));
  app.get('*', (c) =>
    c.text('The web app is not built. Run `npm run build` (npm start does this for you).', 503),
  );
}
