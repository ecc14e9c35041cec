import { Hono } from 'hono';
import type { AppEnv } from '../context.ts';
import type { SessionStore } from '../stores/sessions/types.ts';
import type { UpstreamClient } from '../upstream/client.ts';

/**
 * /healthz: the process is alive. /readyz: the upstream answers (cached briefly by the client) and the session
 * store does (Redis, when replicas share one; asked each time, answering within its 1 s command timeout), so a
 * load balancer takes a replica out while either is away and back when both return. The database (reviews,
 * the audit trail) too, within its 2 s ping.
 */
export function healthRoutes(
  upstream: UpstreamClient,
  sessions?: Pick<SessionStore, 'ping'>,
  database?: { ping(): Promise<boolean> },
  audit?: { failing: boolean; waiting: number },
) {
  return new Hono<AppEnv>()
    .get('/healthz', (c) => c.json({ status: 'ok' }))
    .get('/readyz', async (c) => {
      // Both asked at once; a store that is away answers at once, without waiting on a slow upstream.
      const upstreamUp = upstream.ready();
      const databaseUp = database?.ping() ?? Promise.resolve(true);
      if (sessions?.ping && !(await sessions.ping())) return c.json({ status: 'store unreachable' }, 503);
      if (!(await databaseUp)) return c.json({ status: 'database unreachable' }, 503);
      // Entries wait while the trail cannot be written: say so (they are counted in /metrics too).
      if (audit?.failing) return c.json({ status: 'audit trail not written', waiting: audit.waiting }, 503);
      return (await upstreamUp)
        ? c.json({ status: 'ready' })
        : c.json({ status: 'upstream unreachable' }, 503);
    });
}
