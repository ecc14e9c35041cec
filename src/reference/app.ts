import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import { type Context, Hono } from 'hono';
import { AddressInput, ELIGIBLE_PLANS, type Plan } from '../contract/index.ts';
import { type Account, AccountDirectory, hashKey, SALES_CONTACT } from './accounts.ts';
import { DEFAULT_DIALECT, type Dialect } from './dialect.ts';
import { createFaultPicker, type Faults, NO_FAULTS } from './faults.ts';
import { buildOpenApiDocument } from './openapi.ts';
import { DEFAULT_PLAN_RULES, RateLimiter, type RateRule } from './rate-limiter.ts';
import type { PropertyStore } from './store.ts';
import { envelope, errorResponse, formatReset, toWireCandidate, toWireProperty } from './wire.ts';

export interface ReferenceOptions {
  store: PropertyStore;
  dialect?: Dialect;
  /** Overrides every plan's rule (REFERENCE_RATE_LIMIT). */
  rateLimit?: RateRule;
  faults?: Faults;
  accounts?: AccountDirectory;
  now?: () => number;
  /** Sleep used for injected latency; tests pass a fake. */
  sleep?: (ms: number) => Promise<void>;
  /** Signs cursors. Random per process unless given, so a cursor from another run is refused. */
  cursorSecret?: string;
}

type Env = { Variables: { account: Account } };

export const DEFAULT_PAGE_SIZE = 20;
export const MAX_PAGE_SIZE = 100;
const MAX_QUERY_LENGTH = 512;

/** Tells the in-process fetch adapter to fail the call as a dropped connection would. */
export const DROP_HEADER = 'x-reference-drop-connection';

export function createReferenceApp(options: ReferenceOptions) {
  const dialect = options.dialect ?? DEFAULT_DIALECT;
  const now = options.now ?? Date.now;
  const sleep = options.sleep ?? ((ms: number) => new Promise<void>((r) => setTimeout(r, ms)));
  const accounts = options.accounts ?? new AccountDirectory();
  const faults = options.faults ?? NO_FAULTS;
  const pickFault = createFaultPicker(faults);
  const limiter = new RateLimiter(now);
  const cursorSecret = options.cursorSecret ?? randomBytes(32).toString('hex');
  const ruleFor = (plan: Plan | 'anonymous') => options.rateLimit ?? DEFAULT_PLAN_RULES[plan];

  const app = new Hono<Env>();

  const setLimitHeaders = (c: Context, limit: number, remaining: number, resetAt: number) => {
    c.header('X-RateLimit-Limit', String(limit));
    c.header('X-RateLimit-Remaining', String(Math.max(0, remaining)));
    c.header('X-RateLimit-Reset', formatReset(resetAt, now(), dialect));
  };

  // The document depends only on the dialect: build it once, not per request.
  const openApi = buildOpenApiDocument(dialect);
  app.get('/openapi.json', (c) => c.json(openApi));

  // Faults come first: a real outage does not check your key.
  app.use('*', async (c, next) => {
    if (faults.latencyMs > 0) await sleep(faults.latencyMs);
    const fault = pickFault();
    if (fault === 'drop') {
      const incoming = (c.env as { incoming?: { socket?: { destroy(): void } } } | undefined)?.incoming;
      incoming?.socket?.destroy();
      return c.body(null, 502, { [DROP_HEADER]: '1' });
    }
    if (fault === 'storm') {
      setLimitHeaders(c, ruleFor('anonymous').requests, 0, now() + 3000);
      return errorResponse(c, dialect, 429, 'rate_limited', 'Too many requests. Retry after the reset time.');
    }
    if (fault === 'error500') return errorResponse(c, dialect, 500, 'internal', 'Internal error.');
    if (fault === 'error503') return errorResponse(c, dialect, 503, 'unavailable', 'Service unavailable.');
    await next();
    if (fault === 'malformed' && c.res.status === 200) {
      const text = await c.res.text();
      c.res = new Response(text.slice(0, Math.max(1, Math.floor(text.length / 2))), c.res);
    }
  });

  // Authentication and rate limiting. Every answer, refusals included, carries the limit headers.
  app.use('*', async (c, next) => {
    const key = readKey(c, dialect);
    const keyHash = key ? hashKey(key) : undefined;
    const account = keyHash ? accounts.findByHash(keyHash) : undefined;
    const bucket = keyHash ?? `anonymous:${clientAddress(c)}`;
    const decision = limiter.take(bucket, ruleFor(account?.plan ?? 'anonymous'));
    setLimitHeaders(c, decision.limit, decision.remaining, decision.resetAt);
    if (!decision.allowed) {
      return errorResponse(
        c,
        dialect,
        429,
        'rate_limited',
        'Rate limit exceeded. Retry after the reset time.',
      );
    }
    if (!account) {
      return errorResponse(
        c,
        dialect,
        401,
        'unauthorized',
        key ? 'The API key is not valid.' : `No API key was sent. ${keyPlacementHint(dialect)}`,
      );
    }
    if (!ELIGIBLE_PLANS.includes(account.plan)) {
      return errorResponse(
        c,
        dialect,
        403,
        'plan_not_eligible',
        `API access needs a professional or enterprise plan; this account is on the ${account.plan} plan. ` +
          `Contact ${SALES_CONTACT} to upgrade.`,
      );
    }
    c.set('account', account);
    await next();
  });

  app.get('/auth/me', (c) => {
    const { id, name, plan } = c.get('account');
    return c.json(envelope({ id, name, plan }, 'account', dialect));
  });

  app.get('/properties/resolve', (c) => {
    const addresses = c.req.queries('address') ?? [];
    if (addresses.length > 1) {
      return errorResponse(c, dialect, 400, 'invalid_address', 'Send the address parameter once.');
    }
    const parsed = AddressInput.safeParse(addresses[0] ?? '');
    if (!parsed.success) {
      return errorResponse(
        c,
        dialect,
        400,
        'invalid_address',
        parsed.error.issues[0]?.message ?? 'Bad address.',
      );
    }
    const outcome = options.store.resolve(parsed.data);
    const candidates = (list: { property_id: string; address: string }[]) =>
      list.map((x) => toWireCandidate(x, dialect));
    switch (outcome.kind) {
      case 'found':
        return c.json(envelope(toWireProperty(outcome.property, dialect), 'property', dialect));
      case 'ambiguous':
        return errorResponse(
          c,
          dialect,
          409,
          'ambiguous_address',
          'More than one property matches this address. Add the city and state, or the ZIP code.',
          { candidates: candidates(outcome.candidates) },
        );
      case 'unit_not_found':
        return errorResponse(
          c,
          dialect,
          404,
          'unit_not_found',
          'The building is known but it has no such unit.',
          {
            building: toWireCandidate(outcome.building, dialect),
            candidates: candidates(outcome.candidates),
          },
        );
      case 'not_found':
        return errorResponse(c, dialect, 404, 'address_not_found', 'No property matches this address.', {
          candidates: candidates(outcome.candidates),
        });
    }
  });

  app.get('/properties/search', (c) => {
    const qs = c.req.queries('q') ?? [];
    const q = qs[0] ?? '';
    if (qs.length !== 1 || q.trim() === '' || q.length > MAX_QUERY_LENGTH || hasControl(q)) {
      return errorResponse(
        c,
        dialect,
        400,
        'invalid_query',
        'Send one q parameter: 1 to 512 printable characters.',
      );
    }
    const limitText = c.req.query('limit');
    const limit = limitText === undefined ? DEFAULT_PAGE_SIZE : Number(limitText);
    if (!Number.isInteger(limit) || limit < 1 || limit > MAX_PAGE_SIZE) {
      return errorResponse(
        c,
        dialect,
        400,
        'invalid_query',
        `limit must be a whole number from 1 to ${MAX_PAGE_SIZE}.`,
      );
    }
    const cursor = c.req.query('cursor');
    let offset = 0;
    if (cursor !== undefined) {
      const decoded = openCursor(cursor, q, cursorSecret);
      if (decoded === null) {
        return errorResponse(
          c,
          dialect,
          400,
          'invalid_cursor',
          'The cursor is not one this service issued for this query.',
        );
      }
      offset = decoded;
    }
    const page = options.store.search(q, limit, offset);
    const body: Record<string, unknown> = { data: page.items.map((p) => toWireProperty(p, dialect)) };
    if (page.more) body.next_cursor = sealCursor(q, offset + page.items.length, cursorSecret);
    return c.json(body);
  });

  app.notFound((c) => errorResponse(c, dialect, 404, 'not_found', 'No such endpoint.'));
  app.onError((err, c) => {
    console.error('[reference] unexpected error', err);
    return errorResponse(c, dialect, 500, 'internal', 'Internal error.');
  });

  return app;
}

function readKey(c: Context, dialect: Dialect): string | undefined {
  switch (dialect.auth) {
    case 'bearer': {
      const m = /^Bearer\s+(\S+)\s*$/i.exec(c.req.header('authorization') ?? '');
      return m?.[1];
    }
    case 'header':
      return c.req.header('x-api-key')?.trim() || undefined;
    case 'query':
      return c.req.query('api_key')?.trim() || undefined;
  }
}

function keyPlacementHint(dialect: Dialect): string {
  if (dialect.auth === 'bearer') return 'Send it as "Authorization: Bearer <key>".';
  if (dialect.auth === 'header') return 'Send it in the X-API-Key header.';
  return 'Send it as the api_key query parameter.';
}

function clientAddress(c: Context): string {
  const incoming = (c.env as { incoming?: { socket?: { remoteAddress?: string } } } | undefined)?.incoming;
  return incoming?.socket?.remoteAddress ?? 'local';
}

function hasControl(s: string): boolean {
  // biome-ignore lint/suspicious/noControlCharactersInRegex: refusing control characters is the point
  return /[\u0000-\u001f\u007f-\u009f]/.test(s);
}

// Cursors: the offset and a hash of the query, signed. Tamper-evident, bound to the query they were issued
// for, and opaque to clients. Offsets are stable because the data and its ranking do not change.
function sign(payload: string, secret: string): string {
  return createHmac('sha256', secret).update(payload).digest('base64url').slice(0, 22);
}

function queryTag(q: string): string {
  return createHmac('sha256', 'query').update(q.trim().toLowerCase()).digest('base64url').slice(0, 10);
}

export function sealCursor(q: string, offset: number, secret: string): string {
  const payload = Buffer.from(JSON.stringify({ o: offset, q: queryTag(q) })).toString('base64url');
  return `${payload}.${sign(payload, secret)}`;
}

export function openCursor(cursor: string, q: string, secret: string): number | null {
  const [payload = '', mac = '', ...rest] = cursor.split('.');
  if (rest.length > 0 || payload === '' || cursor.length > 200) return null;
  const expected = Buffer.from(sign(payload, secret));
  const given = Buffer.from(mac);
  if (expected.length !== given.length || !timingSafeEqual(expected, given)) return null;
  try {
    const data = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8')) as {
      o?: unknown;
      q?: unknown;
    };
    if (data.q !== queryTag(q) || !Number.isInteger(data.o) || (data.o as number) < 0) return null;
    return data.o as number;
  } catch {
    return null;
  }
}

/**
 * A fetch that calls the app in-process: for the BFF's tests and for `npm start`'s embedded mode a
 * loopback server is used instead. A dropped connection surfaces as fetch's own network TypeError.
 */
export function createInProcessFetch(app: { fetch: (req: Request) => Response | Promise<Response> }) {
  return async (input: string | URL | Request, init?: RequestInit): Promise<Response> => {
    const req = input instanceof Request ? input : new Request(input, init);
    const signal = init?.signal ?? req.signal;
    const aborted = () => signal?.reason ?? new DOMException('This operation was aborted', 'AbortError');
    if (signal?.aborted) throw aborted();
    // Like a socket, give up when the caller aborts, even while the app is still working.
    const res = await new Promise<Response>((resolve, reject) => {
      signal?.addEventListener('abort', () => reject(aborted()), { once: true });
      Promise.resolve(app.fetch(req)).then(resolve, reject);
    });
    if (res.headers.get(DROP_HEADER))
      throw new TypeError('fetch failed', { cause: new Error('socket hang up') });
    return res;
  };
}
