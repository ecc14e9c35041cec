import { Hono } from 'hono';
import {
  explainRecordMatch,
  LANE_HEADER,
  type Lane,
  type ResolveResponse,
  type SearchResponse,
} from '../../contract/index.ts';
import type { AppContext, AppEnv } from '../context.ts';
import { openCursor, sealCursor } from '../cursors.ts';
import { ApiError } from '../errors.ts';
import { clientSignal } from '../http.ts';
import type { Lookups } from '../lookups.ts';
import { requireSession } from '../middleware/session.ts';
import { addressParam, params } from '../params.ts';
import type { SessionStore } from '../stores/sessions/types.ts';
import type { UpstreamClient } from '../upstream/client.ts';

export interface PropertyRouteDeps {
  lookups: Lookups;
  upstream: UpstreamClient;
  sessions: SessionStore;
  cursorSecret: string;
}

/** Review work marks itself; everything else is an agent waiting at the screen. */
export const laneOf = (c: AppContext): Lane =>
  c.req.header(LANE_HEADER) === 'review' ? 'review' : 'interactive';

/** /api/properties: resolve one address, and search (typeahead, areas) page by page with our own cursors. */
export function propertyRoutes(deps: PropertyRouteDeps) {
  const app = new Hono<AppEnv>();
  const signedIn = requireSession(deps.sessions);

  app.get('/resolve', signedIn, async (c) => {
    const address = addressParam(c, 'address', 'Enter an address.');
    const session = c.get('session');
    const { property } = await deps.lookups.resolve(session, c.get('sessionId'), address, {
      signal: clientSignal(c),
      lane: laneOf(c),
    });
    return c.json({
      property,
      rateLimit: await deps.upstream.rateLimit(session.keyHash),
      // Per request, not cached: the same record answers many spellings (the cache key folds case and
      // spacing), and each gets its own explanation.
      match: explainRecordMatch(address, property),
    } satisfies ResolveResponse);
  });

  app.get('/search', signedIn, async (c) => {
    const q = addressParam(c, 'q', 'Type part of an address.');
    const session = c.get('session');
    const cursors = params(c, 'cursor');
    if (cursors.length > 1) throw new ApiError(400, 'bad_request', 'Send the cursor parameter once.');
    let upstreamCursor: string | undefined;
    if (cursors[0] !== undefined) {
      const opened = openCursor(cursors[0], q, session.keyHash, deps.cursorSecret);
      if (opened === null) {
        throw new ApiError(
          400,
          'bad_request',
          'That page link is not valid for this search. Start the search again.',
        );
      }
      upstreamCursor = opened;
    }
    const page = await deps.lookups.search(session, c.get('sessionId'), q, upstreamCursor, {
      signal: clientSignal(c),
      lane: laneOf(c),
    });
    const body: SearchResponse = {
      items: page.items,
      rateLimit: await deps.upstream.rateLimit(session.keyHash),
    };
    if (page.next) body.nextCursor = sealCursor(page.next, q, session.keyHash, deps.cursorSecret);
    return c.json(body);
  });

  return app;
}
