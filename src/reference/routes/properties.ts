import { type Context, Hono } from 'hono';
import { AddressInput, type NotFoundReason, type UpstreamCandidate } from '../../contract/index.ts';
import type { ReferenceDeps, ReferenceEnv } from '../context.ts';
import { openCursor, sealCursor } from '../cursor.ts';
import { envelope, errorResponse, toWireCandidate, toWireProperty } from '../wire.ts';

export const DEFAULT_PAGE_SIZE = 20;
export const MAX_PAGE_SIZE = 100;
const MAX_QUERY_LENGTH = 512;

/** address_not_found's message: why, where the resolver can tell (also for dialects with no body fields). */
const NOT_FOUND_MESSAGE: Record<NotFoundReason | 'none', string> = {
  none: 'No property matches this address.',
  no_such_house: 'The street is known, but not that house number.',
  no_such_street: 'No street of that name is known in the place given.',
  place_not_covered: 'This service holds no properties in that ZIP code.',
};

type ReferenceContext = Context<ReferenceEnv>;

/** /properties: resolve one address to one record, and search (the interface's list endpoint). */
export function propertyRoutes(deps: ReferenceDeps) {
  return new Hono<ReferenceEnv>()
    .get('/resolve', (c) => resolve(c, deps))
    .get('/search', (c) => search(c, deps));
}

/** GET /properties/resolve: one record, or why not (ambiguous with candidates, no such unit, not found). */
function resolve(c: ReferenceContext, { dialect, store, drift }: ReferenceDeps) {
  const candidates = (list: UpstreamCandidate[]) => list.map((x) => toWireCandidate(x, dialect));
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
  const outcome = store.resolve(parsed.data);
  switch (outcome.kind) {
    case 'found':
      return c.json(envelope(toWireProperty(drift(outcome.property), dialect), 'property', dialect));
    case 'ambiguous':
      return errorResponse(
        c,
        dialect,
        409,
        'ambiguous_address',
        'More than one property matches this address. Add the city and state, or the ZIP code.',
        { candidates: candidates(outcome.candidates), total: outcome.total },
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
      return errorResponse(
        c,
        dialect,
        404,
        'address_not_found',
        NOT_FOUND_MESSAGE[outcome.reason ?? 'none'],
        {
          candidates: candidates(outcome.candidates),
          ...(outcome.reason ? { reason: outcome.reason } : {}),
        },
      );
  }
}

/** GET /properties/search: a page of records for q, and a cursor sealed to q when there are more. */
function search(c: ReferenceContext, { dialect, store, cursorSecret, drift }: ReferenceDeps) {
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
  const offset = cursor === undefined ? 0 : openCursor(cursor, q, cursorSecret);
  if (offset === null) {
    return errorResponse(
      c,
      dialect,
      400,
      'invalid_cursor',
      'The cursor is not one this service issued for this query.',
    );
  }
  const page = store.search(q, limit, offset);
  const body: Record<string, unknown> = {
    data: page.items.map((p) => toWireProperty(drift(p), dialect)),
  };
  if (page.more) body.next_cursor = sealCursor(q, offset + page.items.length, cursorSecret);
  return c.json(body);
}

function hasControl(s: string): boolean {
  // biome-ignore lint/suspicious/noControlCharactersInRegex: refusing control characters is the point
  return /[\u0000-\u001f\u007f-\u009f]/.test(s);
}
