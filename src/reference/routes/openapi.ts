import { Hono } from 'hono';
import type { ReferenceDeps, ReferenceEnv } from '../context.ts';
import { buildOpenApiDocument } from '../openapi.ts';

/** /openapi.json: public, mounted before faults and auth, so a client can always read the contract. */
export function openApiRoutes(deps: Pick<ReferenceDeps, 'dialect'>) {
  // The document depends only on the dialect: build it once, not per request.
  const { openapi, info, ...rest } = buildOpenApiDocument(deps.dialect);
  return new Hono<ReferenceEnv>().get('/openapi.json', (c) => {
    // The service's own URL is the one it was reached at: a loopback port, or whatever the demo is behind.
    const servers = [{ url: new URL(c.req.url).origin, description: 'This instance.' }];
    return c.json({ openapi, info, servers, ...rest });
  });
}
