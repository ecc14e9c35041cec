import type { MiddlewareHandler } from 'hono';
import { deleteCookie, getCookie } from 'hono/cookie';
import { type AppContext, type AppEnv, sessionCookieName } from '../context.ts';
import { ApiError } from '../errors.ts';
import type { Session, SessionStore } from '../stores/sessions/types.ts';

/** Loads the session named by the cookie into c.var.session, or answers 401 (and clears a dead cookie). */
export function requireSession(sessions: SessionStore): MiddlewareHandler<AppEnv> {
  const signedIn = sessionOf(sessions);
  return async (c, next) => {
    await signedIn(c);
    await next();
  };
}

/**
 * What requireSession does, called by a handler itself: its session (also put in c.var.session), or 401. The
 * lookups' routes, the hot path, call it so, and pass one async layer fewer on every answer.
 */
export function sessionOf(sessions: SessionStore): (c: AppContext) => Promise<Session> {
  return async (c) => {
    const name = sessionCookieName(c);
    const id = getCookie(c, name);
    const session = id ? await sessions.get(id) : undefined;
    if (!id || !session) {
      if (id) deleteCookie(c, name, { path: '/', secure: c.get('https') });
      throw new ApiError(401, 'unauthenticated', 'Your session has ended. Sign in again with your API key.');
    }
    c.set('session', session);
    c.set('sessionId', id);
    return session;
  };
}
