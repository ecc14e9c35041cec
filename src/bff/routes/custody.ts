import { Hono } from 'hono';
import type { CustodyState } from '../../contract/custody.ts';
import { type DemoKey, demoKeyOf } from '../../contract/index.ts';
import type { AppEnv } from '../context.ts';
import type { KeyCustody } from '../custody/key-custody.ts';
import { inDatabase } from '../db/database.ts';
import { ApiError } from '../errors.ts';
import { requireSession } from '../middleware/session.ts';
import type { Session, SessionStore } from '../stores/sessions/types.ts';

export interface CustodyRouteDeps {
  custody: KeyCustody;
  sessions: SessionStore;
  demoKeys: DemoKey[] | null;
}

/**
 * A demo key is shared by every visitor of the public demo account, and a visitor's work is removed when they
 * sign out: nobody's key of it is kept, so a stranger's reviews never run on after them.
 */
const DEMO_REFUSAL =
  'The demo keeps no keys: every visitor shares its account. With your own key, reviews can go on while you are signed out.';

/**
 * /api/custody: "Work while I'm signed out". GET says whether the account keeps a key for its reviews; PUT keeps
 * this session's key (held here since the sign-in: the browser sends none); DELETE deletes the kept key, whichever
 * key of the account kept it. Mutations carry X-Requested-With like every /api call (middleware/csrf.ts).
 */
export function custodyRoutes(deps: CustodyRouteDeps) {
  const { custody } = deps;
  const isDemo = (session: Session) =>
    deps.demoKeys?.some((d) => d.key === session.apiKey || d.key === demoKeyOf(session.apiKey)) ?? false;
  const state = (session: Session): Promise<CustodyState> =>
    inDatabase(() => custody.state(session.accountId, isDemo(session) ? DEMO_REFUSAL : null));
  const app = new Hono<AppEnv>();
  app.use('*', requireSession(deps.sessions));
  app.get('/', async (c) => c.json(await state(c.get('session'))));
  app.put('/', async (c) => {
    const session = c.get('session');
    if (isDemo(session)) throw new ApiError(409, 'conflict', DEMO_REFUSAL);
    await inDatabase(() => custody.turnOn(session));
    return c.json(await state(session));
  });
  app.delete('/', async (c) => {
    const session = c.get('session');
    await inDatabase(() => custody.turnOff(session));
    return c.json(await state(session));
  });
  return app;
}
