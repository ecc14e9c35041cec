import { resolve } from 'node:path';
import { serveStatic } from '@hono/node-server/serve-static';
import { Hono } from 'hono';
import type { AppEnv } from '../context.ts';

/**
 * The built SPA. Hashed assets are cached for a year, but only real files: a missing /assets/ file (an old
 * hash after a deploy) is a 404, never index.html under a JavaScript URL. Precompressed .br / .gz siblings are
 * served when the browser accepts them. Source maps are never served. Client routes get index.html, revalidated.
 */
export function spaRoutes(distDir: string) {
  const root = resolve(distDir);
  const app = new Hono<AppEnv>();
  app.use('*', async (c, next) => {
    await next();
    // Set here, not in serveStatic's onFound, which runs after the response is built and is lost.
    if (c.res.status === 200) {
      c.header(
        'Cache-Control',
        c.req.path.startsWith('/assets/') ? 'public, max-age=31536000, immutable' : 'no-cache',
      );
    }
  });
  const notFound = (c: { text: (t: string, s: 404) => Response }) => c.text('Not found.', 404);
  app.get('*', async (c, next) => (c.req.path.endsWith('.map') ? notFound(c) : next()));
  app.use('*', serveStatic({ root, precompressed: true }));
  // Anything that looks like a file (has an extension) and was not found is a 404; the rest are client routes.
  app.get('*', async (c, next) =>
    c.req.path.startsWith('/assets/') || /\.[A-Za-z0-9]{1,8}$/.test(c.req.path) ? notFound(c) : next(),
  );
  app.get('*', serveStatic({ root, path: 'index.html' }));
  app.get('*', (c) =>
    c.text('The web app is not built. Run `npm run build` (npm start does this for you).', 503),
  );
  return app;
}
