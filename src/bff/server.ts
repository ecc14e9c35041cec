import type { Server } from 'node:http';
import { serve } from '@hono/node-server';
import type { DemoKey } from '../contract/index.ts';
import { type CachedResult, createBffApp } from './app.ts';
import { MemoryCache } from './cache.ts';
import type { BffConfig } from './env.ts';
import { createLogger } from './logger.ts';
import { MemoryRateBudget } from './rate-budget.ts';
import { MemorySessionStore } from './sessions.ts';
import { type AuthPlacement, UpstreamClient } from './upstream/client.ts';

export interface BffOptions {
  upstreamUrl: string;
  auth: AuthPlacement;
  demoKeys: DemoKey[] | null;
  salesContact: string | null;
}

export interface RunningBff {
  url: string;
  /** Stops accepting, lets in-flight requests finish, then resolves. */
  close(): Promise<void>;
}

/** Builds the production dependency graph from configuration and serves the app. */
export async function startBff(config: BffConfig, options: BffOptions): Promise<RunningBff> {
  const logger = createLogger(config.logLevel);
  const budget = new MemoryRateBudget();
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
      salesContact: options.salesContact,
    },
    { fetch, budget },
  );
  const app = createBffApp({
    upstream,
    sessions: new MemorySessionStore({
      idleMs: config.sessionIdleMs,
      absoluteMs: config.sessionAbsoluteMs,
      maxSessions: config.sessionMaxCount,
    }),
    cache: new MemoryCache<CachedResult>(config.cacheTtlMs, config.cacheMaxEntries),
    budget,
    logger,
    demoKeys: options.demoKeys,
    salesContact: options.salesContact,
    sessionAbsoluteMs: config.sessionAbsoluteMs,
    trustProxy: config.trustProxy,
    cursorSecret: config.cursorSecret,
    distDir: config.distDir,
  });
  const server = await new Promise<Server>((resolve, reject) => {
    const s = serve({ fetch: app.fetch, hostname: config.host, port: config.port }, () =>
      resolve(s as Server),
    );
    (s as Server).once('error', reject);
  });
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : config.port;
  const host = config.host.includes(':') ? `[${config.host}]` : config.host;
  return {
    url: `http://${host === '0.0.0.0' ? '127.0.0.1' : host}:${port}`,
    close: () =>
      new Promise<void>((resolve) => {
        // Stop accepting; resolve once every connection has closed.
        server.close(() => {
          clearInterval(sweep);
          resolve();
        });
        // A kept-alive socket holds close() open until it times out. Close each one as soon as it is idle:
        // now, and as in-flight requests finish.
        server.closeIdleConnections();
        const sweep = setInterval(() => server.closeIdleConnections(), 50);
      }),
  };
}
