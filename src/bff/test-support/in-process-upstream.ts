import type { Dispatcher } from 'undici';
import { DROP_HEADER } from '../../reference/app.ts';

/** Anything that answers a Request: the reference app, or a stub standing in for a hostile upstream. */
export type UpstreamHandler = (request: Request) => Response | Promise<Response>;

/**
 * An undici dispatcher that answers in-process instead of over a socket, so the BFF's tests run production's
 * transport (createPoolTransport's handler: deadline, byte cap, cancellation, failure causes) without ports
 * or real time. It drives the handler as undici's Pool does: request start, headers, data chunks, end or
 * error; aborting cancels the stub's request signal and its body stream, as a dropped socket would. A thrown
 * error becomes a connection error (`err.code` or `err.cause.code` names the cause, e.g. ECONNREFUSED);
 * the reference's "drop" fault becomes a reset socket.
 */
export function inProcessDispatcher(handle: UpstreamHandler): Pick<Dispatcher, 'dispatch' | 'close'> {
  return {
    dispatch(options, handler) {
      void run(handle, options, handler as Dispatcher.DispatchHandler);
      return true;
    },
    close: (() => Promise.resolve()) as Dispatcher['close'],
  };
}

async function run(
  handle: UpstreamHandler,
  options: Dispatcher.DispatchOptions,
  handler: Dispatcher.DispatchHandler,
) {
  const request = new AbortController();
  let reader: ReadableStreamDefaultReader<Uint8Array> | null = null;
  let aborted = false;
  const controller: Dispatcher.DispatchController = {
    get aborted() {
      return aborted;
    },
    get paused() {
      return false;
    },
    get reason() {
      return aborted ? (request.signal.reason as Error) : null;
    },
    abort(reason: Error) {
      if (aborted) return;
      aborted = true;
      request.abort(reason);
      reader?.cancel().catch(() => {});
    },
    pause() {},
    resume() {},
  };
  handler.onRequestStart?.(controller, {});
  if (aborted) return;
  try {
    const url = `${String(options.origin)}${options.path}`;
    const headers = new Headers(options.headers as Record<string, string>);
    const res = await handle(new Request(url, { method: options.method, headers, signal: request.signal }));
    if (aborted) return void res.body?.cancel().catch(() => {});
    if (res.headers.get(DROP_HEADER))
      throw Object.assign(new Error('socket hang up'), { code: 'ECONNRESET' });
    const raw: Record<string, string> = {};
    res.headers.forEach((value, name) => {
      raw[name] = value;
    });
    handler.onResponseStart?.(controller, res.status, raw, res.statusText);
    if (!res.body) return void (aborted || handler.onResponseEnd?.(controller, {}));
    reader = res.body.getReader();
    if (aborted) return void reader.cancel().catch(() => {});
    for (;;) {
      const { done, value } = await reader.read();
      if (aborted) return;
      if (done) break;
      handler.onResponseData?.(controller, Buffer.from(value));
      if (aborted) return void reader.cancel().catch(() => {});
    }
    handler.onResponseEnd?.(controller, {});
  } catch (err) {
    if (!aborted) handler.onResponseError?.(controller, err as Error);
  }
}
