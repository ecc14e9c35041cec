import { ApiError } from '../errors.ts';

/** Live views (review event streams) one sign-in may hold open at once: a few tabs, each one review. */
export const STREAMS_PER_SESSION = 6;
/** And one account, over all its sign-ins: enough for a team, far from the server's connection cap. */
export const STREAMS_PER_ACCOUNT = 200;

interface Stream {
  session: string;
  client: string;
  /** Ends the stream (its page reconnects, as after any cut); its release follows. */
  close: () => void;
}

/**
 * Counts the open event streams of this replica by session and by account, so one sign-in (or one account
 * signing in again and again) cannot hold the connections everyone else needs. Past a sign-in's limit `take`
 * refuses with 429. Past the account's, the client (an address, or an IPv6 /64) holding the most of its streams
 * gives its oldest up to the newcomer, unless the newcomer is that client: so one visitor of a public demo key,
 * signing in again and again, cannot shut a colleague of the account out of a live view. `take`'s release is
 * called once the stream ends.
 */
export class StreamSlots {
  readonly #bySession = new Map<string, number>();
  /** Each account's open streams, oldest first. */
  readonly #byAccount = new Map<string, Set<Stream>>();

  constructor(
    private readonly limits = { perSession: STREAMS_PER_SESSION, perAccount: STREAMS_PER_ACCOUNT },
  ) {}

  take(sessionId: string, accountId: string, client = 'unknown', close: () => void = () => {}): () => void {
    if ((this.#bySession.get(sessionId) ?? 0) >= this.limits.perSession)
      throw tooMany(
        `At most ${this.limits.perSession} reviews can be followed live at once in one sign-in: close one.`,
      );
    let streams = this.#byAccount.get(accountId);
    if (streams && streams.size >= this.limits.perAccount) this.#makeRoom(streams, client);
    if (!streams) {
      streams = new Set();
      this.#byAccount.set(accountId, streams);
    }
    const stream: Stream = { session: sessionId, client, close };
    streams.add(stream);
    bump(this.#bySession, sessionId, 1);
    let released = false;
    const account = streams;
    return () => {
      if (released) return;
      released = true;
      this.#forget(accountId, account, stream);
    };
  }

  /** The heaviest client's oldest stream ends; refuses when the newcomer's own client is the heaviest. */
  #makeRoom(streams: Set<Stream>, client: string): void {
    const held = new Map<string, number>();
    for (const s of streams) held.set(s.client, (held.get(s.client) ?? 0) + 1);
    let heaviest = client;
    for (const [c, n] of held) if (n > (held.get(heaviest) ?? 0)) heaviest = c;
    if (heaviest === client)
      throw tooMany(`This account follows ${this.limits.perAccount} reviews live already: close one.`);
    for (const s of streams) {
      if (s.client !== heaviest) continue;
      // Forgotten at once (the slot is the newcomer's); its own release later finds nothing to give back.
      streams.delete(s);
      bump(this.#bySession, s.session, -1);
      s.close();
      return;
    }
  }

  #forget(accountId: string, streams: Set<Stream>, stream: Stream): void {
    if (!streams.delete(stream)) return;
    bump(this.#bySession, stream.session, -1);
    if (streams.size === 0 && this.#byAccount.get(accountId) === streams) this.#byAccount.delete(accountId);
  }
}

const tooMany = (message: string) => new ApiError(429, 'too_many_streams', message, { retryAfterS: 5 });

function bump(counts: Map<string, number>, key: string, by: number) {
  const n = (counts.get(key) ?? 0) + by;
  if (n > 0) counts.set(key, n);
  else counts.delete(key);
}
