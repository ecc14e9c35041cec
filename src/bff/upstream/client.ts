import { type Account, type Candidate, Plan, type Property } from '../../contract/index.ts';
import { ApiError } from '../errors.ts';
import type { BudgetState, RateBudget } from '../rate-budget.ts';
import { parseErrorBody, parseReset, toAccount, toPage, toProperty, UpstreamFormatError } from './parse.ts';

export type AuthPlacement =
  | { kind: 'bearer' }
  | { kind: 'header'; name: string }
  | { kind: 'query'; name: string };

export interface UpstreamConfig {
  baseUrl: string;
  auth: AuthPlacement;
  /** Name of the property identifier field; undefined: detect. */
  idField: string | undefined;
  resolvePath: string;
  searchPath: string;
  timeoutMs: number;
  /** Extra attempts after a 5xx, a dropped connection or an unreadable body. */
  retries: number;
  /** Longest we hold a request open waiting for a rate-limit reset; longer, we answer 429 at once. */
  maxRateLimitWaitMs: number;
  salesContact: string | null;
}

export interface UpstreamDeps {
  fetch: typeof fetch;
  budget: RateBudget;
  now?: () => number;
  sleep?: (ms: number, signal?: AbortSignal) => Promise<void>;
  random?: () => number;
}

interface Answer {
  status: number;
  text: string;
  /** The parsed body of a 2xx answer. */
  json?: unknown;
}

/** How many times one call may wait out a rate limit before giving up with 429. */
const RATE_LIMIT_WAITS = 2;
const MAX_BODY_BYTES = 2_000_000;

export function abortableSleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal?.reason);
    };
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}

/** The client disconnected: nothing will read our answer, so stop all upstream work. */
export class ClientGone extends Error {}

export class UpstreamClient {
  readonly #now: () => number;
  readonly #sleep: (ms: number, signal?: AbortSignal) => Promise<void>;
  readonly #random: () => number;

  constructor(
    readonly config: UpstreamConfig,
    private readonly deps: UpstreamDeps,
  ) {
    this.#now = deps.now ?? Date.now;
    this.#sleep = deps.sleep ?? abortableSleep;
    this.#random = deps.random ?? Math.random;
  }

  /** Checks a key with GET /auth/me. Plan problems and bad keys become the API's own errors. */
  async me(apiKey: string, keyHash: string): Promise<Account> {
    const answer = await this.#call(apiKey, keyHash, '/auth/me', {});
    if (answer.status >= 200 && answer.status < 300) {
      const account = toAccount(answer.json);
      const plan = Plan.safeParse(account.plan);
      return { name: account.name, plan: plan.success ? plan.data : null };
    }
    throw this.#refusal(answer, 'sign-in');
  }

  async resolve(apiKey: string, keyHash: string, address: string, signal?: AbortSignal): Promise<Property> {
    const answer = await this.#call(apiKey, keyHash, this.config.resolvePath, { address }, signal);
    if (answer.status >= 200 && answer.status < 300)
      return this.#read(() => toProperty(answer.json, this.config.idField, address));
    throw this.#refusal(answer, 'data');
  }

  async search(
    apiKey: string,
    keyHash: string,
    q: string,
    cursor: string | undefined,
    signal?: AbortSignal,
  ): Promise<{ items: Property[]; nextCursor: string | null }> {
    const params: Record<string, string> = { q };
    if (cursor) params.cursor = cursor;
    const answer = await this.#call(apiKey, keyHash, this.config.searchPath, params, signal);
    if (answer.status >= 200 && answer.status < 300)
      return this.#read(() => toPage(answer.json, this.config.idField));
    throw this.#refusal(answer, 'data');
  }

  /** Is the upstream there? Any HTTP answer to an unauthenticated /auth/me says yes. */
  async ready(): Promise<boolean> {
    try {
      const res = await this.#fetchOnce(this.#url('/auth/me'), new Headers(), undefined);
      await res.body?.cancel();
      return true;
    } catch {
      return false;
    }
  }

  /** A fixed path under the base URL, keeping any path the base has (https://host/v2 + /auth/me). */
  #url(path: string): URL {
    return new URL(`${this.config.baseUrl.replace(/\/+$/, '')}${path}`);
  }

  #read<T>(parse: () => T): T {
    try {
      return parse();
    } catch (err) {
      if (err instanceof UpstreamFormatError) {
        throw new ApiError(
          502,
          'upstream_invalid',
          `The property service sent a record we cannot rely on: ${err.message}.`,
        );
      }
      throw err;
    }
  }

  /** Turns a non-2xx answer into the API's error, reading its body in whatever dialect it came. */
  #refusal(answer: Answer, during: 'sign-in' | 'data'): ApiError {
    const info = parseErrorBody(answer.text, this.config.idField);
    const code = info.code?.toLowerCase() ?? '';
    const sales = this.config.salesContact
      ? ` Contact ${this.config.salesContact} to upgrade.`
      : " Contact the provider's sales team to upgrade.";
    switch (answer.status) {
      case 401:
        return during === 'sign-in'
          ? new ApiError(
              401,
              'invalid_key',
              'That API key was not accepted. Check that you copied all of it, or create a new key in your account settings under Developer → API keys.',
            )
          : new ApiError(
              401,
              'unauthenticated',
              'Your API key is no longer accepted. Sign in again with a current key.',
            );
      case 403:
        return new ApiError(
          403,
          'plan_not_eligible',
          `API access needs a professional or enterprise plan, and this key's account is not on one.${sales}`,
        );
      case 404: {
        const candidates: Candidate[] = info.candidates;
        if (code.includes('unit') || info.building) {
          const building = info.building ? [info.building] : [];
          return new ApiError(404, 'unit_not_found', 'The building is known, but it has no such unit.', {
            candidates: [...building, ...candidates.filter((c) => c.id !== info.building?.id)],
          });
        }
        return new ApiError(404, 'not_found', 'No property matches this address.', { candidates });
      }
      case 409:
      case 300:
        return new ApiError(
          409,
          'ambiguous',
          'More than one property matches. Pick one, or add the city and state or the ZIP code.',
          {
            candidates: info.candidates,
          },
        );
      case 400:
      case 422:
        return new ApiError(
          400,
          'bad_request',
          info.message
            ? `The property service refused the request: ${info.message}`
            : 'The property service refused the request.',
        );
      default:
        return new ApiError(
          502,
          'upstream_unavailable',
          `The property service answered with an unexpected status (${answer.status}). Try again shortly.`,
        );
    }
  }

  async #call(
    apiKey: string,
    keyHash: string,
    path: string,
    params: Record<string, string>,
    signal?: AbortSignal,
  ): Promise<Answer> {
    const url = this.#url(path);
    const headers = new Headers({ Accept: 'application/json' });
    for (const [k, v] of Object.entries(params)) url.searchParams.set(k, v);
    const { auth } = this.config;
    if (auth.kind === 'bearer') headers.set('Authorization', `Bearer ${apiKey}`);
    else if (auth.kind === 'header') headers.set(auth.name, apiKey);
    else url.searchParams.set(auth.name, apiKey);

    let transientLeft = this.config.retries;
    let waitsLeft = RATE_LIMIT_WAITS;
    let attempt = 0;
    /** A transient failure: back off and let the loop try again, or give up with `failure` when out of retries. */
    const retryOrFail = async (failure: ApiError) => {
      if (transientLeft-- <= 0) throw failure;
      await this.#backoff(attempt, signal);
    };
    for (; ; attempt++) {
      // Don't spend a request the upstream has told us it will refuse.
      const known = await this.deps.budget.get(keyHash);
      if (known && known.remaining <= 0 && this.#now() < known.resetAt) {
        await this.#waitForReset(known.resetAt, waitsLeft--, signal);
        continue;
      }
      let res: Response;
      try {
        res = await this.#fetchOnce(url, headers, signal);
      } catch (err) {
        if (err instanceof ApiError || err instanceof ClientGone) throw err;
        await retryOrFail(
          new ApiError(
            502,
            'upstream_unavailable',
            'The property service could not be reached. Try again shortly.',
          ),
        );
        continue;
      }
      const budget = this.#budgetFrom(res.headers);
      if (budget) await this.deps.budget.set(keyHash, budget);
      if (res.status === 429) {
        await res.body?.cancel();
        const resetAt = budget?.resetAt ?? this.#now() + 1000;
        await this.deps.budget.set(keyHash, { limit: budget?.limit ?? 0, remaining: 0, resetAt });
        await this.#waitForReset(resetAt, waitsLeft--, signal);
        continue;
      }
      if (res.status >= 500) {
        await res.body?.cancel();
        await retryOrFail(
          new ApiError(
            502,
            'upstream_unavailable',
            'The property service is having trouble. Try again shortly.',
          ),
        );
        continue;
      }
      const text = await this.#readBody(res, signal);
      if (res.status < 200 || res.status >= 300) return { status: res.status, text };
      try {
        return { status: res.status, text, json: JSON.parse(text) };
      } catch {
        // A body cut short is as transient as a 503; an unreadable one after retries is the upstream's fault.
        await retryOrFail(
          new ApiError(
            502,
            'upstream_invalid',
            'The property service sent an answer we could not read. Try again shortly.',
          ),
        );
      }
    }
  }

  async #fetchOnce(url: URL, headers: Headers, signal: AbortSignal | undefined): Promise<Response> {
    if (signal?.aborted) throw new ClientGone();
    const controller = new AbortController();
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      controller.abort();
    }, this.config.timeoutMs);
    const onClientAbort = () => controller.abort();
    signal?.addEventListener('abort', onClientAbort, { once: true });
    try {
      return await this.deps.fetch(url, { headers, signal: controller.signal, redirect: 'error' });
    } catch (err) {
      if (signal?.aborted) throw new ClientGone();
      if (timedOut)
        throw new ApiError(
          504,
          'upstream_timeout',
          'The property service took too long to answer. Try again.',
        );
      throw err;
    } finally {
      clearTimeout(timer);
      signal?.removeEventListener('abort', onClientAbort);
    }
  }

  async #readBody(res: Response, signal: AbortSignal | undefined): Promise<string> {
    const declared = Number(res.headers.get('content-length') ?? '0');
    if (declared > MAX_BODY_BYTES) {
      await res.body?.cancel();
      throw new ApiError(
        502,
        'upstream_invalid',
        'The property service sent an answer too large to be a property record.',
      );
    }
    try {
      const text = await res.text();
      if (text.length > MAX_BODY_BYTES)
        throw new ApiError(
          502,
          'upstream_invalid',
          'The property service sent an answer too large to be a property record.',
        );
      return text;
    } catch (err) {
      if (err instanceof ApiError) throw err;
      if (signal?.aborted) throw new ClientGone();
      return ''; // a connection dropped mid-body reads as an unreadable body: retried as transient
    }
  }

  #budgetFrom(headers: Headers): BudgetState | null {
    const limit = Number(headers.get('x-ratelimit-limit'));
    const remaining = Number(headers.get('x-ratelimit-remaining'));
    const resetAt = parseReset(headers.get('x-ratelimit-reset'), this.#now(), headers.get('date'));
    if (
      !Number.isFinite(limit) ||
      !Number.isFinite(remaining) ||
      resetAt === null ||
      headers.get('x-ratelimit-limit') === null
    ) {
      return null;
    }
    return { limit: Math.max(0, Math.floor(limit)), remaining: Math.max(0, Math.floor(remaining)), resetAt };
  }

  /** Waits out a rate limit if the reset is near and we have waits left; otherwise answers 429 now. */
  async #waitForReset(resetAt: number, waitsLeft: number, signal: AbortSignal | undefined): Promise<void> {
    const wait = resetAt - this.#now();
    if (waitsLeft <= 0 || wait > this.config.maxRateLimitWaitMs) {
      throw new ApiError(
        429,
        'rate_limited',
        "The property service's rate limit for your key is used up. It resets shortly.",
        {
          resetAt: new Date(resetAt).toISOString(),
          retryAfterS: Math.max(1, Math.ceil(wait / 1000)),
        },
      );
    }
    // A small margin and jitter: clocks differ a little, and replicas should not all retry at once.
    await this.#pause(Math.max(0, wait) + 250 + Math.floor(this.#random() * 250), signal);
  }

  async #backoff(attempt: number, signal: AbortSignal | undefined): Promise<void> {
    const base = Math.min(2000, 200 * 2 ** attempt);
    await this.#pause(base + Math.floor(this.#random() * base * 0.5), signal);
  }

  async #pause(ms: number, signal: AbortSignal | undefined): Promise<void> {
    try {
      await this.#sleep(ms, signal);
    } catch {
      throw new ClientGone();
    }
  }
}
