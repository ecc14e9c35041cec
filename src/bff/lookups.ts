import { addressKey, type Lane, type Property } from '../contract/index.ts';
import { InFlight, type ResultCache } from './cache.ts';
import type { CancelSignal } from './cancel.ts';
import { ApiError } from './errors.ts';
import type { BffMetrics } from './metrics.ts';
import type { Session, SessionStore } from './sessions.ts';
import type { UpstreamClient } from './upstream/client.ts';

export type CachedResult =
  | { kind: 'property'; property: Property }
  | { kind: 'page'; items: Property[]; next: string | null };

export interface LookupOptions {
  signal?: CancelSignal;
  lane: Lane;
  /** Ask the service itself, not the cache ("Check again"); the answer still refreshes the cache. */
  fresh?: boolean;
}

/**
 * Resolve and search on behalf of a session, shared by the interactive routes and review batches: answered
 * from the account's cache when it can be (costing no upstream request), identical concurrent calls sharing
 * one upstream call, and a key the upstream stops accepting ending its session.
 */
export class Lookups {
  readonly #inFlight = new InFlight<CachedResult>();

  constructor(
    private readonly deps: {
      upstream: UpstreamClient;
      cache: ResultCache<CachedResult>;
      sessions: SessionStore;
      metrics?: Pick<BffMetrics, 'cacheLookup'>;
    },
  ) {}

  async resolve(
    session: Session,
    sessionId: string,
    address: string,
    options: LookupOptions,
  ): Promise<{ property: Property; cached: boolean }> {
    const { result, cached } = await this.#cached(
      session,
      sessionId,
      `resolve:${addressKey(address)}`,
      options,
      async (signal) => ({
        kind: 'property',
        property: await this.deps.upstream.resolve(session.apiKey, session.keyHash, address, {
          signal,
          lane: options.lane,
        }),
      }),
    );
    if (result.kind !== 'property')
      throw new ApiError(500, 'internal', 'Cache holds the wrong kind of result.');
    return { property: result.property, cached };
  }

  async search(
    session: Session,
    sessionId: string,
    q: string,
    upstreamCursor: string | undefined,
    options: LookupOptions,
  ): Promise<{ items: Property[]; next: string | null }> {
    const key = `search:${addressKey(q)}:${upstreamCursor ?? ''}`;
    const { result } = await this.#cached(session, sessionId, key, options, async (signal) => {
      const page = await this.deps.upstream.search(session.apiKey, session.keyHash, q, upstreamCursor, {
        signal,
        lane: options.lane,
      });
      return { kind: 'page', items: page.items, next: page.nextCursor };
    });
    if (result.kind !== 'page') throw new ApiError(500, 'internal', 'Cache holds the wrong kind of result.');
    return { items: result.items, next: result.next };
  }

  async #cached(
    session: Session,
    sessionId: string,
    key: string,
    options: LookupOptions,
    load: (signal: CancelSignal) => Promise<CachedResult>,
  ): Promise<{ result: CachedResult; cached: boolean }> {
    if (!options.fresh) {
      const hit = await this.deps.cache.get(session.keyHash, key);
      this.deps.metrics?.cacheLookup(key.startsWith('search:') ? 'search' : 'resolve', hit !== undefined);
      if (hit) return { result: hit, cached: true };
    }
    try {
      const result = await this.#inFlight.run(`${session.keyHash}:${key}`, load, options.signal);
      await this.deps.cache.set(session.keyHash, key, result);
      return { result, cached: false };
    } catch (err) {
      // The key stopped working upstream: this session is over.
      if (err instanceof ApiError && err.code === 'unauthenticated')
        await this.deps.sessions.delete(sessionId);
      throw err;
    }
  }
}
