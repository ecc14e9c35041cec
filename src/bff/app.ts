import { randomBytes } from 'node:crypto';
import { Hono } from 'hono';
import type { Logger } from 'pino';
import type { DemoKey } from '../contract/index.ts';
import type { AuditTrail } from './audit/audit-trail.ts';
import { ClientGone } from './cancel.ts';
import type { AppEnv } from './context.ts';
import type { KeyCustody } from './custody/key-custody.ts';
import { ApiError, errorResponse, toApiError } from './errors.ts';
import type { Evidence } from './evidence/evidence.ts';
import { evidenceKeyRoutes } from './evidence/keys-route.ts';
import type { EvidencePackets } from './evidence/packet.ts';
import { unansweredPath } from './http.ts';
import type { CachedResult, Lookups } from './lookups.ts';
import type { BffMetrics } from './metrics.ts';
import { apiRequest } from './middleware/api-request.ts';
import { requestContext } from './middleware/request-context.ts';
import type { Monitoring } from './monitoring/index.ts';
import { refusalsAtSignIn } from './refused-keys.ts';
import type { DurableReviews } from './reviews/durable-reviews.ts';
import { auditTrailRoutes } from './routes/audit-trail.ts';
import { custodyRoutes } from './routes/custody.ts';
import { durableReviewRoutes } from './routes/durable-reviews.ts';
import { healthRoutes } from './routes/health.ts';
import { metricsRoutes } from './routes/metrics.ts';
import { monitoringRoutes } from './routes/monitoring.ts';
import { propertyRoutes } from './routes/properties.ts';
import { reviewControlRoutes } from './routes/review-controls.ts';
import { reviewDecisionRoutes } from './routes/review-decisions.ts';
import { reviewEvidenceRoutes } from './routes/review-evidence.ts';
import { reviewExportRoutes } from './routes/review-export.ts';
import { keyNamesFor, sessionRoutes } from './routes/session.ts';
import { spaRoutes } from './routes/spa.ts';
import { webhookRoutes } from './routes/webhooks.ts';
import type { ResultCache } from './stores/cache/types.ts';
import { SqlKeyNames } from './stores/key-names.ts';
import type { SessionStore } from './stores/sessions/types.ts';
import type { UpstreamClient } from './upstream/client.ts';
import type { Webhooks } from './webhooks/index.ts';

export type { CachedResult } from './lookups.ts';

export interface BffDeps {
  /** Only /readyz asks it (is the service there?): everything else reaches the service through `lookups`. */
  upstream: UpstreamClient;
  sessions: SessionStore;
  cache: ResultCache<CachedResult>;
  logger: Logger;
  /** Public demo keys, only when the upstream is the embedded reference service. */
  demoKeys: DemoKey[] | null;
  salesContact: string | null;
  sessionAbsoluteMs: number;
  trustProxy: boolean;
  /** Sign-ins one client address may make in a minute (0: no limit). */
  signInsPerMinute?: number;
  /** Rows an account may have waiting to be looked up (REVIEW_MAX_PENDING_ROWS). */
  reviewMaxPendingRows?: number;
  /** Bytes of review source files an account keeps (REVIEW_MAX_SOURCE_BYTES); ALLOWED_HOSTS, a packet's host. */
  reviewMaxSourceBytes?: number;
  /** EVIDENCE_ROWS_AT_ONCE: rows (times runs) of the evidence packets built at once on this replica, all accounts'. */
  packetRowsAtOnce?: number;
  allowedHosts?: readonly string[];
  /** Signs our search cursors; replicas must share it. */
  cursorSecret?: string;
  /** The built SPA; omitted in API-only tests. */
  distDir?: string;
  /** Prometheus metrics; omitted, nothing is counted and /metrics is 404. */
  metrics?: BffMetrics;
  /** METRICS_TOKEN: without it, /metrics on this port is 404 (README "Metrics"). */
  metricsToken?: string;
  /** Shared with the review worker, so its lookups and the routes' share one cache and one in-flight table. */
  lookups: Lookups;
  /** Reviews kept on the server (the database and the worker); absent in tests that do not need them. */
  reviews?: DurableReviews;
  /** The audit trail (recorder, writer, store); absent in tests that do not need it. */
  auditTrail?: AuditTrail;
  /** Audit checkpoints and the evidence keys (JWKS); absent without the trail. */
  evidence?: Evidence;
  /** Signed evidence packets of reviews (evidence/packet.ts); absent where nothing can sign. */
  packets?: EvidencePackets;
  /** Webhook endpoints and their outbox; absent without a database. */
  webhooks?: Webhooks;
  /** How often a review's event stream looks for news nobody announced (other replicas'); default 1 s. */
  eventPollMs?: number;
  /** Key custody ("Work while I'm signed out"); absent without a database. */
  custody?: KeyCustody;
  /** Monitored reviews and their alerts; absent without a database. */
  monitoring?: Monitoring;
}

/**
 * Composes the BFF's HTTP surface: middleware, then one route module per resource, then the SPA, and one error
 * shape. Its dependencies come from graph.ts.
 */
export function createBffApp(deps: BffDeps) {
  const cursorSecret = deps.cursorSecret ?? randomBytes(32).toString('hex');
  const { lookups } = deps;
  const app = new Hono<AppEnv>();

  if (deps.metrics) {
    const { sessions } = deps;
    if (sessions.count) deps.metrics.countSessionsWith(() => sessions.count?.() ?? Promise.resolve(0));
  }
  app.use('*', requestContext({ logger: deps.logger, trustProxy: deps.trustProxy, metrics: deps.metrics }));
  app.route('/', healthRoutes(deps.upstream, deps.sessions, deps.reviews?.database, deps.auditTrail?.writer));
  app.route('/', metricsRoutes({ metrics: deps.metrics, token: deps.metricsToken, separatePort: false }));
  if (deps.evidence) app.route('/', evidenceKeyRoutes(deps.evidence.checkpoints));

  app.route('/api', apiRoutes(deps, cursorSecret));

  if (deps.distDir) app.route('/', spaRoutes(deps.distDir));

  app.onError(async (err, c) => {
    // The browser went away (mid-request or mid-body): nobody reads an answer, and it is not our fault.
    if (err instanceof ClientGone || c.req.raw.signal.aborted) {
      deps.logger.debug({ requestId: c.get('requestId') }, 'client went away');
      return c.body(null, 499 as 400);
    }
    const apiError = toApiError(err);
    if (apiError.status >= 500 && apiError.code === 'internal') {
      deps.logger.error(
        {
          requestId: c.get('requestId'),
          err: { name: (err as Error).name, message: (err as Error).message },
        },
        'unexpected error',
      );
    }
    // A refused lookup (not found, ambiguous, ...) spent a request too: say what is left, as a success does.
    const session = c.get('session');
    const rateLimit = session ? await lookups.rateLimit(session).catch(() => null) : null;
    return errorResponse(c, apiError, rateLimit);
  });
  app.notFound((c) => errorResponse(c, new ApiError(404, 'not_found', 'Not found.')));
  return app;
}

/** /api: the session, Activity, properties and reviews, each route module with what it needs. */
function apiRoutes(deps: BffDeps, cursorSecret: string) {
  const audit = deps.auditTrail?.audit;
  const { lookups } = deps;
  const api = new Hono<AppEnv>();
  api.use('*', apiRequest);
  const keyNames = deps.reviews ? new SqlKeyNames(deps.reviews.database.db) : undefined;
  api.route(
    '/',
    sessionRoutes({
      ...deps,
      ...(audit ? { audit } : {}),
      ...(keyNames ? { keyNames } : {}),
      ...(deps.custody ? { lookups: refusalsAtSignIn(lookups, deps.custody) } : {}),
    }),
  );
  if (deps.custody) api.route('/custody', custodyRoutes({ ...deps, custody: deps.custody }));
  if (deps.auditTrail) {
    const trail = deps.auditTrail;
    api.route(
      '/activity',
      auditTrailRoutes({
        store: trail.store,
        sessions: deps.sessions,
        flush: () => trail.writer.flush(),
        keyNames: (session) => keyNamesFor(keyNames, deps.demoKeys, session),
      }),
    );
  }
  api.route('/properties', propertyRoutes({ ...deps, lookups, cursorSecret }));
  if (deps.reviews) api.route('/reviews', reviewControlRoutes({ ...deps, reviews: deps.reviews, audit }));
  if (deps.reviews) api.route('/reviews', reviewDecisionRoutes({ ...deps, reviews: deps.reviews, audit }));
  if (deps.reviews)
    api.route(
      '/reviews',
      durableReviewRoutes({
        reviews: deps.reviews,
        sessions: deps.sessions,
        lookups,
        ...(deps.eventPollMs ? { eventPollMs: deps.eventPollMs } : {}),
        ...(deps.reviewMaxPendingRows ? { maxPendingRows: deps.reviewMaxPendingRows } : {}),
        ...(deps.trustProxy ? { trustProxy: deps.trustProxy } : {}),
      }),
    );
  if (deps.reviews)
    api.route(
      '/reviews',
      reviewExportRoutes({
        ...deps,
        reviews: deps.reviews,
        keyNames: (session) => keyNamesFor(keyNames, deps.demoKeys, session),
      }),
    );
  if (deps.reviews && deps.packets) {
    const trail = deps.auditTrail;
    api.route(
      '/reviews',
      reviewEvidenceRoutes({
        ...deps,
        reviews: deps.reviews,
        packets: deps.packets,
        keyNames: (session) => keyNamesFor(keyNames, deps.demoKeys, session),
        ...(trail ? { flushAudit: () => trail.writer.flush() } : {}),
      }),
    );
  }
  if (deps.webhooks) api.route('/webhooks', webhookRoutes({ ...deps, webhooks: deps.webhooks }));
  if (deps.monitoring) api.route('/', monitoringRoutes({ ...deps, monitoring: deps.monitoring, audit }));
  // Answered, not thrown: a known path under another method is a 405.
  api.all('*', unansweredPath(api, 'No such API endpoint.'));
  return api;
}
