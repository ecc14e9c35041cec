import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import { isIP, type Socket } from 'node:net';
import type { ApiErrorBody, ApiErrorCode } from '../../contract/index.ts';

/**
 * What every request to the app's listener passes before any route runs, checked on the Node request (a few
 * string tests; docs/decisions/005-lean-hot-path.md) and answered in the API's error shape:
 *
 * - **Host** (DNS rebinding): a page on an attacker's name that resolves to this server's address would
 *   otherwise be same-origin with it. Served: IP literals and `localhost` (no DNS name of an attacker's is one of
 *   these; any port, since the dev server's and the cluster's proxies pass the Host of their own port), and the
 *   names in ALLOWED_HOSTS (`*.example.com`: its subdomains). Anything else: 421, before any route runs.
 *   No Host (HTTP/1.0) names nothing to rebind and passes (CSRF refuses such a request with an Origin).
 * - **Duplicate query parameters** on the API (`?q=a&q=b`): 400, never one of them silently taken.
 * - **The last slots of the connection cap** (SessionReserve): kept for requests of a live session.
 */
export interface RequestGuardOptions {
  /** ALLOWED_HOSTS: DNS names served besides localhost and IP literals; '*': any Host (the metrics port). */
  allowedHosts?: readonly string[] | '*';
  /** Is this session cookie's session live? Without it, a session cookie's presence is enough. */
  hasSession?: (id: string) => Promise<boolean>;
}

export interface SessionReserve {
  /** Connections beyond which a request needs a live session (below the server's maxConnections). */
  softCap: number;
  /** A connection accepted beyond the soft cap is closed unless a request's headers arrive within this. */
  firstRequestMs: number;
}

type Listener = (req: IncomingMessage, res: ServerResponse) => unknown;

const SESSION_COOKIE = /(?:^|;)\s*(?:__Host-)?proplens_session=([^;]*)/;

/** A Node request listener that runs `listener` only for requests the rules above let through. */
export function guardRequests(
  server: Server,
  listener: Listener,
  options: RequestGuardOptions,
  reserve: SessionReserve,
): Listener {
  const allowHost = hostRule(options.allowedHosts ?? []);
  const open = countConnections(server, reserve);
  return (req, res) => {
    const host = req.headers.host;
    if (host !== undefined && !allowHost(host)) {
      return refuse(
        res,
        421,
        'bad_request',
        'PropLens does not answer for this host name (its operator lists the names it serves in ALLOWED_HOSTS).',
      );
    }
    let url = req.url ?? '/';
    if (ABSOLUTE_FORM.test(url)) {
      // An absolute-form target (RFC 9112 §3.2.2, which a server must accept): read as the origin-form it
      // stands for, so every rule below and every route sees the one path and query. It must name the host
      // the Host header names: a request is for one host, and the checks above judged that one.
      const target = originForm(url);
      if (target === null || host === undefined || target.host !== hostName(host)) {
        return refuse(res, 400, 'bad_request', 'Send the request target as a path, for this host.');
      }
      url = target.path;
      req.url = url;
    }
    if (url.startsWith('/api/')) {
      const repeated = repeatedParameter(url);
      if (repeated !== null) {
        const named = /^[\w.-]{1,40}$/.test(repeated) ? `the ${repeated} parameter` : 'each query parameter';
        return refuse(res, 400, 'bad_request', `Send ${named} once.`);
      }
    }
    firstRequestArrived(req.socket);
    if (open() <= reserve.softCap) return listener(req, res);
    const id = SESSION_COOKIE.exec(req.headers.cookie ?? '')?.[1];
    const busy = () =>
      refuse(res, 503, 'store_unavailable', 'PropLens is busy. Try again in a few seconds.', {
        'Retry-After': '5',
        Connection: 'close',
      });
    if (!id) return busy();
    if (!options.hasSession) return listener(req, res);
    return options.hasSession(id).then(
      (live) => (live ? listener(req, res) : busy()),
      () => busy(),
    );
  };
}

/** True for the hosts served (see above); `host` is the Host header as sent. */
export function hostRule(allowed: readonly string[] | '*'): (host: string) => boolean {
  if (allowed === '*') return () => true;
  const exact = new Set(allowed.filter((n) => !n.startsWith('*.')));
  const suffixes = allowed.filter((n) => n.startsWith('*.')).map((n) => n.slice(1));
  return (header) => {
    const name = hostName(header);
    if (name === null) return false;
    if (name === 'localhost' || name.endsWith('.localhost') || exact.has(name)) return true;
    if (name.startsWith('[')) return name.endsWith(']') && isIP(name.slice(1, -1)) === 6;
    if (isIP(name) === 4) return true;
    return suffixes.some((s) => name.endsWith(s));
  };
}

const ABSOLUTE_FORM = /^[a-z][a-z0-9+.-]*:\/\//i;

/** An absolute-form target's host name (as hostName gives it) and its path and query; null if unreadable. */
function originForm(target: string): { host: string | null; path: string } | null {
  try {
    const u = new URL(target);
    if (u.protocol !== 'http:' && u.protocol !== 'https:') return null;
    return { host: hostName(u.host), path: `${u.pathname}${u.search}` };
  } catch {
    return null;
  }
}

/** The Host header's name, lower case, without its port or a final dot; null when it is not one. */
function hostName(header: string): string | null {
  const h = header.trim().toLowerCase();
  const m = /^(\[[0-9a-f:.]+\]|[a-z0-9._-]+)(?::\d{1,5})?$/.exec(h);
  if (!m) return null;
  const name = m[1] as string;
  return name.endsWith('.') ? name.slice(0, -1) : name;
}

/** A query parameter's name sent more than once, or null. Only a query with two parameters is parsed. */
function repeatedParameter(url: string): string | null {
  const q = url.indexOf('?');
  if (q < 0 || url.indexOf('&', q) < 0) return null;
  const hash = url.indexOf('#', q);
  const seen = new Set<string>();
  for (const name of new URLSearchParams(url.slice(q + 1, hash < 0 ? undefined : hash)).keys()) {
    if (seen.has(name)) return name;
    seen.add(name);
  }
  return null;
}

const awaitingFirst = new WeakMap<Socket, NodeJS.Timeout>();

/**
 * The server's open connections, counted as they come and go. One accepted beyond the soft cap must send a
 * request within `firstRequestMs`, so silent sockets cannot sit in the reserved slots until the headers
 * timeout (10 s): the reserve would be theirs.
 */
function countConnections(server: Server, reserve: SessionReserve): () => number {
  let open = 0;
  server.on('connection', (socket: Socket) => {
    open++;
    socket.once('close', () => {
      open--;
      clearTimeout(awaitingFirst.get(socket));
    });
    if (open > reserve.softCap) {
      const timer = setTimeout(() => socket.destroy(), reserve.firstRequestMs);
      timer.unref();
      awaitingFirst.set(socket, timer);
    }
  });
  return () => open;
}

function firstRequestArrived(socket: Socket) {
  const timer = awaitingFirst.get(socket);
  if (timer === undefined) return;
  clearTimeout(timer);
  awaitingFirst.delete(socket);
}

function refuse(
  res: ServerResponse,
  status: number,
  code: ApiErrorCode,
  message: string,
  headers: Record<string, string> = {},
) {
  const body = JSON.stringify({ error: { code, message } } satisfies ApiErrorBody);
  res.writeHead(status, {
    'Content-Type': 'application/json',
    'Content-Length': Buffer.byteLength(body),
    'Cache-Control': 'no-store',
    ...headers,
  });
  res.end(body);
}
