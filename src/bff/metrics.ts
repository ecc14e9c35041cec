import { createHash, timingSafeEqual } from 'node:crypto';
import { Counter, collectDefaultMetrics, Gauge, Histogram, Registry } from 'prom-client';
import type { Lane } from '../contract/index.ts';
import type { UpstreamOperation, UpstreamOutcome } from './upstream/client.ts';

/**
 * What the BFF counts for Prometheus (`GET /metrics`, README "Metrics"). Labels are bounded by construction:
 * route patterns (never raw paths), methods, status codes, fixed operation and outcome names, lanes. Nothing
 * names an account, a key, an address or a session.
 */
export class BffMetrics {
  readonly registry = new Registry();

  readonly httpRequests = new Counter({
    name: 'proplens_http_requests_total',
    help: 'Requests answered, by method, route pattern and status code.',
    labelNames: ['method', 'route', 'status'] as const,
    registers: [this.registry],
  });

  readonly httpDuration = new Histogram({
    name: 'proplens_http_request_duration_seconds',
    help: 'Time to answer a request (to the first byte of a streamed answer), by method and route pattern.',
    labelNames: ['method', 'route'] as const,
    buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30],
    registers: [this.registry],
  });

  readonly upstreamRequests = new Counter({
    name: 'proplens_upstream_requests_total',
    help:
      'Upstream attempts by operation and outcome: 2xx, 3xx, 404, 409, 4xx (other), 429, 5xx, timeout (whole ' +
      'answer past UPSTREAM_TIMEOUT_MS), error (no usable answer: refused, reset, cut short, too large), ' +
      'cancelled (the browser left).',
    labelNames: ['operation', 'outcome'] as const,
    registers: [this.registry],
  });

  readonly upstreamDuration = new Histogram({
    name: 'proplens_upstream_request_duration_seconds',
    help: 'Time of one upstream attempt, headers and body, by operation.',
    labelNames: ['operation'] as const,
    buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
    registers: [this.registry],
  });

  readonly rateLimitWaits = new Histogram({
    name: 'proplens_ratelimit_wait_seconds',
    help:
      'Waits for a rate-limit slot, by lane: only requests the scheduler had to hold (its _count is the ' +
      'number of waits); a request that finds a slot free is not counted.',
    labelNames: ['lane'] as const,
    buckets: [0.01, 0.05, 0.1, 0.25, 0.5, 1, 2, 5, 10, 20, 30, 60, 120],
    registers: [this.registry],
  });

  readonly cacheLookups = new Counter({
    name: 'proplens_cache_lookups_total',
    help: 'Result cache lookups by kind (resolve, search) and result (hit, miss).',
    labelNames: ['kind', 'result'] as const,
    registers: [this.registry],
  });

  readonly reviewRows = new Counter({
    name: 'proplens_review_rows_total',
    help: 'Review rows answered on the server, by outcome (matched, not_found, ambiguous, failed) and whether from cache.',
    labelNames: ['outcome', 'cached'] as const,
    registers: [this.registry],
  });

  #sessionCount: (() => Promise<number>) | null = null;
  #audit: (() => { waiting: number; written: number; failedFlushes: number }) | null = null;

  readonly auditWaiting: Gauge = new Gauge({
    name: 'proplens_audit_entries_waiting',
    help: 'Audit trail entries waiting for their commit (their lookups wait too; too many refuse new lookups).',
    registers: [this.registry],
    collect: () => {
      if (this.#audit) this.auditWaiting.set(this.#audit().waiting);
    },
  });

  readonly auditWritten: Gauge = new Gauge({
    name: 'proplens_audit_entries_written',
    help: 'Audit trail entries written by this process since it started.',
    registers: [this.registry],
    collect: () => {
      if (this.#audit) this.auditWritten.set(this.#audit().written);
    },
  });

  readonly auditFailedWrites: Gauge = new Gauge({
    name: 'proplens_audit_failed_writes',
    help: 'Commits of the audit trail that failed (their lookups were refused with 503, never answered unrecorded).',
    registers: [this.registry],
    collect: () => {
      if (this.#audit) this.auditFailedWrites.set(this.#audit().failedFlushes);
    },
  });

  /** Where the audit gauges read their values at scrape time. */
  countAuditWith(read: () => { waiting: number; written: number; failedFlushes: number }) {
    this.#audit = read;
  }

  readonly sessions: Gauge = new Gauge({
    name: 'proplens_sessions',
    help: 'Sessions held by the session store (signed in, not yet expired or removed).',
    registers: [this.registry],
    // Read at scrape time; left unset when the store cannot count.
    collect: async () => {
      if (this.#sessionCount) this.sessions.set(await this.#sessionCount());
    },
  });

  constructor(options: { processMetrics?: boolean } = {}) {
    // Process metrics (CPU, memory, event-loop delay, GC) install observers: production only.
    if (options.processMetrics) collectDefaultMetrics({ register: this.registry });
  }

  /** Where the sessions gauge reads its value at scrape time. */
  countSessionsWith(count: () => Promise<number>) {
    this.#sessionCount = count;
  }

  upstreamAttempt(operation: UpstreamOperation, outcome: UpstreamOutcome, seconds: number) {
    this.upstreamRequests.inc({ operation, outcome });
    this.upstreamDuration.observe({ operation }, seconds);
  }

  /** The scheduler's grant hook: only a request it held counts as a wait. */
  slotGranted(lane: Lane, waitedMs: number, held: boolean) {
    if (held) this.rateLimitWaits.observe({ lane }, waitedMs / 1000);
  }

  cacheLookup(kind: 'resolve' | 'search', hit: boolean) {
    this.cacheLookups.inc({ kind, result: hit ? 'hit' : 'miss' });
  }

  /** The exposition, in Prometheus' text format. */
  async render(): Promise<{ contentType: string; body: string }> {
    return { contentType: this.registry.contentType, body: await this.registry.metrics() };
  }
}

/** Compares a presented bearer token with the configured one in constant time (hashes: equal lengths). */
export function tokenMatches(presented: string | undefined, expected: string): boolean {
  if (presented === undefined) return false;
  const digest = (s: string) => createHash('sha256').update(s).digest();
  return timingSafeEqual(digest(presented), digest(expected));
}
