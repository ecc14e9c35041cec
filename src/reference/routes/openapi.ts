import { Hono } from 'hono';
import type { ReferenceDeps, ReferenceEnv } from '../context.ts';
import { buildOpenApiDocument } from '../openapi.ts';

/** /openapi.json: public, mounted before faults and auth, so a client can always read the contract. */
export function openApiRoutes(deps: Pick<ReferenceDeps, 'dialect'>) {
  // The document depends only on the dialect: build it once, not per request.
  const document = buildOpenApiDocument(deps.dialect);
  return new Hono<ReferenceEnv>().get('/openapi.json', (c) => c.json(document));
}
