import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Context, Handler, Hono, MiddlewareHandler } from 'hono';
import { methodNotAllowed } from 'hono/method-not-allowed';
import { basePath } from 'hono/route';
import { TrieRouter } from 'hono/router/trie-router';
import { Cancellation, type CancelSignal } from './cancel.ts';
import type { AppEnv } from './context.ts';
import { ApiError, errorResponse } from './errors.ts';

/** A JSON request body, or 400: the content type must say JSON and the body must parse. */
export async function readJson(c: Context): Promise<unknown> {
  if (!(c.req.header('content-type') ?? '').toLowerCase().startsWith('application/json')) {
    throw new ApiError(400, 'bad_request', 'Send JSON with Content-Type: application/json.');
  }
  return c.req.json().catch((err: unknown) => {
    // A body the client stopped sending is its own doing; the error handler sees the aborted request.
    if (c.req.raw.signal.aborted) throw err;
    return null;
  });
}

/**
 * A header for whatever answer this request gets, errors included. Served by Node, it goes straight on the Node
 * response, as the security headers do (headers the answer sets itself still win); `c.header` would build a
 * Fetch Headers object for the answer and validate each value, a cost on every request for fixed values
 * (docs/decisions/005-lean-hot-path.md). In-process (`app.request`) it is `c.header`.
 */
export function answerHeader(c: Context, name: string, value: string): void {
  const outgoing = (c.env as { outgoing?: ServerResponse } | undefined)?.outgoing;
  if (outgoing) outgoing.setHeader(name, value);
  else c.header(name, value);
}

/**
 * 405 with the Allow header RFC 9110 requires, for a path `app` routes under other methods only: Hono's own
 * middleware reads the methods from the routes (HEAD with every GET), answered in the API's error shape. Mount it
 * on the app whose routes it should know; it turns that app's 404s for known paths into 405s.
 */
export function allowedMethods(app: Hono<AppEnv>): MiddlewareHandler<AppEnv> {
  return methodNotAllowed({
    app,
    onMethodNotAllowed: notAllowed,
  });
}

/** 405 in the API's error shape, with the Allow header. */
function notAllowed(c: Context, methods: string[]): Response {
  c.header('Allow', methods.join(', '));
  const named = methods.filter((m) => m !== 'HEAD');
  const list = named.length > 1 ? `${named.slice(0, -1).join(', ')} or ${named.at(-1)}` : named[0];
  return errorResponse(c, new ApiError(405, 'method_not_allowed', `Use ${list} on ${c.req.path}.`));
}

/**
 * The last handler of `app` (mounted under a base path, as /api is): a path no route of `app` answered. When
 * routes of `app` take that path under other methods it is a 405 with the Allow header RFC 9110 requires (HEAD
 * with every GET), else a 404 with `notFound`. Worked out here, for the requests nothing answered, rather than by
 * a middleware wrapping every request of `app` (allowedMethods: an async layer on every answer, the hot path's
 * included).
 */
export function unansweredPath(app: Hono<AppEnv>, notFound: string): Handler<AppEnv> {
  let methodsAt: TrieRouter<string[]> | undefined;
  return (c) => {
    if (!methodsAt) {
      const byPath = new Map<string, Set<string>>();
      for (const route of app.routes) {
        if (route.method === 'ALL' || route.method === 'HEAD') continue;
        const methods = byPath.get(route.path) ?? new Set<string>();
        methods.add(route.method);
        if (route.method === 'GET') methods.add('HEAD');
        byPath.set(route.path, methods);
      }
      methodsAt = new TrieRouter<string[]>();
      for (const [path, methods] of byPath) methodsAt.add('ALL', path, [...methods]);
    }
    const path = c.req.path.slice(basePath(c).length) || '/';
    const methods = [...new Set(methodsAt.match('ALL', path)[0].flatMap(([m]) => m))];
    if (methods.length === 0 || methods.includes(c.req.method))
      return errorResponse(c, new ApiError(404, 'not_found', notFound));
    return notAllowed(c, methods);
  };
}

/**
 * The browser going away, as a cancel token for the work done on its behalf: the answer's connection closed
 * before the answer was written (the same test @hono/node-server applies to `c.req.raw.signal`, without the
 * AbortController it makes for each request that reads it; docs/decisions/005-lean-hot-path.md). In-process
 * (`app.request`, no Node response) it is the Request's own signal.
 */
export function clientSignal(c: Context): CancelSignal {
  const env = c.env as { incoming?: IncomingMessage; outgoing?: ServerResponse } | undefined;
  const incoming = env?.incoming;
  const outgoing = env?.outgoing;
  if (!incoming || !outgoing) return c.req.raw.signal;
  const gone = new Cancellation();
  const leave = () => gone.abort(new Error('client gone'));
  if (incoming.errored !== null || (!outgoing.writableFinished && incoming.socket.destroyed)) leave();
  else {
    outgoing.once('close', () => {
      if (incoming.errored !== null || !outgoing.writableFinished) leave();
    });
    // A pipelined request whose answer waits behind another's has no socket yet, so its response never closes
    // when the connection drops; Node destroys the request itself, with an error (abortIncoming).
    incoming.once('close', () => {
      if (incoming.errored !== null) leave();
    });
  }
  return gone;
}
