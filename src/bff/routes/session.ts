import { randomBytes } from 'node:crypto';
import { Hono } from 'hono';
import { deleteCookie, getCookie, setCookie } from 'hono/cookie';
import type { Logger } from 'pino';
import {
  type AppConfig,
  CreateSessionRequest,
  type DemoKey,
  demoKeyOf,
  demoVisitorKey,
  type SessionResponse,
} from '../../contract/index.ts';
import type { Audit } from '../audit/audit.ts';
import { type AppEnv, sessionCookieName } from '../context.ts';
import { toApiError } from '../errors.ts';
import { jsonBody } from '../middleware/json-body.ts';
import { requireSession } from '../middleware/session.ts';
import {
  accountIdFor,
  hashKey,
  newAuditRef,
  type Session,
  type SessionStore,
} from '../stores/sessions/types.ts';
import type { UpstreamClient } from '../upstream/client.ts';

export interface SessionRouteDeps {
  upstream: UpstreamClient;
  sessions: SessionStore;
  logger: Logger;
  demoKeys: DemoKey[] | null;
  salesContact: string | null;
  sessionAbsoluteMs: number;
  /** The audit trail: sign-ins, sign-outs and refused sign-ins are recorded (the key's fingerprint only). */
  audit?: Audit;
}

/** /api/config and /api/session: sign in with an API key (held here, never sent back), who am I, sign out. */
export function sessionRoutes(deps: SessionRouteDeps) {
  const isDemoKey = (key: string | null) => deps.demoKeys?.some((d) => d.key === key) ?? false;
  /** A demo key, typed or as a visitor uses it. */
  const isDemo = (apiKey: string) => isDemoKey(apiKey) || isDemoKey(demoKeyOf(apiKey));
  // Each demo sign-in gets a budget of its own (the reference counts a visitor key apart): one prospect
  // spending the window never makes the next one wait.
  const upstreamKey = (typed: string) =>
    isDemoKey(typed) ? demoVisitorKey(typed, randomBytes(12).toString('base64url')) : typed;
  const answer = async (
    session: Pick<Session, 'apiKey' | 'keyHash' | 'account' | 'accountId'>,
  ): Promise<SessionResponse> => ({
    account: session.account,
    accountId: session.accountId,
    legacyAccountId: accountIdFor(hashKey(demoKeyOf(session.apiKey) ?? session.apiKey)),
    demo: isDemo(session.apiKey),
    rateLimit: await deps.upstream.rateLimit(session.keyHash),
  });

  const app = new Hono<AppEnv>();
  app.get('/config', (c) =>
    c.json({ demoKeys: deps.demoKeys, salesContact: deps.salesContact } satisfies AppConfig),
  );

  app.post(
    '/session',
    jsonBody(CreateSessionRequest, { maxBytes: 4096, tooLarge: 'The request body is too large.' }),
    async (c) => {
      const apiKey = upstreamKey(c.req.valid('json').apiKey);
      const keyHash = hashKey(apiKey);
      deps.audit?.assertWritable();
      const me = await deps.upstream.me(apiKey, keyHash).catch((err: unknown) => {
        const code = toApiError(err).code;
        if (code === 'invalid_key' || code === 'plan_not_eligible')
          deps.audit?.session('sign_in_refused', { accountId: accountIdFor(keyHash), keyHash });
        throw err;
      });
      const { id: upstreamAccountId, ...account } = me;
      const accountId = accountIdFor(keyHash, upstreamAccountId);
      // A new sign-in never reuses a session id (no fixation).
      const name = sessionCookieName(c);
      const previous = getCookie(c, name);
      if (previous) await deps.sessions.delete(previous);
      const auditRef = newAuditRef();
      const id = await deps.sessions.create({ apiKey, keyHash, account, accountId, auditRef });
      deps.audit?.session('sign_in', { accountId, keyHash, auditRef });
      setCookie(c, name, id, {
        httpOnly: true,
        sameSite: 'Strict',
        path: '/',
        secure: c.get('https'),
        maxAge: Math.floor(deps.sessionAbsoluteMs / 1000),
      });
      deps.logger.info({ requestId: c.get('requestId'), plan: account.plan }, 'signed in');
      return c.json(await answer({ apiKey, keyHash, account, accountId }));
    },
  );
  // No cookie at all (a first visit): nobody is signed in, which is no error, so 204 rather than a 401 the
  // browser would log. A cookie whose session has ended still answers 401 (requireSession).
  app.get(
    '/session',
    async (c, next) => (getCookie(c, sessionCookieName(c)) ? next() : c.body(null, 204)),
    requireSession(deps.sessions),
    async (c) => c.json(await answer(c.get('session'))),
  );
  app.delete('/session', async (c) => {
    const name = sessionCookieName(c);
    const id = getCookie(c, name);
    if (id) {
      const session = await deps.sessions.get(id);
      if (session) deps.audit?.session('sign_out', session);
      await deps.sessions.delete(id);
    }
    deleteCookie(c, name, { path: '/', secure: c.get('https') });
    return c.body(null, 204);
  });
  return app;
}
