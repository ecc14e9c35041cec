import type { Hono } from 'hono';
import type { Logger } from 'pino';
import type { DemoKey } from '../contract/index.ts';
import { createBffApp } from './app.ts';
import { type AuditTrail, createAuditTrail } from './audit/audit-trail.ts';
import type { CancelSignal } from './cancel.ts';
import type { Clock } from './clock.ts';
import type { AppEnv } from './context.ts';
import { createKeyCustody, type KeyCustody, withCustody } from './custody/index.ts';
import { serverSecret } from './custody/secret.ts';
import type { Database } from './db/database.ts';
import type { BffConfig } from './env.ts';
import { createEvidence, type Evidence } from './evidence/evidence.ts';
import { evidencePacketsOn } from './evidence/packet.ts';
import { Lookups } from './lookups.ts';
import type { BffMetrics } from './metrics.ts';
import { createMonitoring, type Monitoring } from './monitoring/index.ts';
import { createDurableReviews, type DurableReviews } from './reviews/durable-reviews.ts';
import type { Stores } from './stores/create-stores.ts';
import type { SessionStore } from './stores/sessions/types.ts';
import { type AuthPlacement, UpstreamClient } from './upstream/client.ts';
import { UpstreamScheduler } from './upstream/scheduler.ts';
import { createPoolTransport, type PoolTransport } from './upstream/transport.ts';
import { createWebhooks, secretKeepingOf, type Webhooks } from './webhooks/index.ts';

export interface BffGraphOptions {
  config: BffConfig;
  /** The Property Intelligence Service: its base URL and where the key goes. */
  upstream: { url: string; auth: AuthPlacement };
  /** Public demo keys, only when the upstream is the embedded reference service. */
  demoKeys: DemoKey[] | null;
  salesContact: string | null;
  logger: Logger;
  /** Memory or Redis (stores/create-stores.ts). */
  stores: Stores;
  /** Reviews and the audit trail live here; without it (API-only tests) there are neither. */
  database?: Database;
  /** Default: an undici pool to `upstream.url`. Tests pass the same transport over an in-process dispatcher. */
  transport?: PoolTransport;
  metrics?: BffMetrics;
  /** The upstream's time (src/bff/clock.ts): the system's unless a test moves the embedded reference's clock. */
  clock?: Clock;
  /** Timing knobs tests turn; production leaves them alone. */
  tuning?: {
    sleep?: (ms: number, signal?: CancelSignal) => Promise<void>;
    random?: () => number;
    reviewPollMs?: number;
    eventPollMs?: number;
    reviewLeaseMs?: number;
  };
}

export interface BffGraph {
  app: Hono<AppEnv>;
  upstream: UpstreamClient;
  scheduler: UpstreamScheduler;
  lookups: Lookups;
  reviews?: DurableReviews;
  auditTrail?: AuditTrail;
  /** Key custody, on the database ("Work while I'm signed out"). */
  custody?: KeyCustody;
  /** Webhook endpoints, the outbox and this replica's dispatcher (src/bff/webhooks/). */
  webhooks?: Webhooks;
  /** Signed checkpoints of the audit chain and the evidence keys (src/bff/evidence/). */
  evidence?: Evidence;
  /** Monitored reviews: their store, alerts and this replica's scheduler (src/bff/monitoring/). */
  monitoring?: Monitoring;
  /** Starts the background work: the review worker and the audit trail's writer and retention. */
  start(): void;
  /** Stops the background work: the worker first, so its last answers reach the trail's last write. */
  stop(): Promise<void>;
  /** Closes the stores and the upstream sockets, once nothing is using them (after stop and in-flight requests). */
  close(): Promise<void>;
}

/**
 * The BFF's one dependency graph, from configuration: upstream client and scheduler on the stores' rate budget,
 * lookups (cache, in-flight sharing, audit), durable reviews and the audit trail on the database, and the app.
 * server.ts serves it, `npm run cluster` runs it in each replica (through main.ts), and the test harness builds
 * it too, so tests run the wiring that ships (docs/decisions/001-composition-root.md).
 */
export function buildBffGraph(options: BffGraphOptions): BffGraph {
  const { config, logger, stores, metrics, database } = options;
  const clock = options.clock;
  const scheduler = new UpstreamScheduler(stores.budget, {
    ...(metrics ? { onGrant: metrics.slotGranted.bind(metrics) } : {}),
    ...(clock ? { now: clock.now } : {}),
    ...(clock?.onAdvance ? { onAdvance: clock.onAdvance.bind(clock) } : {}),
  });
  // Kept-alive sockets to the upstream, no fetch machinery per request (docs/decisions/005-lean-hot-path.md).
  const transport = options.transport ?? createPoolTransport(options.upstream.url);
  const upstream = upstreamClient(options, scheduler, transport);
  const auditTrail = database && options.config.auditTrail ? auditTrailOn(database, options) : undefined;
  if (metrics && auditTrail) metrics.countAuditWith(() => auditTrail.writer);
  const evidence =
    auditTrail && database
      ? createEvidence({
          database,
          signingKey: config.evidenceSigningKey,
          retiredKeys: config.evidenceRetiredKeys,
          logger,
        })
      : undefined;
  // Key custody: accounts with a kept key count as live and lend it when nobody is signed in (custody/).
  const custody = database ? keyCustodyOn(database, options, auditTrail) : undefined;
  const sessions = custody ? withCustody(stores.sessions, custody) : stores.sessions;
  const lookups = new Lookups({
    upstream,
    cache: stores.cache,
    sessions,
    ...(metrics ? { metrics } : {}),
    ...(auditTrail ? { audit: auditTrail.audit } : {}),
  });
  const reviews = database
    ? durableReviewsOn(database, options, { lookups, sessions, scheduler })
    : undefined;
  const webhooks = database ? webhooksOn(database, options) : undefined;
  const monitoring = reviews
    ? monitoringOn(reviews, options, webhooks, Boolean(auditTrail), sessions)
    : undefined;
  const app = bffApp(options, {
    upstream,
    lookups,
    sessions,
    reviews,
    auditTrail,
    evidence,
    webhooks,
    custody,
    monitoring,
  });
  return {
    app,
    upstream,
    scheduler,
    lookups,
    ...(reviews ? { reviews } : {}),
    ...(auditTrail ? { auditTrail } : {}),
    ...(evidence ? { evidence } : {}),
    ...(webhooks ? { webhooks } : {}),
    ...(custody ? { custody } : {}),
    ...(monitoring ? { monitoring } : {}),
    start() {
      reviews?.worker.start();
      webhooks?.dispatcher.start();
      auditTrail?.start();
      evidence?.start();
      monitoring?.scheduler.start();
    },
    async stop() {
      await monitoring?.scheduler.stop();
      await reviews?.worker.stop();
      await webhooks?.dispatcher.stop();
      evidence?.stop();
      await auditTrail?.stop();
    },
    async close() {
      await Promise.all([stores.close(), transport.close()]);
    },
  };
}

/** Reviews kept in the database, worked by this replica's worker on the review lane of the scheduler. */
function durableReviewsOn(
  database: Database,
  options: BffGraphOptions,
  parts: { lookups: Lookups; sessions: SessionStore; scheduler: UpstreamScheduler },
): DurableReviews {
  const { config, logger, metrics, clock, tuning = {} } = options;
  const { lookups, sessions, scheduler } = parts;
  return createDurableReviews({
    database,
    lookups,
    sessions,
    logger,
    concurrency: config.reviewConcurrency,
    slotWaiters: (keyHash) => scheduler.waiting(keyHash).review,
    ...(metrics ? { metrics } : {}),
    ...(clock ? { now: clock.now } : {}),
    ...(clock?.onAdvance ? { onClockAdvance: clock.onAdvance.bind(clock) } : {}),
    ...(tuning.reviewPollMs ? { pollMs: tuning.reviewPollMs } : {}),
    ...(tuning.reviewLeaseMs ? { leaseMs: tuning.reviewLeaseMs } : {}),
  });
}

/** The app over the graph's parts: the routes of each part there is, and the configuration they read. */
function bffApp(
  options: BffGraphOptions,
  parts: Pick<
    BffGraph,
    'upstream' | 'lookups' | 'reviews' | 'auditTrail' | 'evidence' | 'webhooks' | 'custody' | 'monitoring'
  > & {
    sessions: SessionStore;
  },
) {
  const { config, logger, stores, metrics, database, clock, tuning = {} } = options;
  const { upstream, lookups, reviews, auditTrail, evidence, webhooks, custody, monitoring, sessions } = parts;
  return createBffApp({
    upstream,
    lookups,
    ...(reviews ? { reviews } : {}),
    ...(auditTrail ? { auditTrail } : {}),
    ...(evidence ? { evidence } : {}),
    ...(evidence && database
      ? {
          packets: evidencePacketsOn(database, evidence, {
            serviceUrl: options.upstream.url,
            ...(clock ? { now: clock.now } : {}),
          }),
        }
      : {}),
    ...(webhooks ? { webhooks } : {}),
    ...(custody ? { custody } : {}),
    ...(monitoring ? { monitoring } : {}),
    sessions,
    cache: stores.cache,
    logger,
    demoKeys: options.demoKeys,
    salesContact: options.salesContact,
    sessionAbsoluteMs: config.sessionAbsoluteMs,
    trustProxy: config.trustProxy,
    signInsPerMinute: config.signInsPerMinute,
    reviewMaxPendingRows: config.reviewMaxPendingRows,
    reviewMaxSourceBytes: config.reviewMaxSourceBytes,
    packetRowsAtOnce: config.evidenceRowsAtOnce,
    allowedHosts: config.allowedHosts,
    cursorSecret: stores.cursorSecret,
    // Empty: API only (tests), no SPA.
    ...(config.distDir ? { distDir: config.distDir } : {}),
    ...(metrics ? { metrics } : {}),
    metricsToken: config.metricsToken,
    ...(tuning.eventPollMs ? { eventPollMs: tuning.eventPollMs } : {}),
  });
}

/** The upstream client: configuration from the environment, budget and scheduler from the stores. */
function upstreamClient(options: BffGraphOptions, scheduler: UpstreamScheduler, transport: PoolTransport) {
  const { config, logger, stores, metrics, tuning = {} } = options;
  return new UpstreamClient(
    {
      baseUrl: options.upstream.url,
      auth: options.upstream.auth,
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
      transport: transport.send,
      budget: stores.budget,
      scheduler,
      logger,
      ...(options.clock ? { now: options.clock.now } : {}),
      ...(tuning.sleep ? { sleep: tuning.sleep } : {}),
      ...(tuning.random ? { random: tuning.random } : {}),
      ...(metrics ? { onAttempt: metrics.upstreamAttempt.bind(metrics) } : {}),
    },
  );
}

/** Key custody on the database, with custody_on/off on the trail (when there is one). */
function keyCustodyOn(database: Database, options: BffGraphOptions, auditTrail?: AuditTrail): KeyCustody {
  return createKeyCustody({
    database,
    secret: options.config.keyEncryptionSecret,
    sharedSessions: Boolean(options.config.redisUrl),
    logger: options.logger,
    ...(auditTrail ? { audit: auditTrail.writer } : {}),
  });
}

/** The audit trail of every lookup, each entry committed (a group at a time) before its answer leaves. */
function auditTrailOn(database: Database, { config, logger }: BffGraphOptions): AuditTrail {
  return createAuditTrail({
    database,
    logger,
    retentionDays: config.auditRetentionDays,
  });
}

/** Webhooks on the database, timed by the BFF's clock; private receivers only with WEBHOOK_ALLOW_PRIVATE_NETWORKS. */
function webhooksOn(database: Database, { config, logger, clock }: BffGraphOptions): Webhooks {
  return createWebhooks({
    database,
    logger,
    allowPrivate: config.webhookAllowPrivateNetworks,
    secrets: secretKeepingOf(
      serverSecret(database, {
        configured: config.keyEncryptionSecret,
        sharedSessions: Boolean(config.redisUrl),
      }),
    ),
    ...(clock ? { now: clock.now } : {}),
  });
}

/** Monitored reviews: scheduled Check agains on the BFF's clock, their alerts, and webhooks for them. */
function monitoringOn(
  reviews: DurableReviews,
  options: BffGraphOptions,
  webhooks: Webhooks | undefined,
  audited: boolean,
  sessions: SessionStore,
): Monitoring {
  const { config, logger, clock } = options;
  return createMonitoring({
    reviews,
    // On the public demo a visitor's monitor runs on that visitor's key only.
    ...(options.demoKeys ? { visitorSessions: sessions } : {}),
    ...(webhooks ? { webhooks } : {}),
    logger,
    minIntervalMinutes: config.monitorMinIntervalMinutes,
    audited,
    maxPendingRows: config.reviewMaxPendingRows,
    ...(clock ? { now: clock.now } : {}),
    ...(clock?.onAdvance ? { onClockAdvance: clock.onAdvance.bind(clock) } : {}),
  });
}
