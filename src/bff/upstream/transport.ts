import { type Dispatcher, Pool } from 'undici';
import type { CancelSignal } from '../cancel.ts';
import { ClientGone } from '../cancel.ts';
import { ApiError } from '../errors.ts';

/** The answer's headers, read by (lower-case) name: fetch's Headers, or a view over undici's object. */
export interface HeaderReader {
  get(name: string): string | null;
}

/** One upstream attempt, read in full: status, headers, and the body as text (empty for 429 and 5xx). */
export interface Attempt {
  status: number;
  headers: HeaderReader;
  text: string;
}

/** One GET to the upstream, with the deadline for its whole answer and the browser's signal. */
export interface UpstreamRequest {
  /** Absolute, under the upstream's normalised origin (as `new URL(base).origin` writes it). */
  url: string;
  headers: Record<string, string>;
  timeoutMs: number;
  signal?: CancelSignal;
}

/**
 * Sends one request and reads its whole answer (the seam between the client and the network): one deadline
 * over headers and body (504 `upstream_timeout`), a departing client cancels everything (ClientGone), a byte
 * cap on the body, and failures named by cause (TransportFailure). There is one implementation,
 * createPoolTransport; tests run it too, over an in-process dispatcher instead of sockets.
 */
export type Transport = (request: UpstreamRequest) => Promise<Attempt>;

/** Why an attempt got no usable HTTP answer, for the log and the retry decision. */
export type FailureCause = 'refused' | 'reset' | 'dns' | 'body_cut' | 'redirect' | 'network';

/** No usable answer: transient, worth a retry. */
export class TransportFailure extends Error {
  constructor(readonly reason: FailureCause) {
    super(`upstream ${reason}`);
  }
}

export const MAX_BODY_BYTES = 2_000_000;

const timedOut = () =>
  new ApiError(504, 'upstream_timeout', 'The property service took too long to answer. Try again.');

/** The cause is in err.code (undici) or err.cause.code (a wrapped socket error); name what an operator can act on. */
function causeOf(err: unknown): FailureCause {
  const e = err as { code?: unknown; cause?: { code?: unknown } } | undefined;
  const code = String(e?.cause?.code ?? e?.code ?? '');
  if (code === 'ECONNREFUSED') return 'refused';
  if (code === 'ECONNRESET' || code === 'UND_ERR_SOCKET' || code === 'EPIPE') return 'reset';
  if (code === 'ENOTFOUND' || code === 'EAI_AGAIN') return 'dns';
  return 'network';
}

const tooLarge = () =>
  new ApiError(
    502,
    'upstream_invalid',
    'The property service sent an answer too large to be a property record.',
  );

export interface PoolTransportOptions {
  /** Most sockets open to the upstream at once; more requests queue (their deadline still runs). */
  connections?: number;
  /**
   * Where requests are dispatched: by default an undici Pool of kept-alive sockets to the upstream's origin.
   * Tests pass an in-process dispatcher (test-support/in-process-upstream.ts): the same handler reads the
   * answer, so what they check is what ships.
   */
  dispatcher?: Pick<Dispatcher, 'dispatch' | 'close'>;
  /** Starts the deadline timer and returns its cancel; tests fire it by hand. */
  setTimer?: (fire: () => void, ms: number) => () => void;
}

export interface PoolTransport {
  send: Transport;
  /** Closes the kept-alive sockets once requests in flight have finished. */
  close(): Promise<void>;
}

const REDIRECTS = new Set([301, 302, 303, 307, 308]);

const realTimer = (fire: () => void, ms: number) => {
  const timer = setTimeout(fire, ms);
  return () => clearTimeout(timer);
};

/**
 * Production's transport: undici's Pool with kept-alive sockets to the upstream's origin, and a dispatch
 * handler that collects the body itself. No fetch Request/Response, web stream or AbortController per
 * request: a plain timer is the deadline, and aborting undici's controller cancels the request or its body
 * read (the socket is dropped, never reused mid-answer). Redirects are not followed (as fetch's
 * `redirect: 'error'`): the upstream is configured by URL, and a redirect is a misconfiguration to log.
 */
export function createPoolTransport(baseUrl: string, options: PoolTransportOptions = {}): PoolTransport {
  const origin = new URL(baseUrl).origin;
  const prefix = `${origin}/`;
  const pool = options.dispatcher ?? new Pool(origin, { connections: options.connections ?? 128 });
  const setTimer = options.setTimer ?? realTimer;
  const send: Transport = ({ url, headers, timeoutMs, signal }) =>
    new Promise<Attempt>((resolve, reject) => {
      if (signal?.aborted) return reject(new ClientGone());
      // One origin per pool: anything else is a programming error, never a request elsewhere with the key.
      if (!url.startsWith(prefix)) return reject(new Error(`upstream URL outside ${origin}`));
      const attempt = new PoolAttempt(resolve, reject, signal);
      attempt.cancelTimer = setTimer(() => attempt.fail(timedOut()), timeoutMs);
      pool.dispatch({ origin, path: url.slice(origin.length), method: 'GET', headers }, attempt);
    });
  return { send, close: () => pool.close() };
}

/** One request's handler: collects status, headers and a capped body, and settles exactly once. */
class PoolAttempt implements Dispatcher.DispatchHandler {
  cancelTimer: () => void = () => {};
  #controller: Dispatcher.DispatchController | null = null;
  #settled = false;
  #gotHeaders = false;
  #status = 0;
  #headers: Record<string, string | string[] | undefined> = {};
  #chunks: Buffer[] = [];
  #bytes = 0;
  readonly #onClientAbort = () => this.fail(new ClientGone());

  constructor(
    private readonly resolve: (attempt: Attempt) => void,
    private readonly reject: (err: Error) => void,
    private readonly signal: CancelSignal | undefined,
  ) {
    signal?.addEventListener('abort', this.#onClientAbort, { once: true });
  }

  onRequestStart(controller: Dispatcher.DispatchController) {
    this.#controller = controller;
    // Settled while queued for a socket (deadline, client gone): never send it.
    if (this.#settled) controller.abort(new Error('abandoned'));
  }

  onResponseStart(
    controller: Dispatcher.DispatchController,
    status: number,
    headers: Record<string, string | string[] | undefined>,
  ) {
    if (this.#settled || status < 200) return;
    this.#gotHeaders = true;
    this.#status = status;
    this.#headers = headers;
    if (REDIRECTS.has(status)) return this.fail(new TransportFailure('redirect'));
    if (status === 429 || status >= 500) {
      // Nobody reads these bodies: answer now and drop the socket rather than wait for it.
      this.#finish('');
      controller.abort(new Error('body not needed'));
      return;
    }
    if (Number(headerValue(headers, 'content-length') ?? '0') > MAX_BODY_BYTES) this.fail(tooLarge());
  }

  onResponseData(_controller: Dispatcher.DispatchController, chunk: Buffer) {
    if (this.#settled) return;
    this.#bytes += chunk.byteLength;
    if (this.#bytes > MAX_BODY_BYTES) return this.fail(tooLarge());
    this.#chunks.push(chunk);
  }

  onResponseEnd() {
    if (this.#settled) return;
    this.#finish(
      this.#chunks.length === 1
        ? (this.#chunks[0] as Buffer).toString('utf8')
        : Buffer.concat(this.#chunks, this.#bytes).toString('utf8'),
    );
  }

  onResponseError(_controller: Dispatcher.DispatchController, err: Error) {
    this.fail(new TransportFailure(this.#gotHeaders ? 'body_cut' : causeOf(err)));
  }

  /** Rejects (once) and cancels whatever undici is still doing for this request. */
  fail(err: Error) {
    if (this.#settled) return;
    this.#settle();
    this.reject(err);
    this.#controller?.abort(err);
  }

  #finish(text: string) {
    this.#settle();
    const headers = this.#headers;
    this.resolve({ status: this.#status, headers: { get: (name) => headerValue(headers, name) }, text });
  }

  #settle() {
    this.#settled = true;
    this.cancelTimer();
    this.signal?.removeEventListener('abort', this.#onClientAbort);
  }
}

/** Own properties only: upstream header names are data (`__proto__` is not a header we look up). */
function headerValue(headers: Record<string, string | string[] | undefined>, name: string): string | null {
  if (!Object.hasOwn(headers, name)) return null;
  const v = headers[name];
  if (v === undefined) return null;
  return Array.isArray(v) ? v.join(', ') : v;
}
