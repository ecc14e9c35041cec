import { LRUCache } from 'lru-cache';
import { type Account, addressKey, type Lane, type Property, type RateLimit } from '../contract/index.ts';
import { type Audit, type AuditContext, outcomeOfError } from './audit/audit.ts';
import type { CancelSignal } from './cancel.ts';
import { ApiError } from './errors.ts';
import { InFlight } from './in-flight.ts';
import type { BffMetrics } from './metrics.ts';
import { RefusedKeys } from './refused-keys.ts';
import type { ResultCache } from './stores/cache/types.ts';
import type { Session, SessionStore } from './stores/sessions/types.ts';
import type { UpstreamClient } from './upstream/client.ts';

/** The cache's key of an address, remembered for the addresses asked again and again (as params.ts's check). */
const keys = new LRUCache<string, string>({ max: 10_000, memoMethod: (address) => addressKey(address) });

/** `fetchedAt`: when the service gave the answer (epoch ms), for the audit trail of cached answers. */
export type CachedResult =
  | { kind: 'property'; property: Property; fetchedAt?: number }
  | { kind: 'page'; items: Property[]; next: string | null; fetchedAt?: number };

export interface LookupOptions {
  signal?: CancelSignal;
  lane: Lane;
  /** Ask the service itself, not the cache ("Check again"); the answer still refreshes the cache. */
  fresh?: boolean;
  /** What the lookup is, for the audit trail (default: resolve, or search; an area page in the review lane). */
  audit?: AuditContext;
}

/**
 * The BFF's way to the property service, shared by the routes and the review worker (nothing else holds the
 * upstream client): resolve and search on behalf of a session, answered from the account's cache when it can be
 * (costing no upstream request), identical concurrent calls sharing one upstream call, and a key the upstream
 * stops accepting ending its sessions; the key check of a sign-in; and what is left of the key's rate limit.
 */
export class Lookups {
  readonly #inFlight = new InFlight<CachedResult>();
  readonly #refusedKeys: RefusedKeys;

  constructor(
    private readonly deps: {
      upstream: UpstreamClient;
      cache: ResultCache<CachedResult>;
      /** Where a key the service refuses ends its sessions (refused-keys.ts). */
      sessions: Pick<SessionStore, 'refuseKey'>;
      metrics?: Pick<BffMetrics, 'cacheLookup'>;
      /** The audit trail: every answered lookup leaves one entry; none is made when it could not be kept. */
      audit?: Audit;
      now?: () => number;
    },
  ) {
    this.#refusedKeys = new RefusedKeys(deps.sessions);
  }

  /** Whose key this is (GET /auth/me): a sign-in asks before any session holds the key. */
  checkKey(apiKey: string, keyHash: string): Promise<Account & { id: string | null }> {
    return this.deps.upstream.me(apiKey, keyHash);
  }

  /** What is left of the key's rate limit, as every answer made in a session tells the browser (null: not known yet). */
  rateLimit(session: Pick<Session, 'keyHash'>): Promise<RateLimit | null> {
    return this.deps.upstream.rateLimit(session.keyHash);
  }

  async resolve(
    session: Session,
    address: string,
    options: LookupOptions,
  ): Promise<{ property: Property; cached: boolean }> {
    const context = options.audit ?? { kind: 'resolve' };
    const { result, cached } = await this.#audited(session, context, address, options, () =>
      this.#cached(session, 'resolve', keys.memo(address), options, async (signal) => ({
        kind: 'property',
        property: await this.deps.upstream.resolve(session.apiKey, session.keyHash, address, {
          signal,
          lane: options.lane,
        }),
        fetchedAt: this.#now(),
      })),
    );
    if (result.kind !== 'property')
      throw new ApiError(500, 'internal', 'Cache holds the wrong kind of result.');
    await this.deps.audit?.lookup(session, context, address, {
      outcome: 'matched',
      property: result.property,
      cached,
      cachedAt: result.fetchedAt ?? null,
    });
    return { property: result.property, cached };
  }

  /**
   * A review row answered by its review's own earlier answer (a repeat of an address already asked): no lookup
   * is made, and the row's entry is on record all the same, as any answer a review keeps is (cached, as of when
   * the answer was fetched from the service).
   */
  async recordRepeat(
    session: Session,
    context: AuditContext,
    query: string,
    answer: { outcome: 'matched' | 'not_found' | 'ambiguous'; property?: Property; retrievedAt?: string },
  ): Promise<void> {
    const audit = this.deps.audit;
    if (!audit) return;
    audit.assertWritable();
    const fetchedAt = answer.retrievedAt ? Date.parse(answer.retrievedAt) : Number.NaN;
    await audit.lookup(session, context, query, {
      outcome: answer.outcome,
      ...(answer.property ? { property: answer.property } : {}),
      cached: true,
      cachedAt: Number.isFinite(fetchedAt) ? fetchedAt : null,
    });
  }

  #now(): number {
    return (this.deps.now ?? Date.now)();
  }

  /**
   * Refuses before a lookup whose entry could not be kept; records a lookup that failed (its error leaves once
   * the entry is committed; when the entry cannot be, the lookup answers audit_unavailable instead).
   */
  async #audited<T>(
    session: Session,
    context: AuditContext,
    query: string,
    options: LookupOptions,
    work: () => Promise<T>,
  ): Promise<T> {
    const audit = this.deps.audit;
    audit?.assertWritable();
    try {
      return await work();
    } catch (err) {
      // A browser that went away was answered nothing: no entry.
      if (audit && !options.signal?.aborted)
        await audit.lookup(session, context, query, { outcome: outcomeOfError(err) });
      throw err;
    }
  }

  async search(
    session: Session,
    q: string,
    upstreamCursor: string | undefined,
    options: LookupOptions,
  ): Promise<{ items: Property[]; next: string | null }> {
    const context = options.audit ?? { kind: options.lane === 'review' ? 'area_page' : 'search' };
    const { result, cached } = await this.#audited(session, context, q, options, () =>
      this.#cached(session, 'search', `${addressKey(q)}:${upstreamCursor ?? ''}`, options, async (signal) => {
        const page = await this.deps.upstream.search(session.apiKey, session.keyHash, q, upstreamCursor, {
          signal,
          lane: options.lane,
        });
        return { kind: 'page', items: page.items, next: page.nextCursor, fetchedAt: this.#now() };
      }),
    );
    if (result.kind !== 'page') throw new ApiError(500, 'internal', 'Cache holds the wrong kind of result.');
    await this.deps.audit?.lookup(session, context, q, {
      outcome: 'listed',
      cached,
      cachedAt: result.fetchedAt ?? null,
    });
    return { items: result.items, next: result.next };
  }

  /** The answer to `operation` of `asked` (its folded query), kept per account under `resolve:…` or `search:…`. */
  async #cached(
    session: Session,
    operation: 'resolve' | 'search',
    asked: string,
    options: LookupOptions,
    load: (signal: CancelSignal) => Promise<CachedResult>,
  ): Promise<{ result: CachedResult; cached: boolean }> {
    const key = `${operation}:${asked}`;
    if (!options.fresh) {
      const hit = await this.deps.cache.get(session.keyHash, key);
      this.deps.metrics?.cacheLookup(operation, hit !== undefined);
      if (hit) return { result: hit, cached: true };
    }
    // The service asked once for every caller sharing the call: a key it refuses ends its sessions once.
    const ask = (signal: CancelSignal) => this.#refusedKeys.asking(session, () => load(signal));
    const result = await this.#inFlight.run(`${session.keyHash}:${key}`, ask, options.signal);
    await this.deps.cache.set(session.keyHash, key, result);
    return { result, cached: false };
  }
}
