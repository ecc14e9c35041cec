import type { Context } from 'hono';
import type { ContentfulStatusCode } from 'hono/utils/http-status';
import type { ApiErrorBody, ApiErrorCode, Candidate, NotFoundReason, RateLimit } from '../contract/index.ts';

/** The one error type of the BFF API. Everything that goes wrong becomes one of these, in one place. */
export class ApiError extends Error {
  constructor(
    readonly status: ContentfulStatusCode,
    readonly code: ApiErrorCode,
    message: string,
    readonly extra: {
      candidates?: Candidate[];
      resetAt?: string;
      retryAfterS?: number;
      /** With ambiguous: how many candidates there are in all, when the upstream says. */
      total?: number;
      /** With not_found: why, when the upstream says. */
      reason?: NotFoundReason;
    } = {},
  ) {
    super(message);
  }
}

/** `rateLimit`: the account's budget after this request, when it was made in a session (else null). */
export function errorResponse(c: Context, err: ApiError, rateLimit: RateLimit | null = null): Response {
  const body: ApiErrorBody = { error: { code: err.code, message: err.message } };
  if (err.extra.candidates) body.error.candidates = err.extra.candidates;
  if (err.extra.resetAt) body.error.resetAt = err.extra.resetAt;
  if (err.extra.total !== undefined) body.error.total = err.extra.total;
  if (err.extra.reason) body.error.reason = err.extra.reason;
  if (rateLimit) body.error.rateLimit = rateLimit;
  if (err.extra.retryAfterS !== undefined) c.header('Retry-After', String(err.extra.retryAfterS));
  c.header('Cache-Control', 'no-store');
  return c.json(body, err.status);
}

/**
 * The shared store (Redis) did not answer in time or is unreachable. Fast and explicit, never a hang: the
 * client may try again in a moment, and the store's own reconnection brings service back.
 */
export const storeUnavailable = () =>
  new ApiError(503, 'store_unavailable', 'PropLens is briefly unavailable. Try again in a moment.', {
    retryAfterS: 1,
  });

/** Maps anything thrown to the API's error shape; unknown errors never leak their text. */
export function toApiError(err: unknown): ApiError {
  if (err instanceof ApiError) return err;
  const status = (err as { status?: number }).status;
  if (status === 413) return new ApiError(413, 'payload_too_large', 'The request body is too large.');
  if (err instanceof SyntaxError || status === 400)
    return new ApiError(400, 'bad_request', 'The request is malformed.');
  return new ApiError(500, 'internal', 'Something went wrong on our side. Please try again.');
}
