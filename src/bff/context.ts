import type { Context } from 'hono';
import type { Session } from './stores/sessions/types.ts';

/** What middleware puts on the context for the routes. */
export type AppEnv = {
  Variables: { requestId: string; https: boolean; session: Session; sessionId: string };
};

export type AppContext = Context<AppEnv>;

/** `__Host-` only over HTTPS: browsers refuse that prefix without Secure. */
export const sessionCookieName = (c: AppContext) =>
  c.get('https') ? '__Host-proplens_session' : 'proplens_session';
