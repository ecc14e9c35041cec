import * as z from 'zod/mini';
import {
  MAX_ADDRESS_LENGTH,
  UpstreamAccount,
  UpstreamCandidate,
  UpstreamError,
  UpstreamProperty,
  UpstreamSearchPage,
} from '../contract/index.ts';
import { SALES_CONTACT } from './accounts.ts';
import { type Dialect, describeDialect } from './dialect.ts';
import { DEFAULT_PAGE_SIZE, MAX_PAGE_SIZE } from './routes/properties.ts';

type Schema = Record<string, unknown>;

/**
 * The OpenAPI 3.1 document of this instance: generated from the same zod schemas the service answers with,
 * then reshaped to the instance's dialect (identifier name, date format, envelope, error bodies, where the
 * key goes, reset format), so that what it says is what this instance sends. 3.1 because zod emits JSON
 * Schema 2020-12 (`type: [..., 'null']`), which 3.0 cannot express. `servers` is added per request (see
 * routes/openapi.ts): only the request knows the URL the service was reached at.
 */
/**
 * The OpenAPI 3.1 document of this instance: generated from the same zod schemas the service answers with,
 * then reshaped to the instance's dialect (identifier name, date format, envelope, error bodies, where the
 * key goes, reset format), so that what it says is what this instance sends. 3.1 because zod emits JSON
 * Schema 2020-12 (`type: [..., 'null']`), which 3.0 cannot express. `servers` is added per request (see
 * routes/openapi.ts): only the request knows the URL the service was reached at.
 */
export function buildOpenApiDocument(dialect: Dialect) {
  const parts = documentParts(dialect);
  return {
    openapi: '3.1.0',
    info: info(dialect),
    tags: [
      { name: 'auth', description: 'Credentials.' },
      { name: 'properties', description: 'Property records.' },
    ],
    security: [{ [SECURITY_SCHEME[dialect.auth]]: [] }],
    paths: paths(parts),
    components: components(dialect, parts),
  };
}

/** The building blocks every part of the document is written with, shaped to the dialect. */
function documentParts(dialect: Dialect) {
  const ref = (id: string) => ({ $ref: `#/components/schemas/${id}` });
  const json = (schema: Schema) => ({ 'application/json': { schema } });
  const single = (id: 'Account' | 'Property') =>
    dialect.envelope === 'bare'
      ? ref(id)
      : {
          type: 'object',
          properties: { [dialect.envelope === 'data' ? 'data' : id.toLowerCase()]: ref(id) },
          required: [dialect.envelope === 'data' ? 'data' : id.toLowerCase()],
          additionalProperties: false,
        };
  const errorContent =
    dialect.errors === 'text'
      ? { 'text/plain': { schema: { type: 'string', description: 'What went wrong, for a person.' } } }
      : json(ref('Error'));
  const limitHeaders = {
    'X-RateLimit-Limit': { $ref: '#/components/headers/X-RateLimit-Limit' },
    'X-RateLimit-Remaining': { $ref: '#/components/headers/X-RateLimit-Remaining' },
    'X-RateLimit-Reset': { $ref: '#/components/headers/X-RateLimit-Reset' },
  };
  const limited = (description: string, content: object) => ({ description, headers: limitHeaders, content });
  const response = (name: string) => ({ $ref: `#/components/responses/${name}` });
  // Every answer from behind the rate limiter carries its headers; 500 and 503 can come before it.
  const common = {
    '401': response('Unauthorized'),
    '403': response('PlanNotEligible'),
    '429': response('RateLimited'),
    '500': response('InternalError'),
    '503': response('Unavailable'),
  };
  const codes = (...list: string[]) => ` Error code${list.length > 1 ? 's' : ''}: ${list.join(', ')}.`;
  const withCodes = (text: string, ...list: string[]) =>
    dialect.errors === 'json' ? text + codes(...list) : text;
  return { ref, json, single, errorContent, limited, common, withCodes };
}

type DocumentParts = ReturnType<typeof documentParts>;

function info(dialect: Dialect) {
  return {
    title: 'Property Intelligence Service (PropLens reference implementation)',
    version: '1.0.0',
    summary: 'Resolve a street address to a property record with its source, confidence and freshness.',
    description:
      `This instance answers in the dialect ${describeDialect(dialect)}; the shapes below are that ` +
      'dialect. API access needs a professional or enterprise plan.',
    contact: { name: 'Sales', email: SALES_CONTACT },
    // PropLens has no public licence: the reference and its generated data are for development and demos.
    license: {
      name: 'Proprietary: demo data for development only',
      identifier: 'LicenseRef-PropLens-Demo',
    },
  };
}

function paths(parts: DocumentParts) {
  return {
    '/auth/me': authMe(parts),
    '/properties/resolve': resolveProperty(parts),
    '/properties/search': searchProperties(parts),
  };
}

/** GET /auth/me. */
function authMe({ json, single, limited, common }: DocumentParts) {
  return {
    get: {
      operationId: 'getCurrentAccount',
      tags: ['auth'],
      summary: 'Confirm that the supplied credentials work.',
      responses: {
        '200': limited('The account the key belongs to.', json(single('Account'))),
        ...common,
      },
    },
  };
}

/** GET /properties/resolve. */
function resolveProperty({ json, single, errorContent, limited, common, withCodes }: DocumentParts) {
  return {
    get: {
      operationId: 'resolveProperty',
      tags: ['properties'],
      summary: 'Resolve a street address to a property record.',
      description:
        'Messy input (case, abbreviations, typos, missing city or ZIP) is tolerated. The service never ' +
        'picks one of several matches: ambiguous input is answered 409 with the candidates.',
      parameters: [
        {
          name: 'address',
          in: 'query',
          required: true,
          description: 'The address to resolve, sent once.',
          schema: { type: 'string', minLength: 1, maxLength: MAX_ADDRESS_LENGTH },
        },
      ],
      responses: {
        '200': limited('The property record.', json(single('Property'))),
        '400': limited(
          withCodes('Blank, over-long, repeated or control-character address.', 'invalid_address'),
          errorContent,
        ),
        '404': limited(
          withCodes(
            'No such property ("did you mean" candidates, possibly none), or a known building without ' +
              'that unit (with the building).',
            'address_not_found',
            'unit_not_found',
          ),
          errorContent,
        ),
        '409': limited(
          withCodes('More than one property matches; the candidates are listed.', 'ambiguous_address'),
          errorContent,
        ),
        ...common,
      },
    },
  };
}

/** GET /properties/search: the list endpoint. */
function searchProperties({ json, ref, errorContent, limited, common, withCodes }: DocumentParts) {
  return {
    get: {
      operationId: 'searchProperties',
      tags: ['properties'],
      summary: 'Candidate records for a partial address, best first.',
      description: 'The list endpoint: follow next_cursor, with the same q, until it is absent.',
      parameters: [
        {
          name: 'q',
          in: 'query',
          required: true,
          description: 'A partial address, sent once.',
          schema: { type: 'string', minLength: 1, maxLength: MAX_ADDRESS_LENGTH },
        },
        {
          name: 'limit',
          in: 'query',
          description: 'Page size.',
          schema: { type: 'integer', minimum: 1, maximum: MAX_PAGE_SIZE, default: DEFAULT_PAGE_SIZE },
        },
        {
          name: 'cursor',
          in: 'query',
          description: 'next_cursor of the previous page, for the same q.',
          schema: { type: 'string', maxLength: 200 },
        },
      ],
      responses: {
        '200': limited('A page of records.', json(ref('SearchPage'))),
        '400': limited(
          withCodes(
            'Bad q or limit, or a cursor this service did not issue for this q.',
            'invalid_query',
            'invalid_cursor',
          ),
          errorContent,
        ),
        ...common,
      },
    },
  };
}

function components(dialect: Dialect, { limited, errorContent, withCodes }: DocumentParts) {
  return {
    schemas: componentSchemas(dialect),
    securitySchemes: { [SECURITY_SCHEME[dialect.auth]]: securityScheme(dialect) },
    headers: {
      'X-RateLimit-Limit': {
        description: 'Requests allowed per window.',
        required: true,
        schema: { type: 'integer', minimum: 1 },
      },
      'X-RateLimit-Remaining': {
        description: 'Requests left in this window.',
        required: true,
        schema: { type: 'integer', minimum: 0 },
      },
      'X-RateLimit-Reset': {
        description: `When the window resets: ${RESET_FORMAT[dialect.reset]}. After a 429, retry then.`,
        required: true,
        schema: dialect.reset === 'http-date' ? { type: 'string' } : { type: 'integer', minimum: 0 },
      },
    },
    responses: {
      Unauthorized: limited(
        withCodes('No API key, or one this service does not know.', 'unauthorized'),
        errorContent,
      ),
      PlanNotEligible: limited(
        withCodes(
          `The account's plan has no API access (professional or enterprise needed; ${SALES_CONTACT}).`,
          'plan_not_eligible',
        ),
        errorContent,
      ),
      RateLimited: limited(
        withCodes('Rate limit exceeded: wait until X-RateLimit-Reset, then retry.', 'rate_limited'),
        errorContent,
      ),
      InternalError: { description: withCodes('Internal error.', 'internal'), content: errorContent },
      Unavailable: {
        description: withCodes('Service unavailable; retry later.', 'unavailable'),
        content: errorContent,
      },
    },
  };
}

const SECURITY_SCHEME = { bearer: 'bearerAuth', header: 'apiKeyHeader', query: 'apiKeyQuery' } as const;

function securityScheme(dialect: Dialect): Schema {
  const description = 'An API key from the account settings (developer section, API keys).';
  if (dialect.auth === 'bearer') return { type: 'http', scheme: 'bearer', description };
  if (dialect.auth === 'header') return { type: 'apiKey', in: 'header', name: 'X-API-Key', description };
  return { type: 'apiKey', in: 'query', name: 'api_key', description };
}

const RESET_FORMAT: Record<Dialect['reset'], string> = {
  'epoch-s': 'Unix time in seconds',
  'delta-s': 'seconds from now',
  'epoch-ms': 'Unix time in milliseconds',
  'http-date': 'an HTTP-date (RFC 9110), e.g. "Fri, 15 Jan 2027 08:01:00 GMT"',
};

/** JSON Schemas from the contract, each reshaped to the dialect. */
function componentSchemas(dialect: Dialect): Record<string, Schema> {
  const registry = z.registry<{ id: string }>();
  for (const [id, schema] of [
    ['Account', UpstreamAccount],
    ['Property', UpstreamProperty],
    ['Candidate', UpstreamCandidate],
    ['SearchPage', UpstreamSearchPage],
    ['Error', UpstreamError],
  ] as const) {
    registry.add(schema, { id });
  }
  const generated = z.toJSONSchema(registry, { uri: (id) => `#/components/schemas/${id}` }).schemas;
  const schemas: Record<string, Schema> = {};
  for (const [id, schema] of Object.entries(generated)) {
    // An OpenAPI component is named by its key: `$id` and `$schema` would only restate (or confuse) that.
    const { $id: _id, $schema: _schema, ...rest } = schema as Schema;
    schemas[id] = rest;
  }
  const property = schemas.Property as { properties: Record<string, Schema> };
  property.properties.last_verified = dateSchema(dialect, property.properties.last_verified);
  const sale = property.properties.last_sale_date as { anyOf: Schema[] };
  property.properties.last_sale_date = { anyOf: [dateSchema(dialect, sale.anyOf[0]), { type: 'null' }] };
  if (dialect.id !== 'property_id') {
    for (const id of ['Property', 'Candidate'])
      schemas[id] = renameField(schemas[id], 'property_id', dialect.id);
  }
  if (dialect.errors === 'message') {
    // `{ message, candidates?, building? }`: the json dialect's inner object without a code.
    const inner = (schemas.Error as { properties: { error: Schema } }).properties.error as {
      properties: Record<string, Schema>;
    };
    const { code: _code, ...properties } = inner.properties;
    schemas.Error = { ...inner, properties, required: ['message'] };
  }
  if (dialect.errors === 'text') {
    // Plain-text errors have no body schema, and candidates are only ever sent inside error bodies.
    delete schemas.Error;
    delete schemas.Candidate;
  }
  return schemas;
}

function dateSchema(dialect: Dialect, generated: Schema | undefined): Schema {
  const described = (format: string) => ({
    description: [generated?.description, format].filter(Boolean).join(' '),
  });
  switch (dialect.date) {
    case 'date':
      return { ...generated, format: 'date' };
    case 'datetime':
      return { type: 'string', format: 'date-time', ...described('ISO 8601 date and time, UTC.') };
    case 'epoch-s':
      return { type: 'integer', ...described('Unix time, seconds.') };
    case 'epoch-ms':
      return { type: 'integer', ...described('Unix time, milliseconds.') };
  }
}

function renameField(schema: Schema | undefined, from: string, to: string): Schema {
  const s = schema as { properties: Record<string, Schema>; required: string[] };
  return {
    ...s,
    properties: Object.fromEntries(Object.entries(s.properties).map(([k, v]) => [k === from ? to : k, v])),
    required: s.required.map((k) => (k === from ? to : k)),
  };
}
