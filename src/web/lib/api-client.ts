import * as z from 'zod/mini';
import { ApiErrorBody, type ApiErrorCode, type Candidate, RateLimit } from '../../contract/index.ts';
import { markRateLimitExhausted, publishRateLimit } from './rate-limit-store.ts';

/** Codes the browser adds to the BFF's own: no answer at all, or an answer we could not read. */
export type ClientErrorCode = ApiErrorCode | 'offline' | 'bad_response';

export class ApiRequestError extends Error {
  constructor(
    readonly status: number,
    readonly code: ClientErrorCode,
    message: string,
    readonly candidates: Candidate[] = [],
    readonly resetAt: string | null = null,
    /** With ambiguous: how many candidates there are in all, when the service says. */
    readonly total: number | null = null,
  ) {
    super(message);
  }
}

/**
 * Calls the BFF: same origin, cookie session, the CSRF header every /api call must carry, and the answer
 * parsed with the contract's schema. Errors become ApiRequestError with the BFF's stable code.
 */
export async function apiFetch<S extends z.ZodMiniType>(
  path: string,
  schema: S | null,
  init: { method?: string; body?: unknown; signal?: AbortSignal } = {},
): Promise<z.infer<S>> {
  const headers: Record<string, string> = { 'X-Requested-With': 'proplens', Accept: 'application/json' };
  if (init.body !== undefined) headers['Content-Type'] = 'application/json';
  let res: Response;
  try {
    res = await fetch(path, {
      method: init.method ?? 'GET',
      headers,
      body: init.body === undefined ? undefined : JSON.stringify(init.body),
      credentials: 'same-origin',
      signal: init.signal,
    });
  } catch (err) {
    if ((err as Error).name === 'AbortError') throw err;
    const offline = typeof navigator !== 'undefined' && navigator.onLine === false;
    throw new ApiRequestError(
      0,
      'offline',
      offline
        ? 'You are offline. Reconnect and try again.'
        : 'PropLens could not be reached. Check your connection and try again.',
    );
  }
  if (res.status === 204) return undefined as z.infer<S>;
  const json: unknown = await res.json().catch(() => undefined);
  if (!res.ok) {
    const parsed = ApiErrorBody.safeParse(json);
    if (parsed.success) {
      const e = parsed.data.error;
      // A refusal spent a request too: the meter follows every answer, not only successes.
      if (e.rateLimit) publishRateLimit(e.rateLimit);
      if (e.code === 'rate_limited' && e.resetAt) markRateLimitExhausted(e.resetAt);
      throw new ApiRequestError(
        res.status,
        e.code,
        e.message,
        e.candidates ?? [],
        e.resetAt ?? null,
        e.total ?? null,
      );
    }
    throw new ApiRequestError(
      res.status,
      'bad_response',
      `PropLens answered with an error (${res.status}). Try again.`,
    );
  }
  if (schema === null) return undefined as z.infer<S>;
  const parsed = schema.safeParse(json);
  if (!parsed.success)
    throw new ApiRequestError(
      res.status,
      'bad_response',
      'PropLens sent an answer this page cannot read. Reload the page.',
    );
  const rateLimit = RateLimitIn.safeParse(parsed.data);
  if (rateLimit.success) publishRateLimit(rateLimit.data.rateLimit);
  return parsed.data;
}

const RateLimitIn = z.object({ rateLimit: z.nullable(RateLimit) });
