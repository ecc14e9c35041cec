import type { Account, RateLimit } from '../contract/index.ts';
import { UNATTENDED } from './custody/key-custody.ts';
import { ApiError, toApiError } from './errors.ts';
import type { Session, SessionStore } from './stores/sessions/types.ts';

/*
 * "This key was refused": the service answered a lookup made with a session's key 401 (the key was revoked or
 * rotated, or its account closed). This module owns what follows, wherever the lookup came from (a search or a
 * resolve in a browser, a review row, a row fixed in place):
 * - every session holding the key ends, whoever signed in with it and whichever replica lends it to the review
 *   worker, so nobody sends the key again: RefusedKeys.asking, the one caller of sessions.refuseKey, once per
 *   answer of the service's (lookups sharing one upstream call share its ending);
 * - the person is told in one sentence, as 401 unauthenticated (keyRefused), at which the browser signs out;
 * - the lookup has its audit entry like any failed lookup, one per lookup, with the outcome `refused`
 *   (audit.ts outcomeOfError); nothing here writes another;
 * - a review row it answered has no answer of the service's (isKeyRefused): the worker gives the row back
 *   spending none of its attempts, no metric counts it, and its review waits for a sign-in of its account.
 * - a key kept for the account's unattended work (key custody, custody/) is deleted at once, and the refusal's date
 *   kept for Settings and the review to say: `sessions` here is the store withCustody decorates (graph.ts). A
 *   kept key's lookup answered 403 (its account lost API access) is refused the same way: nobody is there to be
 *   told, and every row would otherwise fail on it;
 * A key refused at sign-in (invalid_key) is no session's: the sign-in route records it as sign_in_refused, and
 * wherever that key is kept it is deleted as above (refusalsAtSignIn).
 */

const KEY_REFUSED = 'unauthenticated';

/** The service's refusal of a session's key as the browser is told it. */
export function keyRefused(): ApiError {
  return new ApiError(
    401,
    KEY_REFUSED,
    'Your API key is no longer accepted. Sign in again with a current key.',
  );
}

/** Did the service refuse the key: a lookup's error, or a review row's answer made of one (answerOfError)? */
export function isKeyRefused(failure: unknown): boolean {
  if (failure instanceof ApiError) return failure.code === KEY_REFUSED;
  const answer = failure as { error?: { code?: unknown } } | null | undefined;
  return answer?.error?.code === KEY_REFUSED;
}

export class RefusedKeys {
  constructor(private readonly sessions: Pick<SessionStore, 'refuseKey'>) {}

  /**
   * Asks the service with the session's key (`ask`): when it refuses the key, every session holding the key has
   * ended before the refusal is thrown on to the caller.
   */
  async asking<T>(
    session: Pick<Session, 'accountId' | 'keyHash' | 'auditRef'>,
    ask: () => Promise<T>,
  ): Promise<T> {
    try {
      return await ask();
    } catch (err) {
      if (isKeyRefused(err)) await this.sessions.refuseKey(session);
      else if (session.auditRef === UNATTENDED && toApiError(err).code === 'plan_not_eligible') {
        await this.sessions.refuseKey(session);
        throw keyRefused();
      }
      throw err;
    }
  }
}

/** What a sign-in asks of the service (Lookups' checkKey and rateLimit; named here, so neither imports the other). */
export interface SignInChecks {
  checkKey(apiKey: string, keyHash: string): Promise<Account & { id: string | null }>;
  rateLimit(session: Pick<Session, 'keyHash'>): Promise<RateLimit | null>;
}

/** The sign-in's key check (Lookups.checkKey), where a key the service refuses is also dropped wherever it is kept. */
export function refusalsAtSignIn(
  lookups: SignInChecks,
  kept: { refusedAtSignIn(keyHash: string): Promise<void> },
): SignInChecks {
  return {
    checkKey: (apiKey, keyHash) =>
      lookups.checkKey(apiKey, keyHash).catch(async (err: unknown) => {
        if (toApiError(err).code === 'invalid_key') await kept.refusedAtSignIn(keyHash);
        throw err;
      }),
    rateLimit: (session) => lookups.rateLimit(session),
  };
}

/**
 * The store's refuseKey where keys may be kept (custody/custody-sessions.ts): every session holding the key ends,
 * then the key, if kept, is dropped (its sealed columns deleted, the refusal's date kept).
 */
export function refusingKeptKeys(
  sessions: Pick<SessionStore, 'refuseKey'>,
  kept: { refused(who: Pick<Session, 'accountId' | 'keyHash'>): Promise<void> },
): SessionStore['refuseKey'] {
  return async (refused) => {
    await sessions.refuseKey(refused);
    await kept.refused(refused);
  };
}
