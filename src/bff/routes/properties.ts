import { Hono } from 'hono';
import {
  LANE_HEADER,
  type Lane,
  type MatchExplanation,
  type Property,
  type RateLimit,
  type ResolveMiss,
  ResolveMissCode,
  type ResolveResponse,
  type SearchResponse,
} from '../../contract/index.ts';
import type { AppContext, AppEnv } from '../context.ts';
import { openCursor, sealCursor } from '../cursors.ts';
import { ApiError } from '../errors.ts';
import { clientSignal } from '../http.ts';
import type { Lookups } from '../lookups.ts';
import { explainMatchOf } from '../match-explanations.ts';
import { sessionOf } from '../middleware/session.ts';
import { addressParam, params } from '../params.ts';
import type { SessionStore } from '../stores/sessions/types.ts';

export interface PropertyRouteDeps {
  lookups: Lookups;
  sessions: SessionStore;
  cursorSecret: string;
}

/** Review work marks itself; everything else is an agent waiting at the screen. */
export const laneOf = (c: AppContext): Lane =>
  c.req.header(LANE_HEADER) === 'review' ? 'review' : 'interactive';

/** /api/properties: resolve one address, and search (typeahead, areas) page by page with our own cursors. */
export function propertyRoutes(deps: PropertyRouteDeps) {
  const app = new Hono<AppEnv>();
  const signedIn = sessionOf(deps.sessions);

  app.get('/resolve', async (c) => {
    const session = await signedIn(c);
    const address = addressParam(c, 'address', 'Enter an address.');
    const found = await deps.lookups
      .resolve(session, address, { signal: clientSignal(c), lane: laneOf(c) })
      .catch((err: unknown) => {
        if (err instanceof ApiError) {
          const code = ResolveMissCode.safeParse(err.code);
          if (code.success) return { missed: err, code: code.data };
        }
        throw err;
      });
    const rateLimit = await deps.lookups.rateLimit(session);
    // No one record: the service's answer, which the person acts on, so a 200 (a 404 or 409 would be logged
    // as an error by the browser). The audit trail has its outcome already (lookups).
    if ('missed' in found) return c.json(missOf(found.missed, found.code, rateLimit) satisfies ResolveMiss);
    // The match per spelling, not per record: the same record answers many spellings (the cache key folds
    // case and spacing), and each gets its own explanation.
    return c.body(
      resolveBody(found.property, rateLimit, explainMatchOf(address, found.property)),
      200,
      JSON_TYPE,
    );
  });

  app.get('/search', async (c) => {
    const session = await signedIn(c);
    const q = addressParam(c, 'q', 'Type part of an address.');
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
    const page = await deps.lookups.search(session, q, upstreamCursor, {
      signal: clientSignal(c),
      lane: laneOf(c),
    });
    const body: SearchResponse = {
      items: page.items,
      rateLimit: await deps.lookups.rateLimit(session),
    };
    if (page.next) body.nextCursor = sealCursor(page.next, q, session.keyHash, deps.cursorSecret);
    return c.json(body);
  });

  return app;
}

const JSON_TYPE = { 'Content-Type': 'application/json' };

/**
 * JSON written once per object: a cached hit answers the record the cache holds (the memory cache keeps it
 * as stored, never copied) and the explanation match-explanations.ts remembers, so each is serialised once,
 * not for every answer. Neither is changed once made (parse.ts builds the record, explainRecordMatch the
 * explanation, and nothing writes to them after).
 */
const written = new WeakMap<object, string>();

function jsonOnce(value: object): string {
  let json = written.get(value);
  if (json === undefined) {
    json = JSON.stringify(value);
    written.set(value, json);
  }
  return json;
}

/** ResolveResponse's JSON as c.json would write it (same keys, same order), with its big parts made once. */
function resolveBody(
  property: Property,
  rateLimit: RateLimit | null,
  match: MatchExplanation | null,
): string {
  const m = match === null ? 'null' : jsonOnce(match);
  return `{"property":${jsonOnce(property)},"rateLimit":${JSON.stringify(rateLimit)},"match":${m}}`;
}
// resolveBody's parts are a ResolveResponse's.
const _isResolveResponse: {
  property: Property;
  rateLimit: RateLimit | null;
  match: MatchExplanation | null;
} extends ResolveResponse
  ? true
  : never = true;

/** A refusal of the resolve as the 200 answer that carries it: the same code, message and candidates. */
function missOf(err: ApiError, code: ResolveMissCode, rateLimit: ResolveMiss['rateLimit']): ResolveMiss {
  const { candidates, total, reason } = err.extra;
  return {
    miss: {
      code,
      message: err.message,
      ...(candidates ? { candidates } : {}),
      ...(total !== undefined ? { total } : {}),
      ...(reason ? { reason } : {}),
    },
    rateLimit,
  };
}
