import type { Logger } from 'pino';
import { type Account, type Lane, Plan, type Property, type RateLimit } from '../../contract/index.ts';
import type { CancelSignal } from '../cancel.ts';
import { abortableSleep, ClientGone } from '../cancel.ts';
import { ApiError } from '../errors.ts';
import { type BudgetStore, plainWindowS, type RateObservation } from './budget.ts';
import { parseReset, toAccount, toPage, toProperty, UpstreamFormatError } from './parse.ts';
import { redactBody } from './redact.ts';
import { toRefusal } from './refusal.ts';
import { type Slot, SlotUnavailable, type UpstreamScheduler } from './scheduler.ts';
import { type Attempt, type HeaderReader, type Transport, TransportFailure } from './transport.ts';

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
  /** Per attempt, headers and body together. */
  timeoutMs: number;
  /** Extra attempts after a 5xx, a dropped connection or an unreadable body. */
  retries: number;
  /** Longest an interactive request waits for rate-limit slots in all; longer, it is answered 429 at once. */
  maxRateLimitWaitMs: number;
  /** The same bound for review work, which may wait for several windows. */
  reviewMaxWaitMs?: number;
  salesContact: string | null;
}

/** Which call an attempt belongs to, and how it ended: metrics labels, fixed sets (README "Metrics"). */
export type UpstreamOperation = 'me' | 'resolve' | 'search';
export type UpstreamOutcome =
  | '2xx'
  | '3xx'
  | '404'
  | '409'
  | '4xx'
  | '429'
  | '5xx'
  | 'timeout'
  | 'error'
  | 'cancelled';

export interface UpstreamDeps {
  /** How a request reaches the network (createPoolTransport, in production and in tests). */
  transport: Transport;
  scheduler: UpstreamScheduler;
  budget: BudgetStore;
  logger?: Logger;
  now?: () => number;
  sleep?: (ms: number, signal?: CancelSignal) => Promise<void>;
  random?: () => number;
  /** Told of every attempt's outcome and duration (metrics). */
  onAttempt?: (operation: UpstreamOperation, outcome: UpstreamOutcome, seconds: number) => void;
}

export interface CallOptions {
  signal?: CancelSignal;
  lane?: Lane;
}

/** An answer with the key cut out: a 2xx parsed (`json`), a refusal as the text toRefusal reads. */
interface Answer {
  status: number;
  text: string;
  json?: unknown;
}

type AttemptOutcome =
  | { kind: 'answer'; answer: Answer }
  /** Worth another attempt while retries last; `error` is the answer once they are spent. */
  | { kind: 'transient'; detail: Record<string, unknown>; error: ApiError }
  | { kind: 'rate_limited'; detail: Record<string, unknown> }
  | { kind: 'fatal'; detail: Record<string, unknown>; error: ApiError };

const unreachable = () =>
  new ApiError(502, 'upstream_unavailable', 'The property service could not be reached. Try again shortly.');
const troubled = () =>
  new ApiError(502, 'upstream_unavailable', 'The property service is having trouble. Try again shortly.');
const unreadable = () =>
  new ApiError(
    502,
    'upstream_invalid',
    'The property service sent an answer we could not read. Try again shortly.',
  );

/** Answers 429 from the upstream in a row that one call waits out before giving up. */
const MAX_429_PER_CALL = 5;
const READY_CACHE_MS = 2000;
const DEFAULT_REVIEW_WAIT_MS = 120_000;

/**
 * The one way to the upstream: fixed paths under the base URL, the key placed as configured, every request
 * through the scheduler's slots, bounded retries, and answers read tolerantly into our contract.
 */
export class UpstreamClient {
  readonly #now: () => number;
  readonly #sleep: (ms: number, signal?: CancelSignal) => Promise<void>;
  readonly #random: () => number;
  readonly #send: Transport;
  /** The base URL normalised once (origin as `URL` writes it, no trailing slash), so each call only appends. */
  readonly #base: string;
  #ready: { at: number; answer: Promise<boolean> } | null = null;

  constructor(
    readonly config: UpstreamConfig,
    private readonly deps: UpstreamDeps,
  ) {
    this.#now = deps.now ?? Date.now;
    this.#sleep = deps.sleep ?? abortableSleep;
    this.#random = deps.random ?? Math.random;
    const base = new URL(config.baseUrl);
    this.#base = `${base.origin}${base.pathname.replace(/\/+$/, '')}`;
    this.#send = deps.transport;
  }

  /** Checks a key with GET /auth/me. Plan problems and bad keys become the API's own errors. */
  async me(apiKey: string, keyHash: string): Promise<Account & { id: string | null }> {
    const answer = await this.#call(apiKey, keyHash, 'me', {}, {});
    if (answer.status >= 200 && answer.status < 300) {
      const account = toAccount(answer.json);
      const plan = Plan.safeParse(account.plan);
      return { id: account.id, name: account.name, plan: plan.success ? plan.data : null };
    }
    throw this.#refusal(answer, 'me');
  }

  async resolve(
    apiKey: string,
    keyHash: string,
    address: string,
    options: CallOptions = {},
  ): Promise<Property> {
    const answer = await this.#call(apiKey, keyHash, 'resolve', { address }, options);
    if (answer.status >= 200 && answer.status < 300)
      return this.#read(() => toProperty(answer.json, this.config.idField, address));
    throw this.#refusal(answer, 'resolve');
  }

  async search(
    apiKey: string,
    keyHash: string,
    q: string,
    cursor: string | undefined,
    options: CallOptions = {},
  ): Promise<{ items: Property[]; nextCursor: string | null }> {
    const params: Record<string, string> = { q };
    if (cursor) params.cursor = cursor;
    const answer = await this.#call(apiKey, keyHash, 'search', params, options);
    if (answer.status >= 200 && answer.status < 300)
      return this.#read(() => toPage(answer.json, this.config.idField));
    throw this.#refusal(answer, 'search');
  }

  /** The last reset's ISO text: every answer of a window states the same one (formatting a date is not free). */
  #reset = { at: Number.NaN, text: '' };
  #resetText(at: number): string {
    if (at !== this.#reset.at) this.#reset = { at, text: new Date(at).toISOString() };
    return this.#reset.text;
  }

  /** The account's rate limit as the BFF reports it to the browser (asked through Lookups, which routes call). */
  async rateLimit(keyHash: string): Promise<RateLimit | null> {
    const v = await this.deps.budget.view(keyHash, this.#now());
    if (!v) return null;
    const out: RateLimit = { limit: v.limit, remaining: v.remaining, resetAt: this.#resetText(v.resetAt) };
    if (v.windowMs >= 1000) out.windowS = plainWindowS(v.windowMs);
    return out;
  }

  /**
   * Is the upstream there? Any HTTP answer to an unauthenticated /auth/me says yes. Cached briefly, so a
   * load balancer polling /readyz does not cost the upstream a request per poll.
   */
  ready(): Promise<boolean> {
    const now = this.#now();
    if (this.#ready && now - this.#ready.at < READY_CACHE_MS) return this.#ready.answer;
    const answer = this.#send({ url: this.#url('/auth/me'), headers: {}, timeoutMs: this.config.timeoutMs })
      .then(() => true)
      .catch(() => false);
    this.#ready = { at: now, answer };
    return answer;
  }

  /** A fixed path under the base URL, keeping any path the base has (https://host/v2 + /auth/me). */
  #url(path: string): string {
    return this.#base + path;
  }

  /** Each operation's path: the service's own for resolve and search (they may share one), /auth/me for me. */
  #path(operation: UpstreamOperation): string {
    if (operation === 'resolve') return this.config.resolvePath;
    if (operation === 'search') return this.config.searchPath;
    return '/auth/me';
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

  #refusal(answer: Answer, operation: UpstreamOperation): ApiError {
    const { error, upstreamCode, upstreamMessage } = toRefusal(
      answer.status,
      answer.text,
      operation === 'me' ? 'sign-in' : 'data',
      this.config.idField,
      this.config.salesContact,
    );
    // 404 and 409 are ordinary answers; anything else an operator may need to see.
    const { status } = answer;
    const level = status === 404 || status === 409 ? 'debug' : 'warn';
    this.deps.logger?.[level](
      { upstream: { path: this.#path(operation), status, code: upstreamCode, message: upstreamMessage } },
      'upstream refused',
    );
    return error;
  }

  /** One request, told which operation it is (its path, its metrics): a path may be any the service uses. */
  async #call(
    apiKey: string,
    keyHash: string,
    operation: UpstreamOperation,
    params: Record<string, string>,
    options: CallOptions,
  ): Promise<Answer> {
    const { signal } = options;
    const lane = options.lane ?? 'interactive';
    const path = this.#path(operation);
    const { url, headers } = this.#request(apiKey, path, params);
    // MAX_RATE_LIMIT_WAIT_S bounds all the waiting one request does, not each wait.
    const waitBound =
      lane === 'review'
        ? (this.config.reviewMaxWaitMs ?? DEFAULT_REVIEW_WAIT_MS)
        : this.config.maxRateLimitWaitMs;
    const deadline = this.#now() + waitBound;
    let transientLeft = this.config.retries;
    let refusedLeft = MAX_429_PER_CALL;
    for (let attempt = 0; ; attempt++) {
      const slot = await this.#acquire(keyHash, lane, deadline, signal);
      const started = this.#now();
      const outcome = await this.#attempt(slot, url, headers, apiKey, signal, operation);
      if (outcome.kind === 'answer') return outcome.answer;
      this.#logFailure(path, attempt, started, outcome.detail);
      if (outcome.kind === 'fatal') throw outcome.error;
      if (outcome.kind === 'rate_limited') {
        // The scheduler now holds every request of this account until the advertised reset; this one waits
        // with them (within its deadline) rather than failing.
        if (refusedLeft-- <= 0) throw await this.#rateLimited(keyHash);
        continue;
      }
      if (transientLeft-- <= 0) throw outcome.error;
      await this.#backoff(attempt, signal);
    }
  }

  /** The URL and headers of one call, the key placed as the upstream wants it. */
  #request(apiKey: string, path: string, params: Record<string, string>) {
    const query = new URLSearchParams(params);
    const headers: Record<string, string> = { accept: 'application/json' };
    const { auth } = this.config;
    if (auth.kind === 'bearer') headers.authorization = `Bearer ${apiKey}`;
    else if (auth.kind === 'header') headers[auth.name.toLowerCase()] = apiKey;
    else query.set(auth.name, apiKey);
    const search = query.toString();
    return { url: search ? `${this.#url(path)}?${search}` : this.#url(path), headers };
  }

  /** One attempt on a reserved slot, released with what it found out, classified for the retry loop. */
  async #attempt(
    slot: Slot,
    url: string,
    headers: Record<string, string>,
    apiKey: string,
    signal: CancelSignal | undefined,
    operation: UpstreamOperation,
  ): Promise<AttemptOutcome> {
    let res: Attempt;
    const started = performance.now();
    const observe = (outcome: UpstreamOutcome) =>
      this.deps.onAttempt?.(operation, outcome, (performance.now() - started) / 1000);
    try {
      res = await this.#send({ url, headers, timeoutMs: this.config.timeoutMs, signal });
    } catch (err) {
      observe(
        err instanceof ApiError && err.code === 'upstream_timeout'
          ? 'timeout'
          : err instanceof ClientGone
            ? 'cancelled'
            : 'error',
      );
      await slot.release({ kind: 'none' });
      if (err instanceof TransportFailure) {
        return { kind: 'transient', detail: { cause: err.reason }, error: unreachable() };
      }
      if (err instanceof ApiError) return { kind: 'fatal', detail: { cause: err.code }, error: err };
      throw err;
    }
    observe(outcomeOf(res.status));
    await slot.release({ kind: 'answer', status: res.status, rate: this.#rateFrom(res.headers) });
    if (res.status === 429) return { kind: 'rate_limited', detail: { status: 429 } };
    if (res.status >= 500) return { kind: 'transient', detail: { status: res.status }, error: troubled() };
    const body = redactBody(res.text, apiKey);
    if (res.status < 200 || res.status >= 300) {
      // toRefusal reads text: a JSON body's is written back from its redacted parse.
      const text = 'json' in body ? JSON.stringify(body.json) : body.text;
      return { kind: 'answer', answer: { status: res.status, text } };
    }
    if ('json' in body) return { kind: 'answer', answer: { status: res.status, text: '', json: body.json } };
    // A body cut short is as transient as a 503; an unreadable one after retries is the upstream's fault.
    return {
      kind: 'transient',
      detail: { status: res.status, cause: 'unreadable_json' },
      error: unreadable(),
    };
  }

  async #acquire(keyHash: string, lane: Lane, deadline: number, signal: CancelSignal | undefined) {
    try {
      return await this.deps.scheduler.acquire(keyHash, lane, deadline, signal);
    } catch (err) {
      if (err instanceof SlotUnavailable) throw this.#rateLimitedAt(err.resetAt);
      throw err;
    }
  }

  async #rateLimited(keyHash: string): Promise<ApiError> {
    const v = await this.deps.budget.view(keyHash, this.#now());
    return this.#rateLimitedAt(v?.resetAt ?? this.#now() + 1000);
  }

  #rateLimitedAt(resetAt: number): ApiError {
    const wait = Math.max(0, resetAt - this.#now());
    return new ApiError(
      429,
      'rate_limited',
      "The property service's rate limit for your key is used up. It resets shortly.",
      {
        resetAt: new Date(resetAt).toISOString(),
        retryAfterS: Math.max(1, Math.ceil(wait / 1000)),
      },
    );
  }

  #logFailure(path: string, attempt: number, started: number, detail: Record<string, unknown>) {
    this.deps.logger?.warn(
      { upstream: { path, attempt, ms: this.#now() - started, ...detail } },
      'upstream attempt failed',
    );
  }

  #rateFrom(headers: HeaderReader): RateObservation | null {
    const limitText = headers.get('x-ratelimit-limit');
    const limit = Number(limitText);
    const remaining = Number(headers.get('x-ratelimit-remaining'));
    const resetAt = parseReset(headers.get('x-ratelimit-reset'), this.#now(), headers.get('date'));
    if (limitText === null || !Number.isFinite(limit) || !Number.isFinite(remaining) || resetAt === null)
      return null;
    return { limit: Math.max(0, Math.floor(limit)), remaining: Math.max(0, Math.floor(remaining)), resetAt };
  }

  /** Exponential backoff with jitter before retrying a transient failure. */
  async #backoff(attempt: number, signal: CancelSignal | undefined) {
    const base = Math.min(2000, 200 * 2 ** attempt);
    try {
      await this.#sleep(base + Math.floor(this.#random() * base * 0.5), signal);
    } catch {
      throw new ClientGone();
    }
  }
}

function outcomeOf(status: number): UpstreamOutcome {
  if (status >= 200 && status < 300) return '2xx';
  if (status === 404 || status === 409 || status === 429) return String(status) as '404' | '409' | '429';
  return status >= 500 ? '5xx' : status >= 400 ? '4xx' : '3xx';
}
