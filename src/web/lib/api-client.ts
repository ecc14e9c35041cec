import * as z from 'zod/mini';
import {
  ApiErrorBody,
  type ApiErrorCode,
  type Candidate,
  CSRF_HEADER,
  LANE_HEADER,
  type Lane,
  type NotFoundReason,
  RateLimit,
} from '../../contract/index.ts';
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
    /** With not_found: why, when the service said. */
    readonly reason: NotFoundReason | null = null,
  ) {
    super(message);
  }
}

/**
 * The one place an ended session is noticed: any answer `unauthenticated` (a query, a mutation, a review's
 * upload, an area walk, a live view's stream) tells the listeners, and the app (query-client.ts) sends the
 * person to the key screen. Returns the unsubscribe.
 */
export function onSessionEnded(listener: () => void): () => void {
  endedListeners.add(listener);
  return () => void endedListeners.delete(listener);
}
const endedListeners = new Set<() => void>();

export interface ApiInit {
  method?: string;
  body?: unknown;
  signal?: AbortSignal;
  /** Review work waits behind interactive lookups for the rate budget (the BFF's scheduler). */
  lane?: Lane;
  /** A file sent as it is (application/octet-stream), instead of a JSON `body`. */
  bytes?: Blob;
}

/**
 * Calls the BFF: same origin, cookie session, the CSRF header every /api call must carry, and the answer
 * parsed with the contract's schema. Errors become ApiRequestError with the BFF's stable code.
 */
export async function apiFetch<S extends z.ZodMiniType>(
  path: string,
  schema: S | null,
  init: ApiInit = {},
): Promise<z.infer<S>> {
  const res = await send(path, init, 'application/json');
  if (res.status === 204) return undefined as z.infer<S>;
  const json: unknown = await res.json().catch(() => undefined);
  if (!res.ok) throw refusal(res.status, json);
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

/** A file the BFF builds (an export), with the same headers and errors as apiFetch. */
export async function apiDownload(path: string, init: ApiInit = {}): Promise<Blob> {
  return (await apiDownloadNamed(path, init)).blob;
}

/** The same, with the name the BFF gives the file (Content-Disposition), else the path's last part. */
export async function apiDownloadNamed(
  path: string,
  init: ApiInit = {},
): Promise<{ blob: Blob; name: string }> {
  const res = await send(path, init, '*/*');
  if (!res.ok) throw refusal(res.status, await res.json().catch(() => undefined));
  return { blob: await res.blob(), name: fileNameOf(res.headers.get('content-disposition'), path) };
}

/** `attachment; filename="x.csv"` -> x.csv; a name with a path in it keeps only its last part. */
function fileNameOf(disposition: string | null, path: string): string {
  const named = disposition ? /filename="([^"]*)"/i.exec(disposition)?.[1] : undefined;
  const name = named ?? path.split('?')[0]?.split('/').pop() ?? '';
  return name.split(/[/\\]/).pop() || 'download';
}

/** A stream the BFF keeps open (server-sent events), with the same headers and errors as apiFetch. */
export async function apiStream(
  path: string,
  init: ApiInit & { accept: string; headers?: Record<string, string> },
): Promise<NonNullable<Response['body']>> {
  const res = await send(path, init, init.accept);
  if (!res.ok || !res.body) throw refusal(res.status, await res.json().catch(() => undefined));
  return res.body;
}

async function send(
  path: string,
  init: ApiInit & { headers?: Record<string, string> },
  accept: string,
): Promise<Response> {
  const headers: Record<string, string> = {
    ...init.headers,
    [CSRF_HEADER.name]: CSRF_HEADER.value,
    Accept: accept,
  };
  if (init.bytes) headers['Content-Type'] = 'application/octet-stream';
  else if (init.body !== undefined) headers['Content-Type'] = 'application/json';
  if (init.lane) headers[LANE_HEADER] = init.lane;
  try {
    return await fetch(path, {
      method: init.method ?? 'GET',
      headers,
      body: init.bytes ?? (init.body === undefined ? undefined : JSON.stringify(init.body)),
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
}

/** An error answer as ApiRequestError, with the BFF's code; the meter follows refusals too. */
function refusal(status: number, json: unknown): ApiRequestError {
  const parsed = ApiErrorBody.safeParse(json);
  if (!parsed.success)
    return new ApiRequestError(
      status,
      'bad_response',
      `PropLens answered with an error (${status}). Try again.`,
    );
  const e = parsed.data.error;
  if (e.code === 'unauthenticated') for (const listener of endedListeners) listener();
  // A refusal spent a request too: the meter follows every answer, not only successes.
  if (e.rateLimit) publishRateLimit(e.rateLimit);
  if (e.code === 'rate_limited' && e.resetAt) markRateLimitExhausted(e.resetAt);
  return new ApiRequestError(
    status,
    e.code,
    e.message,
    e.candidates ?? [],
    e.resetAt ?? null,
    e.total ?? null,
    e.reason ?? null,
  );
}

const RateLimitIn = z.object({ rateLimit: z.nullable(RateLimit) });
