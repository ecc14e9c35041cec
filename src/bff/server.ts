import { createServer, type Server } from 'node:http';
import { getRequestListener } from '@hono/node-server';
import type { DemoKey } from '../contract/index.ts';
import type { Clock } from './clock.ts';
import { type Database, openDatabase } from './db/database.ts';
import type { BffConfig } from './env.ts';
import { type BffGraph, buildBffGraph } from './graph.ts';
import { createLogger } from './logger.ts';
import { BffMetrics } from './metrics.ts';
import { guardRequests, type RequestGuardOptions } from './middleware/request-guard.ts';
import { withSecurityHeaders } from './middleware/security-headers.ts';
import { createMetricsApp } from './routes/metrics.ts';
import { limitHeapGrowth } from './stores/cache/heap-growth.ts';
import { createStores } from './stores/create-stores.ts';
import type { AuthPlacement } from './upstream/client.ts';

/** How long a stopping server waits for answers in flight before it cuts the connections left. */
const CLOSE_GRACE_MS = 2_000;

export interface BffOptions {
  upstreamUrl: string;
  auth: AuthPlacement;
  demoKeys: DemoKey[] | null;
  salesContact: string | null;
  /** The embedded reference's clock when a test moves it (REFERENCE_CLOCK=controllable); the system's otherwise. */
  clock?: Clock;
}

export interface RunningBff {
  url: string;
  /** The separate metrics listener's URL, when METRICS_PORT is set. */
  metricsUrl?: string;
  /** Stops accepting, lets in-flight requests finish, then resolves. */
  close(): Promise<void>;
}

/** Builds the dependency graph from configuration (graph.ts) and serves the app. */
export async function startBff(config: BffConfig, options: BffOptions): Promise<RunningBff> {
  const logger = createLogger(config.logLevel);
  // A process's setting, set where the process is served (not by the graph a test builds too): ADR 015.
  limitHeapGrowth(config.heapGrowthPercent);
  // Memory, or Redis when REDIS_URL is set (replicas sharing sessions, cache and rate budget).
  const stores = createStores(config, logger);
  // The embedded database, or PostgreSQL when DATABASE_URL is set; migrated before anything is served.
  const database = await openDatabase({
    url: config.databaseUrl,
    dir: config.databaseDir,
    notice: (message) => logger.warn(message),
  }).catch(async (err: unknown) => {
    await stores.close();
    throw err;
  });
  const metrics = new BffMetrics({ processMetrics: true });
  const graph = buildBffGraph({
    config,
    upstream: { url: options.upstreamUrl, auth: options.auth },
    demoKeys: options.demoKeys,
    salesContact: options.salesContact,
    logger,
    stores,
    database,
    metrics,
    ...(options.clock ? { clock: options.clock } : {}),
    tuning: { reviewLeaseMs: config.reviewLeaseMs },
  });
  const shutDown = async () => {
    await graph.stop();
    await Promise.all([graph.close(), database.close()]);
  };
  const server = await listen(graph.app.fetch, config.host, config.port, config.trustProxy, SERVER_LIMITS, {
    allowedHosts: config.allowedHosts,
    // Over the soft cap, only a live session's requests are served (the reserve is theirs, not a cookie's).
    hasSession: async (id) => (await stores.sessions.get(id)) !== undefined,
  }).catch(async (err: unknown) => {
    await shutDown();
    throw err;
  });
  graph.start();
  // Metrics on their own port, for a scraper on a network the app's users never reach (README "Metrics").
  const metricsServer =
    config.metricsPort === undefined
      ? null
      : await listen(
          createMetricsApp({ metrics, token: config.metricsToken }).fetch,
          config.metricsHost,
          config.metricsPort,
          config.trustProxy,
          SERVER_LIMITS,
          // A scraper names this port as its network knows it; /metrics needs the token or the private port.
          { allowedHosts: '*' },
        ).catch(async (err: unknown) => {
          server.close();
          await shutDown();
          throw err;
        });
  return {
    url: urlOf(server, config.host),
    ...(metricsServer ? { metricsUrl: urlOf(metricsServer, config.metricsHost) } : {}),
    close: () => closeGracefully(server, metricsServer, graph, database),
  };
}

/**
 * Stops accepting and leasing review rows; once every connection has closed (their answers' audit entries
 * committed), stops the rest of the background work, the audit trail last.
 */
function closeGracefully(
  server: Server,
  metricsServer: Server | null,
  graph: BffGraph,
  database: Database,
): Promise<void> {
  return new Promise<void>((resolve) => {
    metricsServer?.close();
    metricsServer?.closeAllConnections();
    const stopping = graph.reviews?.worker.stop() ?? Promise.resolve();
    server.close(() => {
      clearInterval(sweep);
      void stopping
        .then(() => graph.stop())
        .then(() => Promise.all([graph.close(), database.close()]))
        .then(() => resolve());
    });
    // A kept-alive socket holds close() open until it times out. Close each one as soon as it is idle:
    // now, and as in-flight requests finish.
    server.closeIdleConnections();
    const sweep = setInterval(() => server.closeIdleConnections(), 50);
    // A review's event stream never goes idle: after a grace period for answers in flight, cut what is
    // left (a page reconnects, to this replica's successor or another).
    setTimeout(() => server.closeAllConnections(), CLOSE_GRACE_MS).unref();
  });
}

/**
 * Limits suited to this app (README "Server limits"): a sign-in is 4 KB, so nobody needs minutes to send
 * headers or a body; idle keep-alive sockets are closed soon; connections are capped. Review batches stream
 * their answer for as long as pacing needs: requestTimeout bounds receiving the request, not the answer.
 * Node checks the two timeouts every `checkingIntervalMs` (30 s unless told), so a slow client would be cut
 * up to that late: checked every second, they hold to within a second.
 */
export const SERVER_LIMITS = {
  headersTimeoutMs: 10_000,
  requestTimeoutMs: 30_000,
  checkingIntervalMs: 1_000,
  keepAliveTimeoutMs: 5_000,
  maxConnections: 2_000,
  maxHeadersCount: 100,
  /**
   * The last 10 % of maxConnections are kept for requests of a live session (request-guard.ts): beyond that, a
   * request without one is answered 503 with Retry-After and closed, and a new connection must send its
   * request's headers within `firstRequestMs`, so anonymous or silent sockets cannot fill the cap.
   */
  sessionReservePercent: 10,
  firstRequestMs: 2_000,
};
export type ServerLimits = typeof SERVER_LIMITS;

export function applyServerLimits(server: Server, limits: ServerLimits = SERVER_LIMITS) {
  server.headersTimeout = limits.headersTimeoutMs;
  server.requestTimeout = limits.requestTimeoutMs;
  server.keepAliveTimeout = limits.keepAliveTimeoutMs;
  server.maxConnections = limits.maxConnections;
  server.maxHeadersCount = limits.maxHeadersCount;
}

/**
 * An HTTP server for `fetch` on hostname:port, as production runs it: every answer with the security headers
 * (set on the Node response, see middleware/security-headers.ts), the server limits, and the request guard
 * (Host allow-list, no repeated query parameters, the connection reserve: middleware/request-guard.ts). Tests listen with it
 * too (port 0), so what they check over real HTTP is what ships.
 */
export function listen(
  fetch: (req: Request) => Response | Promise<Response>,
  hostname: string,
  port: number,
  trustProxy: boolean,
  limits: ServerLimits = SERVER_LIMITS,
  guard: RequestGuardOptions = {},
): Promise<Server> {
  return new Promise<Server>((resolve, reject) => {
    const s = createServer({ connectionsCheckingInterval: limits.checkingIntervalMs });
    const reserved = Math.ceil((limits.maxConnections * limits.sessionReservePercent) / 100);
    s.on(
      'request',
      withSecurityHeaders(
        guardRequests(s, getRequestListener(fetch, { hostname }), guard, {
          softCap: limits.maxConnections - reserved,
          firstRequestMs: limits.firstRequestMs,
        }),
        trustProxy,
      ),
    );
    applyServerLimits(s, limits);
    s.once('error', reject);
    s.listen(port, hostname, () => resolve(s));
  });
}

/** The URL a listening server is reached at (a wildcard host is reached on the loopback). */
function urlOf(server: Server, hostname: string): string {
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : 0;
  const host = hostname.includes(':') ? `[${hostname}]` : hostname;
  return `http://${host === '0.0.0.0' ? '127.0.0.1' : host}:${port}`;
}
