import { ApiError } from '../errors.ts';

/** Live views (review event streams) one sign-in may hold open at once: a few tabs, each one review. */
export const STREAMS_PER_SESSION = 6;
/** And one account, over all its sign-ins: enough for a team, far from the server's connection cap. */
export const STREAMS_PER_ACCOUNT = 200;

/**
 * Counts the open event streams of this replica by session and by account, so one sign-in (or one account
 * signing in again and again) cannot hold the connections everyone else needs. `take` refuses with 429 past a
 * limit; its release is called once the stream ends.
 */
export class StreamSlots {
  readonly #bySession = new Map<string, number>();
  readonly #byAccount = new Map<string, number>();

  constructor(
    private readonly limits = { perSession: STREAMS_PER_SESSION, perAccount: STREAMS_PER_ACCOUNT },
  ) {}

  take(sessionId: string, accountId: string): () => void {
    if ((this.#bySession.get(sessionId) ?? 0) >= this.limits.perSession)
      throw tooMany(
        `At most ${this.limits.perSession} reviews can be followed live at once in one sign-in: close one.`,
      );
    if ((this.#byAccount.get(accountId) ?? 0) >= this.limits.perAccount)
      throw tooMany(`This account follows ${this.limits.perAccount} reviews live already: close one.`);
    bump(this.#bySession, sessionId, 1);
    bump(this.#byAccount, accountId, 1);
    let released = false;
    return () => {
      if (released) return;
      released = true;
      bump(this.#bySession, sessionId, -1);
      bump(this.#byAccount, accountId, -1);
    };
  }
}

const tooMany = (message: string) => new ApiError(429, 'too_many_streams', message, { retryAfterS: 5 });

function bump(counts: Map<string, number>, key: string, by: number) {
  const n = (counts.get(key) ?? 0) + by;
  if (n > 0) counts.set(key, n);
  else counts.delete(key);
}
