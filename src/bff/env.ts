import { z } from 'zod';
import type { AuthPlacement } from './upstream/client.ts';

/** The BFF's configuration, from the environment, validated once at start; every bad variable is listed. */

const int = (min: number, max: number, fallback: number) =>
  z
    .string()
    .optional()
    .transform((s, ctx) => {
      if (s === undefined || s.trim() === '') return fallback;
      const n = Number(s);
      if (!Number.isInteger(n) || n < min || n > max) {
        ctx.addIssue({ code: 'custom', message: `must be a whole number from ${min} to ${max}, got "${s}"` });
        return z.NEVER;
      }
      return n;
    });

const path = (fallback: string) =>
  z
    .string()
    .optional()
    .transform((s, ctx) => {
      const p = s?.trim() || fallback;
      if (!/^\/[A-Za-z0-9/_.-]*$/.test(p) || p.includes('..') || p.includes('//')) {
        ctx.addIssue({ code: 'custom', message: `must be a plain path such as ${fallback}, got "${s}"` });
        return z.NEVER;
      }
      return p;
    });

export function parseAuthPlacement(text: string | undefined): AuthPlacement {
  const s = (text ?? '').trim();
  if (s === '' || s === 'bearer') return { kind: 'bearer' };
  const m = /^(header|query):([A-Za-z0-9_-]{1,64})$/.exec(s);
  if (!m) throw new Error(`must be "bearer", "header:<Name>" or "query:<name>", got "${s}"`);
  return { kind: m[1] as 'header' | 'query', name: m[2] as string };
}

/**
 * What is wrong with an upstream base URL, or null. Every call appends a fixed path to it, so a query or a
 * fragment would be cut off or land in the wrong place; the key goes where PROPERTY_API_AUTH says, never in
 * the URL.
 */
function upstreamUrlProblem(text: string): string | null {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return 'must be an http(s) URL, such as https://api.example.com/v1';
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return 'must start with http:// or https://';
  if (url.username || url.password)
    return 'must not hold credentials (user:password@): each user signs in with their own API key';
  if (text.includes('?') || text.includes('#'))
    return 'must not have a query or fragment: give the base URL only (PROPERTY_API_AUTH places the key)';
  return null;
}

/**
 * A URL of a service PropLens connects to, of one of `protocols`. Never echoed in an error: it may carry the
 * service's password.
 */
const serviceUrl = (protocols: string[], message: string, keep: (url: URL, text: string) => string) =>
  z
    .string()
    .optional()
    .transform((s, ctx) => {
      if (s === undefined || s.trim() === '') return undefined;
      try {
        const url = new URL(s.trim());
        if (!protocols.includes(url.protocol)) throw new Error('protocol');
        return keep(url, s.trim());
      } catch {
        ctx.addIssue({ code: 'custom', message });
        return z.NEVER;
      }
    });

/** Host names, comma-separated: `proplens.example.com`, or `*.example.com` for its subdomains. */
const hostNames = z
  .string()
  .optional()
  .transform((s, ctx) => {
    const names = (s ?? '')
      .split(',')
      .map((n) => n.trim().toLowerCase().replace(/\.$/, ''))
      .filter((n) => n !== '');
    const bad = names.filter(
      (n) => !/^(\*\.)?[a-z0-9]([a-z0-9-]*[a-z0-9])?(\.[a-z0-9]([a-z0-9-]*[a-z0-9])?)*$/.test(n),
    );
    if (bad.length > 0) {
      ctx.addIssue({
        code: 'custom',
        message: `must be host names without scheme or port, such as proplens.example.com or *.example.com; not ${bad.map((b) => `"${b}"`).join(', ')}`,
      });
      return z.NEVER;
    }
    return names;
  });

const BffEnv = z.object({
  HOST: z.string().default('127.0.0.1'),
  ALLOWED_HOSTS: hostNames,
  PORT: int(0, 65535, 8080),
  PROPERTY_API_URL: z
    .string()
    .optional()
    .transform((s, ctx) => {
      if (s === undefined || s.trim() === '') return undefined;
      // Never echoed: a URL with credentials or a query may carry a key.
      const problem = upstreamUrlProblem(s);
      if (problem === null) return new URL(s).toString();
      ctx.addIssue({ code: 'custom', message: problem });
      return z.NEVER;
    }),
  PROPERTY_API_AUTH: z
    .string()
    .optional()
    .transform((s, ctx) => {
      try {
        return parseAuthPlacement(s);
      } catch (err) {
        ctx.addIssue({ code: 'custom', message: (err as Error).message });
        return z.NEVER;
      }
    }),
  PROPERTY_ID_FIELD: z
    .string()
    .regex(/^[A-Za-z_][A-Za-z0-9_]{0,63}$/, 'must be a field name such as property_id')
    .optional()
    .or(z.literal('').transform(() => undefined)),
  PROPERTY_RESOLVE_PATH: path('/properties/resolve'),
  PROPERTY_SEARCH_PATH: path('/properties/search'),
  UPSTREAM_TIMEOUT_MS: int(100, 120_000, 8000),
  UPSTREAM_RETRIES: int(0, 5, 2),
  MAX_RATE_LIMIT_WAIT_S: int(0, 300, 20),
  CACHE_TTL_S: int(0, 86_400, 300),
  CACHE_MAX_ENTRIES: int(0, 1_000_000, 10_000),
  CACHE_MAX_MB: int(0, 16_384, 64),
  CACHE_ACCOUNT_SHARE_PERCENT: int(1, 100, 25),
  HEAP_GROWTH_PERCENT: int(0, 300, 50),
  REVIEW_MAX_WAIT_S: int(1, 3600, 120),
  SESSION_IDLE_MINUTES: int(1, 24 * 60, 30),
  SESSION_MAX_HOURS: int(1, 24 * 30, 12),
  SESSION_MAX_COUNT: int(1, 10_000_000, 10_000),
  SIGN_IN_RATE_PER_MINUTE: int(0, 1_000_000, 30),
  SALES_CONTACT: z.string().max(200).optional(),
  TRUST_PROXY: z
    .enum(['true', 'false', '1', '0', ''])
    .optional()
    .transform((s) => s === 'true' || s === '1'),
  CURSOR_SECRET: z
    .string()
    .min(32, 'must be at least 32 characters')
    .optional()
    .or(z.literal('').transform(() => undefined)),
  REDIS_URL: serviceUrl(['redis:', 'rediss:'], 'must be a redis:// or rediss:// (TLS) URL', (url) =>
    url.toString(),
  ),
  DATABASE_URL: serviceUrl(['postgres:', 'postgresql:'], 'must be a postgres:// URL', (_url, text) => text),
  DATABASE_DIR: z.string().default('data/db'),
  REVIEW_CONCURRENCY: int(1, 256, 32),
  REVIEW_LEASE_S: int(2, 3600, 30),
  REVIEW_MAX_PENDING_ROWS: int(1, 100_000_000, 500_000),
  REVIEW_MAX_SOURCE_BYTES: int(1, 2 ** 40, 1024 ** 3),
  EVIDENCE_ROWS_AT_ONCE: int(1, 100_000_000, 200_000),
  AUDIT_RETENTION_DAYS: int(0, 36_500, 365),
  // The Ed25519 key audit checkpoints and evidence are signed with (PEM or JWK; src/bff/evidence/signing-key.ts).
  EVIDENCE_SIGNING_KEY: z.string().optional(),
  // Retired public evidence keys still trusted (a JWKS, or a file holding one; signing-key.ts loadRetiredKeys).
  EVIDENCE_RETIRED_KEYS: z.string().optional(),
  // Off only to measure what the trail costs (npm run bench): lookups then leave no evidence.
  AUDIT_TRAIL: z.enum(['on', 'off']).default('on'),
  // Seals kept API keys (key custody, custody/secret.ts); at least 32 characters, refused at start otherwise.
  KEY_ENCRYPTION_SECRET: z
    .string()
    .min(32, 'must be at least 32 characters (it seals the API keys kept for work while signed out)')
    .optional()
    .or(z.literal('').transform(() => undefined)),
  SESSION_SECRET: z
    .string()
    .min(32, 'must be at least 32 characters')
    .optional()
    .or(z.literal('').transform(() => undefined)),
  // -1: no separate metrics port.
  METRICS_PORT: int(0, 65535, -1),
  METRICS_HOST: z.string().default('127.0.0.1'),
  METRICS_TOKEN: z
    .string()
    .min(32, 'must be at least 32 characters')
    .optional()
    .or(z.literal('').transform(() => undefined)),
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  DIST_DIR: z.string().default('dist'),
  /** The shortest monitoring interval offered (1: adds "Every minute", for demos and tests). */
  MONITOR_MIN_INTERVAL_MINUTES: int(1, 10_080, 60),
  WEBHOOK_ALLOW_PRIVATE_NETWORKS: z
    .enum(['true', 'false', '1', '0', ''])
    .optional()
    .transform((s) => s === 'true' || s === '1'),
});

export type BffConfig = ReturnType<typeof readBffConfig>;

/** Where reviews and the audit trail are kept, how much of them, and the keys that seal and sign them. */
function storageConfig(e: z.infer<typeof BffEnv>) {
  return {
    /** Undefined: the embedded database under databaseDir (reviews, the audit trail). */
    databaseUrl: e.DATABASE_URL,
    databaseDir: e.DATABASE_DIR,
    /** Review rows this replica works at once; the scheduler paces them to the rate limit. */
    reviewConcurrency: e.REVIEW_CONCURRENCY,
    /**
     * How long a replica holds the review rows it leased without renewing (it renews every third of it): the
     * rows of a replica that died go to the others this long after.
     */
    reviewLeaseMs: e.REVIEW_LEASE_S * 1000,
    /** Rows an account may have waiting to be looked up; a review past it is refused (409 quota_exceeded). */
    reviewMaxPendingRows: e.REVIEW_MAX_PENDING_ROWS,
    /** Bytes of the files reviews were made from one account keeps (evidence packets); a file past it: 409. */
    reviewMaxSourceBytes: e.REVIEW_MAX_SOURCE_BYTES,
    /** Rows (times runs) of the evidence packets one replica builds at once, every account's together. */
    evidenceRowsAtOnce: e.EVIDENCE_ROWS_AT_ONCE,
    /** Audit entries older than this many days are removed in the background; 0 keeps them forever. */
    auditRetentionDays: e.AUDIT_RETENTION_DAYS,
    /** Signs audit checkpoints and evidence; undefined: generated beside the embedded database (none on PostgreSQL). */
    evidenceSigningKey: e.EVIDENCE_SIGNING_KEY?.trim() || undefined,
    /** Retired evidence keys served and trusted; undefined: the retired-keys file beside the generated key. */
    evidenceRetiredKeys: e.EVIDENCE_RETIRED_KEYS?.trim() || undefined,
    /** False: no audit trail at all (no entries, no Activity): for measuring its cost, never for production. */
    auditTrail: e.AUDIT_TRAIL === 'on',
  };
}

export function readBffConfig(env: Record<string, string | undefined>) {
  const parsed = BffEnv.safeParse(env);
  const lines = parsed.success ? [] : parsed.error.issues.map((i) => `  ${i.path.join('.')}: ${i.message}`);
  // Replicas on Redis share sessions whose keys are encrypted with this secret, so it cannot be a default.
  if (env.REDIS_URL?.trim() && !env.SESSION_SECRET?.trim()) {
    lines.push(
      '  SESSION_SECRET: required when REDIS_URL is set (at least 32 characters, the same on every replica)',
    );
  }
  if (!parsed.success || lines.length > 0) throw new Error(`Invalid configuration:\n${lines.join('\n')}`);
  const e = parsed.data;
  return {
    host: e.HOST,
    port: e.PORT,
    /**
     * DNS names the app answers for besides localhost and IP literals (a request naming another is refused 421:
     * DNS rebinding); behind a proxy that passes the public Host, that name.
     */
    allowedHosts: e.ALLOWED_HOSTS,
    /** Undefined: start the embedded reference service and use it. */
    upstreamUrl: e.PROPERTY_API_URL,
    auth: e.PROPERTY_API_AUTH,
    /** Whether PROPERTY_API_AUTH was given, or bearer is only the default. */
    authExplicit: Boolean(env.PROPERTY_API_AUTH?.trim()),
    idField: e.PROPERTY_ID_FIELD,
    resolvePath: e.PROPERTY_RESOLVE_PATH,
    searchPath: e.PROPERTY_SEARCH_PATH,
    timeoutMs: e.UPSTREAM_TIMEOUT_MS,
    retries: e.UPSTREAM_RETRIES,
    maxRateLimitWaitMs: e.MAX_RATE_LIMIT_WAIT_S * 1000,
    cacheTtlMs: e.CACHE_TTL_S * 1000,
    cacheMaxEntries: e.CACHE_MAX_ENTRIES,
    cacheMaxBytes: e.CACHE_MAX_MB * 1024 * 1024,
    cacheAccountShare: e.CACHE_ACCOUNT_SHARE_PERCENT / 100,
    /** How far the heap may outgrow its live size between full collections, in %; 0: V8's own (ADR 015). */
    heapGrowthPercent: e.HEAP_GROWTH_PERCENT,
    reviewMaxWaitMs: e.REVIEW_MAX_WAIT_S * 1000,
    sessionIdleMs: e.SESSION_IDLE_MINUTES * 60_000,
    sessionAbsoluteMs: e.SESSION_MAX_HOURS * 3_600_000,
    sessionMaxCount: e.SESSION_MAX_COUNT,
    /** Sign-ins one client address may make in a minute (per replica); 0: no limit. */
    signInsPerMinute: e.SIGN_IN_RATE_PER_MINUTE,
    salesContact: e.SALES_CONTACT?.trim() || null,
    trustProxy: e.TRUST_PROXY,
    cursorSecret: e.CURSOR_SECRET,
    /** Undefined: sessions, cache and rate budget in this process's memory. */
    redisUrl: e.REDIS_URL,
    /** Encrypts API keys held in Redis (and derives key names and, unless CURSOR_SECRET is set, cursors). */
    sessionSecret: e.SESSION_SECRET,
    /** Seals API keys kept for work while signed out; absent: generated beside the embedded database, or none. */
    keyEncryptionSecret: e.KEY_ENCRYPTION_SECRET,
    ...storageConfig(e),
    /** Undefined: no separate metrics listener (README "Metrics"). */
    metricsPort: e.METRICS_PORT < 0 ? undefined : e.METRICS_PORT,
    metricsHost: e.METRICS_HOST,
    /** Bearer token for /metrics; without it (and without metricsPort) /metrics is 404. */
    metricsToken: e.METRICS_TOKEN,
    logLevel: e.LOG_LEVEL,
    distDir: e.DIST_DIR,
    /** Webhooks may go to loopback and private addresses (on-premises receivers, tests); off: public only. */
    webhookAllowPrivateNetworks: e.WEBHOOK_ALLOW_PRIVATE_NETWORKS,
    /** MONITOR_MIN_INTERVAL_MINUTES: the shortest interval a monitor is offered. */
    monitorMinIntervalMinutes: e.MONITOR_MIN_INTERVAL_MINUTES,
  };
}
