import { Hono } from 'hono';
import type { AppEnv } from '../context.ts';
import { ApiError, errorResponse, toApiError } from '../errors.ts';
import { allowedMethods } from '../http.ts';
import { type BffMetrics, tokenMatches } from '../metrics.ts';

export interface MetricsAccess {
  metrics: BffMetrics | undefined;
  /** METRICS_TOKEN: when set, every scrape sends it as a bearer token. */
  token: string | undefined;
  /**
   * On the app's own port the metrics are never public: without a token they do not exist there (404). On
   * the separate METRICS_PORT, reachable only where the operator binds it, no token is needed unless one is set.
   */
  separatePort: boolean;
}

const notFound = () => new ApiError(404, 'not_found', 'Not found.');

/** GET /metrics in Prometheus' text format, behind the access rules above. */
export function metricsRoutes({ metrics, token, separatePort }: MetricsAccess) {
  const app = new Hono<AppEnv>();
  const hidden = !metrics || (!token && !separatePort);
  // Hidden, /metrics does not exist under any method; shown, other methods are told to use GET.
  if (!hidden) app.use('/metrics', allowedMethods(app));
  app.get('/metrics', async (c) => {
    if (!metrics || hidden) throw notFound();
    if (token) {
      const [scheme, presented] = (c.req.header('authorization') ?? '').split(' ', 2);
      if (scheme?.toLowerCase() !== 'bearer' || !tokenMatches(presented, token)) {
        c.header('WWW-Authenticate', 'Bearer realm="metrics"');
        throw new ApiError(401, 'unauthenticated', 'Send the metrics token as a bearer token.');
      }
    }
    const { contentType, body } = await metrics.render();
    return c.body(body, 200, { 'Content-Type': contentType, 'Cache-Control': 'no-store' });
  });
  app.all('/metrics', (c) => errorResponse(c, notFound()));
  return app;
}

/** The app on METRICS_PORT: /metrics and nothing else. */
export function createMetricsApp(access: Omit<MetricsAccess, 'separatePort'>) {
  const app = new Hono<AppEnv>();
  app.route('/', metricsRoutes({ ...access, separatePort: true }));
  app.notFound((c) => errorResponse(c, notFound()));
  app.onError((err, c) => errorResponse(c, toApiError(err)));
  return app;
}
