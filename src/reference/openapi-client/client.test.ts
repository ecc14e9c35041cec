import { tmpdir } from 'node:os';
import { join } from 'node:path';
import createClient from 'openapi-fetch';
import { afterAll, beforeAll, describe, expect, expectTypeOf, it } from 'vitest';
import type { UpstreamAccount, UpstreamError, UpstreamProperty } from '../../contract/index.ts';
import { readReferenceConfig } from '../config.ts';
import { type RunningReference, startReference } from '../index.ts';
import type { components, paths } from './api-types.ts';

type Schemas = components['schemas'];

// A customer's view: nothing from the reference's code but the document it serves and the types generated
// from it. If the document stops describing what the service sends, this fails to typecheck or to pass.
describe('a client generated from /openapi.json (openapi-typescript + openapi-fetch)', () => {
  let ref: RunningReference;
  let client: ReturnType<typeof createClient<paths>>;

  beforeAll(async () => {
    // The same small dataset as test-support's openTestStore, served on a loopback port.
    ref = await startReference(
      readReferenceConfig({
        REFERENCE_HOST: '127.0.0.1',
        REFERENCE_PORT: '0',
        REFERENCE_RECORDS: '3000',
        REFERENCE_SEED: '7',
        REFERENCE_DATA_DIR: join(tmpdir(), 'proplens-test-data'),
        REFERENCE_RATE_LIMIT: '1000/60',
      }),
    );
    const document = (await (await fetch(`${ref.url}/openapi.json`)).json()) as {
      servers: { url: string }[];
    };
    const baseUrl = document.servers[0]?.url ?? '';
    client = createClient<paths>({ baseUrl, headers: { Authorization: 'Bearer pi_demo_professional' } });
  });

  afterAll(() => ref?.close());

  it('finds the service at the URL the document gives in servers', async () => {
    const document = (await (await fetch(`${ref.url}/openapi.json`)).json()) as {
      servers: { url: string }[];
    };
    expect(document.servers).toEqual([{ url: ref.url, description: 'This instance.' }]);
  });

  it('confirms the key with GET /auth/me', async () => {
    const { data, response } = await client.GET('/auth/me');
    expect(response.status).toBe(200);
    expect(data).toEqual({ id: 'acct_demo_pro', name: 'Harbor & Vale Realty', plan: 'professional' });
    expect(response.headers.get('X-RateLimit-Limit')).toBe('1000');
  });

  it('resolves an address to a typed record with source, confidence and last_verified', async () => {
    const { data, error, response } = await client.GET('/properties/resolve', {
      params: { query: { address: '1100 congress avenue austin texas' } },
    });
    // openapi-fetch reads the generated types: the record and the error body are typed, not `any`.
    expectTypeOf(data).toEqualTypeOf<Schemas['Property'] | undefined>();
    expectTypeOf(error).toEqualTypeOf<Schemas['Error'] | undefined>();
    expect(response.status).toBe(200);
    expect(error).toBeUndefined();
    expect(data).toMatchObject({
      address: '1100 Congress Ave, Austin, TX 78701',
      source: 'Travis Central Appraisal District',
      confidence: 'high',
    });
    expect(data?.property_id).toMatch(/^pi_/);
    expect(data?.last_verified).toMatch(/^\d{4}-\d{2}-\d{2}$/);
  });

  it('gets the documented error body for an ambiguous address', async () => {
    const { data, error, response } = await client.GET('/properties/resolve', {
      params: { query: { address: '100 Main St' } },
    });
    expect(response.status).toBe(409);
    expect(data).toBeUndefined();
    expect(error?.error.code).toBe('ambiguous_address');
    expect(error?.error.candidates?.length).toBeGreaterThan(1);
  });

  it('pages through search with next_cursor', async () => {
    const first = await client.GET('/properties/search', { params: { query: { q: 'main', limit: 5 } } });
    expect(first.data?.data).toHaveLength(5);
    const cursor = first.data?.next_cursor;
    expect(cursor).toEqual(expect.any(String));
    const second = await client.GET('/properties/search', {
      params: { query: { q: 'main', limit: 5, cursor } },
    });
    expect(second.response.status).toBe(200);
    const ids = [...(first.data?.data ?? []), ...(second.data?.data ?? [])].map((p) => p.property_id);
    expect(new Set(ids).size).toBe(10);
  });

  it('has the same shapes as the contract the service answers with', () => {
    // Checked by tsc (`npm run typecheck`): the document, generated from the contract's zod schemas, loses
    // nothing on the way to a customer's types.
    expectTypeOf<Schemas['Property']>().toEqualTypeOf<UpstreamProperty>();
    expectTypeOf<Schemas['Account']>().toEqualTypeOf<UpstreamAccount>();
    expectTypeOf<Schemas['Error']>().toEqualTypeOf<UpstreamError>();
  });
});
