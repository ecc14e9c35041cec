import type { Context, MiddlewareHandler } from 'hono';
import { demoKeyOf, ELIGIBLE_PLANS } from '../../contract/index.ts';
import { hashKey, SALES_CONTACT } from '../accounts.ts';
import type { ReferenceDeps, ReferenceEnv } from '../context.ts';
import type { Dialect } from '../dialect.ts';
import { errorResponse } from '../wire.ts';

/**
 * Reads the key where the dialect puts it and looks its account up. Refuses nothing: the rate limiter
 * counts the request first (see requireAccount).
 */
export function identifyCaller(deps: ReferenceDeps): MiddlewareHandler<ReferenceEnv> {
  return async (c, next) => {
    const key = readKey(c, deps.dialect);
    // Hash once per request: the limiter buckets by the hash and the directory is keyed by it.
    const keyHash = key ? hashKey(key) : undefined;
    c.set('keyHash', keyHash);
    // A demo key as one visitor uses it is the demo key's account, counted in a window of its own.
    const demo = key ? demoKeyOf(key) : null;
    const account = keyHash ? deps.accounts.findByHash(keyHash) : undefined;
    c.set('caller', account ?? (demo ? deps.accounts.find(demo) : undefined));
    await next();
  };
}

/** 401 without a known key, 403 for a plan without API access; otherwise sets `account`. */
export function requireAccount(deps: ReferenceDeps): MiddlewareHandler<ReferenceEnv> {
  const { dialect } = deps;
  return async (c, next) => {
    const account = c.get('caller');
    if (!account) {
      return errorResponse(
        c,
        dialect,
        401,
        'unauthorized',
        c.get('keyHash') ? 'The API key is not valid.' : `No API key was sent. ${keyPlacementHint(dialect)}`,
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
  };
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
