import { Hono } from 'hono';
import type { AppEnv } from '../context.ts';
import type { UpstreamClient } from '../upstream/client.ts';

/** /healthz: the process is alive. /readyz: the upstream answers (cached briefly by the client). */
export function healthRoutes(upstream: UpstreamClient) {
  return new Hono<AppEnv>()
    .get('/healthz', (c) => c.json({ status: 'ok' }))
    .get('/readyz', async (c) =>
      (await upstream.ready())
        ? c.json({ status: 'ready' })
        : c.json({ status: 'upstream unreachable' }, 503),
    );
}
