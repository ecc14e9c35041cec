import { randomBytes } from 'node:crypto';
import { type Context, Hono } from 'hono';
import { deleteCookie, getCookie, setCookie } from 'hono/cookie';
import type { Logger } from 'pino';
import {
  type AppConfig,
  CreateSessionRequest,
  type DemoKey,
  demoKeyOf,
  demoVisitorKey,
  KeyNameRequest,
  type KeyNamesResponse,
  type SessionResponse,
} from '../../contract/index.ts';
import type { Audit } from '../audit/audit.ts';
import { type AppEnv, sessionCookieName } from '../context.ts';
import { inDatabase } from '../db/database.ts';
import { ApiError, toApiError } from '../errors.ts';
import type { Lookups } from '../lookups.ts';
import { jsonBody } from '../middleware/json-body.ts';
import { requireSession } from '../middleware/session.ts';
import { clientGroup, signInLimit } from '../middleware/sign-in-limit.ts';
import type { DurableReviews } from '../reviews/durable-reviews.ts';
import type { SqlKeyNames } from '../stores/key-names.ts';
import {
  accountIdFor,
  hashKey,
  keyFingerprint,
  newAuditRef,
  type Session,
  type SessionStore,
} from '../stores/sessions/types.ts';

export interface SessionRouteDeps {
  /** The key check of a sign-in and the rate limit every answer tells: the service is asked through Lookups. */
  lookups: Pick<Lookups, 'checkKey' | 'rateLimit'>;
  sessions: SessionStore;
  logger: Logger;
  demoKeys: DemoKey[] | null;
  salesContact: string | null;
  sessionAbsoluteMs: number;
  /** The audit trail: sign-ins, sign-outs and refused sign-ins are recorded (the key's fingerprint only). */
  audit?: Audit;
  /** Reviews kept on the server: a demo visitor's sign-out removes the ones that visitor started. */
  reviews?: Pick<DurableReviews, 'store'>;
  /** Sign-ins per client address per minute (0: no limit), and whether X-Forwarded-For names the client. */
  signInsPerMinute?: number;
  trustProxy?: boolean;
  /** The names people give their keys (on the database); absent, keys have no names. */
  keyNames?: SqlKeyNames;
}

/** More reviews than any demo visitor starts: the list read at a demo sign-out is bounded by it. */
const DEMO_REVIEWS_READ = 5_000;

/** What the configured demo keys mean for a sign-in. */
function demoRules(demoKeys: DemoKey[] | null) {
  const isDemoKey = (key: string | null) => demoKeys?.some((d) => d.key === key) ?? false;
  return {
    /** A demo key, typed or as a visitor uses it. */
    isDemo: (apiKey: string) => isDemoKey(apiKey) || isDemoKey(demoKeyOf(apiKey)),
    // Each demo sign-in gets a budget of its own (the reference counts a visitor key apart): one prospect
    // spending the window never makes the next one wait.
    upstreamKey: (typed: string) =>
      isDemoKey(typed) ? demoVisitorKey(typed, randomBytes(12).toString('base64url')) : typed,
  };
}
type DemoRules = ReturnType<typeof demoRules>;

async function sessionAnswer(
  deps: SessionRouteDeps,
  demo: DemoRules,
  session: Pick<Session, 'apiKey' | 'keyHash' | 'account' | 'accountId'>,
): Promise<SessionResponse> {
  const fingerprint = keyFingerprint(session.keyHash);
  return {
    account: session.account,
    accountId: session.accountId,
    demo: demo.isDemo(session.apiKey),
    keyFingerprint: fingerprint,
    keyName:
      (await deps.keyNames?.get(session.accountId, fingerprint)) ??
      (demo.isDemo(session.apiKey) ? visitorName(fingerprint) : null),
    rateLimit: await deps.lookups.rateLimit(session),
  };
}

/** A demo visitor's name for the visit (their key is theirs for the visit): the browser says it the same way. */
export const visitorName = (fingerprint: string) => `Visitor ${fingerprint.slice(0, 4).toUpperCase()}`;

/** POST /session: the key is asked of the upstream, then a new session holds it and the sign-in is on record. */
async function signIn(
  c: Context<AppEnv>,
  deps: SessionRouteDeps,
  demo: DemoRules,
  { apiKey: typedKey, name: typedName }: CreateSessionRequest,
) {
  const apiKey = demo.upstreamKey(typedKey);
  const keyHash = hashKey(apiKey);
  deps.audit?.assertWritable();
  const me = await deps.lookups.checkKey(apiKey, keyHash).catch(async (err: unknown) => {
    const code = toApiError(err).code;
    if (code === 'invalid_key' || code === 'plan_not_eligible')
      await deps.audit?.session('sign_in_refused', { accountId: accountIdFor(keyHash), keyHash });
    throw err;
  });
  const { id: upstreamAccountId, ...account } = me;
  const accountId = accountIdFor(keyHash, upstreamAccountId);
  // A new sign-in never reuses a session id (no fixation).
  const name = sessionCookieName(c);
  const previous = getCookie(c, name);
  if (previous) await deps.sessions.delete(previous);
  const auditRef = newAuditRef();
  // Where it came from: a flood of sign-ins from one address evicts that address's sessions first.
  const client = clientGroup(c, deps.trustProxy ?? false);
  const id = await deps.sessions.create({
    apiKey,
    keyHash,
    account,
    accountId,
    auditRef,
    ...(client ? { client } : {}),
  });
  // No session is handed out whose sign-in is not on record.
  await deps.audit?.session('sign_in', { accountId, keyHash, auditRef }).catch(async (err: unknown) => {
    await deps.sessions.delete(id);
    throw err;
  });
  setCookie(c, name, id, {
    httpOnly: true,
    sameSite: 'Strict',
    path: '/',
    secure: c.get('https'),
    maxAge: Math.floor(deps.sessionAbsoluteMs / 1000),
  });
  const names = deps.keyNames;
  if (names && typedName?.trim())
    await inDatabase(() => names.set(accountId, keyFingerprint(keyHash), typedName));
  deps.logger.info({ requestId: c.get('requestId'), plan: account.plan }, 'signed in');
  return c.json(await sessionAnswer(deps, demo, { apiKey, keyHash, account, accountId }));
}

/** PUT /session/name: this key's name (empty: none), as every view of the account will show it. */
async function renameKey(
  c: Context<AppEnv, '/session/name', { out: { json: KeyNameRequest } }>,
  deps: SessionRouteDeps,
  demo: DemoRules,
) {
  const session = c.get('session');
  if (!deps.keyNames)
    throw new ApiError(404, 'not_found', 'Names for keys need the database (DATABASE_DIR or DATABASE_URL).');
  const names = deps.keyNames;
  const asked = c.req.valid('json');
  const fingerprint = keyFingerprint(session.keyHash);
  if (asked.fingerprint !== undefined && asked.fingerprint !== fingerprint)
    throw new ApiError(
      409,
      'conflict',
      `This browser is signed in with another key now (key ${fingerprint}), perhaps from another tab. Reload the page to see whose name you are setting.`,
    );
  await inDatabase(() => names.set(session.accountId, fingerprint, asked.name));
  return c.json(await sessionAnswer(deps, demo, session));
}

/** DELETE /session: the session ends, a demo visitor's reviews go, and the sign-out is on record. */
async function signOut(c: Context<AppEnv>, deps: SessionRouteDeps, demo: DemoRules) {
  const name = sessionCookieName(c);
  const id = getCookie(c, name);
  if (id) {
    const session = await deps.sessions.get(id);
    // Ended first: a sign-out never fails open, whatever happens after.
    await deps.sessions.delete(id);
    if (session) {
      await removeVisitorReviews(deps, demo, session, c.get('requestId'));
      // Evidence of a sign-out is kept when it can be; when the trail cannot take it, the session is over
      // all the same (nothing is answered that the trail should hold: a sign-out shows no record).
      await deps.audit?.session('sign_out', session).catch((err: unknown) => {
        deps.logger.error(
          { requestId: c.get('requestId'), err: { message: (err as Error).message } },
          'sign-out not recorded in the audit trail',
        );
      });
    }
  }
  deleteCookie(c, name, { path: '/', secure: c.get('https') });
  return c.body(null, 204);
}

/**
 * A demo visitor signs out: the reviews this visitor's key started are removed (demo data, not kept), and no
 * other visitor's, though all of them are one account. Decided here, where the session's key is known, not
 * by a list the browser sends (and the name the visitor gave their key goes too). A database away does not
 * keep anyone signed in: it is logged, and the
 * reviews stay.
 */
async function removeVisitorReviews(
  deps: SessionRouteDeps,
  demo: DemoRules,
  session: Session,
  requestId: string,
) {
  const store = deps.reviews?.store;
  if (!store || !demo.isDemo(session.apiKey)) return;
  const mine = keyFingerprint(session.keyHash);
  try {
    const reviews = await inDatabase(() => store.list(session.accountId, DEMO_REVIEWS_READ));
    for (const review of reviews)
      if (review.createdBy === mine) await inDatabase(() => store.delete(session.accountId, review.id));
    const names = deps.keyNames;
    if (names) await inDatabase(() => names.set(session.accountId, mine, ''));
  } catch (err) {
    deps.logger.warn({ requestId, err: (err as Error).message }, 'demo reviews not removed at sign-out');
  }
}

/** /api/config and /api/session: sign in with an API key (held here, never sent back), who am I, sign out. */
export function sessionRoutes(deps: SessionRouteDeps) {
  const demo = demoRules(deps.demoKeys);
  const app = new Hono<AppEnv>();
  app.get('/config', (c) =>
    c.json({ demoKeys: deps.demoKeys, salesContact: deps.salesContact } satisfies AppConfig),
  );
  app.post(
    '/session',
    signInLimit({ perMinute: deps.signInsPerMinute ?? 0, trustProxy: deps.trustProxy ?? false }),
    jsonBody(CreateSessionRequest, { maxBytes: 4096, tooLarge: 'The request body is too large.' }),
    (c) => signIn(c, deps, demo, c.req.valid('json')),
  );
  // No cookie at all (a first visit): nobody is signed in, which is no error, so 204 rather than a 401 the
  // browser would log. A cookie whose session has ended still answers 401 (requireSession).
  app.get(
    '/session',
    async (c, next) => (getCookie(c, sessionCookieName(c)) ? next() : c.body(null, 204)),
    requireSession(deps.sessions),
    async (c) => c.json(await sessionAnswer(deps, demo, c.get('session'))),
  );
  app.delete('/session', (c) => signOut(c, deps, demo));
  app.put(
    '/session/name',
    requireSession(deps.sessions),
    jsonBody(KeyNameRequest, { maxBytes: 4096, tooLarge: 'The request body is too large.' }),
    (c) => renameKey(c, deps, demo),
  );
  app.get('/account/keys', requireSession(deps.sessions), async (c) => {
    const keys = await keyNamesFor(deps.keyNames, deps.demoKeys, c.get('session'));
    return c.json({ keys } satisfies KeyNamesResponse);
  });
  return app;
}

/**
 * The names of the account's keys one session may read (the Activity page and its export, who started a review):
 * all of them, but a demo visitor's own only, for strangers share the public demo account.
 */
export async function keyNamesFor(
  keyNames: SqlKeyNames | undefined,
  demoKeys: DemoKey[] | null,
  session: Session,
): Promise<KeyNamesResponse['keys']> {
  const all = keyNames ? await inDatabase(() => keyNames.all(session.accountId)) : [];
  if (!demoRules(demoKeys).isDemo(session.apiKey)) return all;
  const mine = keyFingerprint(session.keyHash);
  return all.filter((k) => k.fingerprint === mine);
}
