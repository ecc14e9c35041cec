import { Hono } from 'hono';
import type { ReferenceDeps, ReferenceEnv } from '../context.ts';
import { envelope } from '../wire.ts';

/** /auth: confirms that the credentials work (the auth middleware has already checked them). */
export function authRoutes(deps: ReferenceDeps) {
  return new Hono<ReferenceEnv>().get('/me', (c) => {
    const { id, name, plan } = c.get('account');
    return c.json(envelope({ id, name, plan }, 'account', deps.dialect));
  });
}
