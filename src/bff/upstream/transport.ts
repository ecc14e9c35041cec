import { ApiError } from '../errors.ts';
import { ClientGone } from './scheduler.ts';

/** One upstream attempt, read in full: status, headers, and the body as text (empty for 429 and 5xx). */
export interface Attempt {
  status: number;
  headers: Headers;
  text: string;
}

/** Why an attempt got no usable HTTP answer, for the log and the retry decision. */
export type FailureCause = 'refused' | 'reset' | 'dns' | 'body_cut' | 'network';

/** No usable answer: transient, worth a retry. */
export class TransportFailure extends Error {
  constructor(readonly reason: FailureCause) {
    super(`upstream ${reason}`);
  }
}

export const MAX_BODY_BYTES = 2_000_000;

/**
 * Sends one request and reads the whole answer under one deadline: an upstream that trickles its body is cut
 * off at `timeoutMs` like one that never answers, and a client that goes away cancels the read as well as the
 * request. The body is read with a byte cap.
 */
export async function sendOnce(
  fetchFn: typeof fetch,
  url: URL,
  headers: Headers,
  timeoutMs: number,
  signal: AbortSignal | undefined,
): Promise<Attempt> {
  if (signal?.aborted) throw new ClientGone();
  const controller = new AbortController();
  let timedOut = false;
  const timer = setTimeout(() => {
    timedOut = true;
    controller.abort();
  }, timeoutMs);
  const onClientAbort = () => controller.abort();
  signal?.addEventListener('abort', onClientAbort, { once: true });
  let gotHeaders = false;
  try {
    const res = await fetchFn(url, { headers, signal: controller.signal, redirect: 'error' });
    gotHeaders = true;
    if (res.status === 429 || res.status >= 500) {
      await res.body?.cancel().catch(() => {});
      return { status: res.status, headers: res.headers, text: '' };
    }
    return { status: res.status, headers: res.headers, text: await readCapped(res, controller.signal) };
  } catch (err) {
    if (signal?.aborted) throw new ClientGone();
    if (timedOut) {
      throw new ApiError(504, 'upstream_timeout', 'The property service took too long to answer. Try again.');
    }
    if (err instanceof TransportFailure || err instanceof ApiError) throw err;
    throw new TransportFailure(gotHeaders ? 'body_cut' : causeOf(err));
  } finally {
    clearTimeout(timer);
    signal?.removeEventListener('abort', onClientAbort);
  }
}

/** The body, up to MAX_BODY_BYTES; an abort (deadline or client) cancels the read whatever fetch does. */
async function readCapped(res: Response, signal: AbortSignal): Promise<string> {
  const declared = Number(res.headers.get('content-length') ?? '0');
  if (declared > MAX_BODY_BYTES) {
    await res.body?.cancel().catch(() => {});
    throw tooLarge();
  }
  if (!res.body) return '';
  const reader = res.body.getReader();
  const aborted = new Promise<never>((_, reject) => {
    const onAbort = () => {
      reject(new TransportFailure('body_cut'));
      reader.cancel().catch(() => {});
    };
    if (signal.aborted) onAbort();
    else signal.addEventListener('abort', onAbort, { once: true });
  });
  aborted.catch(() => {});
  const chunks: Uint8Array[] = [];
  let total = 0;
  for (;;) {
    const { done, value } = await Promise.race([reader.read(), aborted]);
    if (signal.aborted) throw new TransportFailure('body_cut');
    if (done) break;
    total += value.byteLength;
    if (total > MAX_BODY_BYTES) {
      await reader.cancel().catch(() => {});
      throw tooLarge();
    }
    chunks.push(value);
  }
  return Buffer.concat(chunks).toString('utf8');
}

/** fetch hides the cause in err.cause.code (undici); name what an operator can act on. */
function causeOf(err: unknown): FailureCause {
  const code = String((err as { cause?: { code?: unknown } })?.cause?.code ?? '');
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
