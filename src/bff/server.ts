import { createServer, type Server } from 'node:http';
import { getRequestListener } from '@hono/node-server';
import type { DemoKey } from '../contract/index.ts';
import { createBffApp } from './app.ts';
import { createAuditTrail } from './audit/audit-trail.ts';
import { openDatabase } from './db/database.ts';
import type { BffConfig } from './env.ts';
import { createLogger } from './logger.ts';
import { Lookups } from './lookups.ts';
import { BffMetrics } from './metrics.ts';
import { withSecurityHeaders } from './middleware/security-headers.ts';
import { createDurableReviews } from './reviews/durable-reviews.ts';
import { createMetricsApp } from './routes/metrics.ts';
import { createStores } from './stores/create-stores.ts';
import { type AuthPlacement, UpstreamClient } from './upstream/client.ts';
import { UpstreamScheduler } from './upstream/scheduler.ts';
import { createPoolTransport } from './upstream/transport.ts';

/** How long a stopping server waits for answers in flight before it cuts the connections left. */
const CLOSE_GRACE_MS = 2_000;

export interface BffOptions {
  upstreamUrl: string;
  auth: AuthPlacement;
  demoKeys: DemoKey[] | null;
  salesContact: string | null;
}

export interface RunningBff {
  url: string;
  /** The separate metrics listener's URL, when METRICS_PORT is set. */
  metricsUrl?: string;
  /** Stops accepting, lets in-flight requests finish, then resolves. */
  close(): Promise<void>;
}

/** Builds the production dependency graph from configuration and serves the app. */
export async function startBff(config: BffConfig, options: BffOptions): Promise<RunningBff> {
  const logger = createLogger(config.logLevel);
  // Memory, or Redis when REDIS_URL is set (replicas sharing sessions, cache and rate budget).
  const stores = createStores(config, logger);
  const { budget } = stores;
  const metrics = new BffMetrics({ processMetrics: true });
  const scheduler = new UpstreamScheduler(budget, {
    onGrant: (lane, waitedMs, held) => metrics.slotGranted(lane, waitedMs, held),
  });
  // Kept-alive sockets to the upstream, no fetch machinery per request (docs/decisions/005-lean-hot-path.md).
  const pool = createPoolTransport(options.upstreamUrl);
  const upstream = new UpstreamClient(
    {
      baseUrl: options.upstreamUrl,
      auth: options.auth,
      idField: config.idField,
      resolvePath: config.resolvePath,
      searchPath: config.searchPath,
      timeoutMs: config.timeoutMs,
      retries: config.retries,
      maxRateLimitWaitMs: config.maxRateLimitWaitMs,
      reviewMaxWaitMs: config.reviewMaxWaitMs,
      salesContact: options.salesContact,
    },
    {
      transport: pool.send,
      budget,
      scheduler,
      logger,
      onAttempt: (operation, outcome, seconds) => metrics.upstreamAttempt(operation, outcome, seconds),
    },
  );
  // The embedded database, or PostgreSQL when DATABASE_URL is set; migrated before anything is served.
  const database = await openDatabase({ url: config.databaseUrl, dir: config.databaseDir }).catch(
    async (err: unknown) => {
      await Promise.all([stores.close(), pool.close()]);
      throw err;
    },
  );
  const auditTrail = createAuditTrail({ database, logger, retentionDays: config.auditRetentionDays });
  metrics.countAuditWith(() => auditTrail.writer);
  const lookups = new Lookups({
    upstream,
    cache: stores.cache,
    sessions: stores.sessions,
    metrics,
    audit: auditTrail.audit,
  });
  const reviews = createDurableReviews({
    database,
    lookups,
    sessions: stores.sessions,
    logger,
    concurrency: config.reviewConcurrency,
    metrics,
  });
  const app = createBffApp({
    upstream,
    lookups,
    reviews,
    auditTrail,
    sessions: stores.sessions,
    cache: stores.cache,
    logger,
    demoKeys: options.demoKeys,
    salesContact: options.salesContact,
    sessionAbsoluteMs: config.sessionAbsoluteMs,
    trustProxy: config.trustProxy,
    cursorSecret: stores.cursorSecret,
    distDir: config.distDir,
    metrics,
    metricsToken: config.metricsToken,
  });
  const server = await listen(app.fetch, config.host, config.port, config.trustProxy).catch(
    async (err: unknown) => {
      await Promise.all([stores.close(), database.close()]);
      throw err;
    },
  );
  reviews.worker.start();
  auditTrail.start();
  // Metrics on their own port, for a scraper on a network the app's users never reach (README "Metrics").
  const metricsServer =
    config.metricsPort === undefined
      ? null
      : await listen(
          createMetricsApp({ metrics, token: config.metricsToken }).fetch,
          config.metricsHost,
          config.metricsPort,
          config.trustProxy,
        ).catch(async (err: unknown) => {
          server.close();
          await reviews.worker.stop();
          await auditTrail.stop();
          await Promise.all([stores.close(), pool.close(), database.close()]);
          throw err;
        });
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : config.port;
  const host = config.host.includes(':') ? `[${config.host}]` : config.host;
  return {
    url: `http://${host === '0.0.0.0' ? '127.0.0.1' : host}:${port}`,
    ...(metricsServer ? { metricsUrl: urlOf(metricsServer, config.metricsHost) } : {}),
    close: () =>
      new Promise<void>((resolve) => {
        metricsServer?.close();
        metricsServer?.closeAllConnections();
        // Stop accepting; resolve once every connection has closed.
        // The worker first: its last answers are recorded before the trail's last write.
        const stopping = reviews.worker.stop().then(() => auditTrail.stop());
        server.close(() => {
          clearInterval(sweep);
          void stopping
            .then(() => Promise.all([stores.close(), pool.close(), database.close()]))
            .then(() => resolve());
        });
        // A kept-alive socket holds close() open until it times out. Close each one as soon as it is idle:
        // now, and as in-flight requests finish.
        server.closeIdleConnections();
        const sweep = setInterval(() => server.closeIdleConnections(), 50);
        // A review's event stream never goes idle: after a grace period for answers in flight, cut what is
        // left (a page reconnects, to this replica's successor or another).
        setTimeout(() => server.closeAllConnections(), CLOSE_GRACE_MS).unref();
      }),
  };
}

/**
 * Limits suited to this app (README "Server limits"): a sign-in is 4 KB, so nobody needs minutes to send
 * headers or a body; idle keep-alive sockets are closed soon; connections are capped. Review batches stream
 * their answer for as long as pacing needs: requestTimeout bounds receiving the request, not the answer.
 */
export function applyServerLimits(server: Server) {
  server.headersTimeout = 10_000;
  server.requestTimeout = 30_000;
  server.keepAliveTimeout = 5_000;
  server.maxConnections = 2_000;
  server.maxHeadersCount = 100;
}

/**
 * An HTTP server for `fetch` on hostname:port, as production runs it: every answer with the security headers
 * (set on the Node response, see middleware/security-headers.ts) and the server limits. Tests listen with it
 * too (port 0), so what they check over real HTTP is what ships.
 */
export function listen(
  fetch: (req: Request) => Response | Promise<Response>,
  hostname: string,
  port: number,
  trustProxy: boolean,
): Promise<Server> {
  return new Promise<Server>((resolve, reject) => {
    const s = createServer(withSecurityHeaders(getRequestListener(fetch, { hostname }), trustProxy));
    applyServerLimits(s);
    s.once('error', reject);
    s.listen(port, hostname, () => resolve(s));
  });
}

function urlOf(server: Server, hostname: string): string {
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : 0;
  const host = hostname.includes(':') ? `[${hostname}]` : hostname;
  return `http://${host === '0.0.0.0' ? '127.0.0.1' : host}:${port}`;
}
