import { describe, expect, it } from 'vitest';
import { createReferenceApp } from './app.ts';
import { DEFAULT_DIALECT, type Dialect, parseDialect, singleChangeDialects } from './dialect.ts';
import { parseFaults } from './faults.ts';
import { openTestStore } from './test-support.ts';

const { store } = await openTestStore();
const PRO = 'pi_demo_professional';

type Json = any;

async function documentOf(
  app: ReturnType<typeof createReferenceApp>,
  url = 'http://127.0.0.1:8787/openapi.json',
) {
  const res = await app.request(url);
  expect(res.status).toBe(200);
  return (await res.json()) as Json;
}

function authed(dialect: Dialect): { headers: Record<string, string>; query: string } {
  if (dialect.auth === 'bearer') return { headers: { Authorization: `Bearer ${PRO}` }, query: '' };
  if (dialect.auth === 'header') return { headers: { 'X-API-Key': PRO }, query: '' };
  return { headers: {}, query: `api_key=${PRO}` };
}

/**
 * Checks a JSON value against the small part of JSON Schema the document uses ($ref, type, anyOf, enum,
 * required, properties, additionalProperties: false, items). Returns the problems found, none if it fits.
 */
function mismatches(value: unknown, schema: Json, doc: Json, at = '$'): string[] {
  if (schema.$ref) {
    const name = String(schema.$ref).replace('#/components/schemas/', '');
    return mismatches(value, doc.components.schemas[name], doc, at);
  }
  if (schema.anyOf) {
    const fits = (schema.anyOf as Json[]).some((s) => mismatches(value, s, doc, at).length === 0);
    return fits ? [] : [`${at}: fits none of anyOf`];
  }
  const types: string[] = [schema.type].flat().filter(Boolean);
  const typeOf = (v: unknown) =>
    v === null ? 'null' : Array.isArray(v) ? 'array' : Number.isInteger(v) ? 'integer' : typeof v;
  const actual = typeOf(value);
  if (types.length > 0 && !types.some((t) => t === actual || (t === 'number' && actual === 'integer'))) {
    return [`${at}: ${actual}, documented as ${types.join('|')}`];
  }
  if (schema.enum && !schema.enum.includes(value)) return [`${at}: ${String(value)} is not in the enum`];
  if (actual === 'array' && schema.items) {
    return (value as unknown[]).flatMap((v, i) => mismatches(v, schema.items, doc, `${at}[${i}]`));
  }
  if (actual !== 'object') return [];
  const record = value as Record<string, unknown>;
  const properties: Record<string, Json> = schema.properties ?? {};
  return [
    ...(schema.required ?? [])
      .filter((k: string) => !Object.hasOwn(record, k))
      .map((k: string) => `${at}.${k}: required, missing`),
    ...Object.keys(record)
      .filter((k) => schema.additionalProperties === false && !Object.hasOwn(properties, k))
      .map((k) => `${at}.${k}: not documented`),
    ...Object.entries(record)
      .filter(([k]) => Object.hasOwn(properties, k))
      .flatMap(([k, v]) => mismatches(v, properties[k], doc, `${at}.${k}`)),
  ];
}

describe('GET /openapi.json', () => {
  it('is OpenAPI 3.1 with the schemas generated from the contract, served without a key', async () => {
    const doc = await documentOf(createReferenceApp({ store }));
    expect(doc.openapi).toBe('3.1.0');
    expect(Object.keys(doc.paths)).toEqual(['/auth/me', '/properties/resolve', '/properties/search']);
    expect(doc.components.schemas.Property.required).toEqual(
      expect.arrayContaining(['property_id', 'source', 'confidence', 'last_verified']),
    );
    expect(doc.components.schemas.Property.properties.confidence.enum).toEqual(['high', 'medium', 'low']);
    // 2020-12 keywords a 3.0 document could not hold, and no `$id` restating each component's name.
    expect(doc.components.schemas.Property.properties.unit).toEqual({ type: ['string', 'null'] });
    expect(JSON.stringify(doc)).not.toMatch(/"\$id"|"\$schema"/);
  });

  it('names the URL it was reached at as the server', async () => {
    const app = createReferenceApp({ store });
    expect((await documentOf(app, 'http://127.0.0.1:41234/openapi.json')).servers).toEqual([
      { url: 'http://127.0.0.1:41234', description: 'This instance.' },
    ]);
    expect((await documentOf(app, 'http://localhost:8787/openapi.json')).servers[0].url).toBe(
      'http://localhost:8787',
    );
  });

  it('is still served when every other request meets an injected fault', async () => {
    const app = createReferenceApp({ store, faults: parseFaults('error=1') });
    expect(
      (await app.request('/auth/me', { headers: authed(DEFAULT_DIALECT).headers })).status,
    ).toBeGreaterThan(499);
    expect((await documentOf(app)).openapi).toBe('3.1.0');
  });

  it.each([
    ['auth=bearer', { bearerAuth: { type: 'http', scheme: 'bearer' } }],
    ['auth=header', { apiKeyHeader: { type: 'apiKey', in: 'header', name: 'X-API-Key' } }],
    ['auth=query', { apiKeyQuery: { type: 'apiKey', in: 'query', name: 'api_key' } }],
  ])('with %s declares exactly the key placement the service reads', async (spec, schemes) => {
    const doc = await documentOf(createReferenceApp({ store, dialect: parseDialect(spec) }));
    const [name] = Object.keys(schemes);
    expect(doc.security).toEqual([{ [name as string]: [] }]);
    expect(Object.keys(doc.components.securitySchemes)).toEqual(Object.keys(schemes));
    expect(doc.components.securitySchemes).toMatchObject(schemes);
  });

  it('documents every route the app serves, each with a unique operationId and tags', async () => {
    const app = createReferenceApp({ store });
    const doc = await documentOf(app);
    const served = app.routes
      .filter((r) => r.method !== 'ALL' && r.path !== '/openapi.json')
      .map((r) => `${r.method} ${r.path}`);
    const documented = Object.entries(doc.paths).flatMap(([path, item]) =>
      Object.keys(item as object).map((m) => `${m.toUpperCase()} ${path}`),
    );
    expect(documented.sort()).toEqual(served.sort());
    const operations = Object.values(doc.paths).flatMap((item) => Object.values(item as object)) as Json[];
    expect(new Set(operations.map((o) => o.operationId)).size).toBe(operations.length);
    for (const o of operations) expect(o.tags.length).toBeGreaterThan(0);
  });

  it('documents the rate-limit headers and the error body on every answer behind the limiter', async () => {
    const doc = await documentOf(createReferenceApp({ store }));
    const resolveResponse = (r: Json) =>
      r.$ref ? doc.components.responses[String(r.$ref).replace('#/components/responses/', '')] : r;
    for (const [path, item] of Object.entries(doc.paths)) {
      const responses = (item as Json).get.responses as Record<string, Json>;
      expect(Object.keys(responses), path).toEqual(expect.arrayContaining(['200', '401', '403', '429']));
      for (const [status, r] of Object.entries(responses)) {
        const response = resolveResponse(r);
        if (!['500', '503'].includes(status)) {
          expect(Object.keys(response.headers), `${path} ${status}`).toEqual([
            'X-RateLimit-Limit',
            'X-RateLimit-Remaining',
            'X-RateLimit-Reset',
          ]);
        }
        if (status !== '200') {
          expect(response.content['application/json'].schema, `${path} ${status}`).toEqual({
            $ref: '#/components/schemas/Error',
          });
        }
      }
    }
  });
});

describe('the document describes what the instance sends, in every dialect', () => {
  it.each([DEFAULT_DIALECT, ...singleChangeDialects()].map((d) => [Object.values(d).join(','), d] as const))(
    '%s',
    async (_name, dialect) => {
      const app = createReferenceApp({ store, dialect, cursorSecret: 'test-secret' });
      const doc = await documentOf(app);
      const auth = authed(dialect);
      const call = async (path: string) => {
        const query = auth.query && (path.includes('?') ? '&' : '?') + auth.query;
        const res = await app.request(path + query, { headers: auth.headers });
        const operation = doc.paths[path.split('?')[0] as string].get;
        let response = operation.responses[String(res.status)];
        expect(response, `${path}: ${res.status} is not documented`).toBeDefined();
        if (response.$ref) response = doc.components.responses[response.$ref.split('/').pop()];
        const type = res.headers.get('content-type')?.split(';')[0] as string;
        const media = response.content[type];
        expect(media, `${path}: ${res.status} ${type} is not documented`).toBeDefined();
        const body = type === 'application/json' ? await res.json() : await res.text();
        expect(mismatches(body, media.schema, doc), `${path} ${res.status}`).toEqual([]);
        if (response.headers) {
          const reset = res.headers.get('X-RateLimit-Reset') ?? '';
          const resetSchema = doc.components.headers['X-RateLimit-Reset'].schema;
          expect(resetSchema.type === 'integer' ? /^\d+$/.test(reset) : reset.includes('GMT')).toBe(true);
        }
        return res.status;
      };
      expect(await call('/auth/me')).toBe(200);
      expect(await call('/properties/resolve?address=1100+Congress+Ave+Austin+TX')).toBe(200);
      expect(await call('/properties/resolve?address=100+Main+St')).toBe(409);
      expect(await call('/properties/resolve?address=99999+Congress+Ave+Austin+TX')).toBe(404);
      expect(await call('/properties/resolve?address=+')).toBe(400);
      expect(await call('/properties/search?q=main&limit=3')).toBe(200);
      expect(await call('/properties/search?q=main&cursor=forged')).toBe(400);
    },
  );

  it('the check above can fail: a record with a renamed identifier does not fit', async () => {
    const doc = await documentOf(createReferenceApp({ store }));
    const schema = { $ref: '#/components/schemas/Candidate' };
    expect(mismatches({ property_id: 'pi_1', address: 'x' }, schema, doc)).toEqual([]);
    expect(mismatches({ id: 'pi_1', address: 'x' }, schema, doc)).toEqual([
      '$.property_id: required, missing',
      '$.id: not documented',
    ]);
    expect(mismatches({ property_id: 1, address: 'x' }, schema, doc)).toEqual([
      '$.property_id: integer, documented as string',
    ]);
  });
});
