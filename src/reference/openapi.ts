import * as z from 'zod/mini';
import { UpstreamAccount, UpstreamError, UpstreamProperty, UpstreamSearchPage } from '../contract/index.ts';
import { type Dialect, describeDialect } from './dialect.ts';

/** The OpenAPI document, generated from the same zod schemas the service answers with. */
export function buildOpenApiDocument(dialect: Dialect) {
  const registry = z.registry<{ id: string }>();
  for (const [id, schema] of [
    ['Account', UpstreamAccount],
    ['Property', UpstreamProperty],
    ['SearchPage', UpstreamSearchPage],
    ['Error', UpstreamError],
  ] as const) {
    registry.add(schema, { id });
  }
  const { schemas } = z.toJSONSchema(registry, {
    uri: (id) => `#/components/schemas/${id}`,
    target: 'openapi-3.0',
  });
  const ref = (id: string) => ({ $ref: `#/components/schemas/${id}` });
  const json = (id: string) => ({ 'application/json': { schema: ref(id) } });
  const limitHeaders = {
    'X-RateLimit-Limit': { schema: { type: 'integer' }, description: 'Requests allowed per window.' },
    'X-RateLimit-Remaining': { schema: { type: 'integer' }, description: 'Requests left in this window.' },
    'X-RateLimit-Reset': { schema: { type: 'string' }, description: 'When the window resets (see dialect).' },
  };
  const errors = {
    '401': { description: 'Missing or unknown API key.', headers: limitHeaders, content: json('Error') },
    '403': {
      description: 'The account plan has no API access.',
      headers: limitHeaders,
      content: json('Error'),
    },
    '429': {
      description: 'Rate limit exceeded: wait until X-RateLimit-Reset.',
      headers: limitHeaders,
      content: json('Error'),
    },
  };
  return {
    openapi: '3.0.3',
    info: {
      title: 'Property Intelligence Service (PropLens reference implementation)',
      version: '1.0.0',
      description: `Shapes below are the default dialect. This instance answers in: ${describeDialect(dialect)}.`,
    },
    components: {
      schemas,
      securitySchemes: {
        bearer: { type: 'http', scheme: 'bearer' },
        header: { type: 'apiKey', in: 'header', name: 'X-API-Key' },
        query: { type: 'apiKey', in: 'query', name: 'api_key' },
      },
    },
    security: [{ [dialect.auth]: [] }],
    paths: {
      '/auth/me': {
        get: {
          summary: 'Confirm that the supplied credentials work.',
          responses: {
            '200': { description: 'The account.', headers: limitHeaders, content: json('Account') },
            ...errors,
          },
        },
      },
      '/properties/resolve': {
        get: {
          summary: 'Resolve a street address to a property record.',
          parameters: [
            { name: 'address', in: 'query', required: true, schema: { type: 'string', maxLength: 512 } },
          ],
          responses: {
            '200': { description: 'The property record.', headers: limitHeaders, content: json('Property') },
            '400': { description: 'Blank, over-long or control-character input.', content: json('Error') },
            '404': {
              description: 'address_not_found, or unit_not_found with the building.',
              content: json('Error'),
            },
            '409': { description: 'ambiguous_address, with candidates.', content: json('Error') },
            ...errors,
          },
        },
      },
      '/properties/search': {
        get: {
          summary: 'Candidate records for a partial address, best first.',
          parameters: [
            { name: 'q', in: 'query', required: true, schema: { type: 'string', maxLength: 512 } },
            {
              name: 'limit',
              in: 'query',
              schema: { type: 'integer', minimum: 1, maximum: 100, default: 20 },
            },
            {
              name: 'cursor',
              in: 'query',
              schema: { type: 'string' },
              description: 'next_cursor of the previous page.',
            },
          ],
          responses: {
            '200': { description: 'A page of records.', headers: limitHeaders, content: json('SearchPage') },
            '400': { description: 'Bad query, limit or cursor.', content: json('Error') },
            ...errors,
          },
        },
      },
    },
  };
}
