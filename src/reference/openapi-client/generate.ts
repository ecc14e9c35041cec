import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import openapiTS, { type OpenAPI3 } from 'openapi-typescript';
import { createReferenceApp } from '../app.ts';
import { DEFAULT_DIALECT, type Dialect } from '../dialect.ts';
import type { PropertyStore } from '../store.ts';

const ROOT = fileURLToPath(new URL('../../../', import.meta.url));
/** The committed client types, relative to the repository root. */
export const TYPES_PATH = 'src/reference/openapi-client/api-types.ts';

const NO_DATA: PropertyStore = {
  resolve: () => {
    throw new Error('the OpenAPI document needs no data');
  },
  search: () => {
    throw new Error('the OpenAPI document needs no data');
  },
  count: () => 0,
};

/** /openapi.json exactly as the reference app serves it (the document itself never reads the data). */
export async function servedOpenApiDocument(
  dialect: Dialect = DEFAULT_DIALECT,
  origin = 'http://127.0.0.1:8787',
): Promise<OpenAPI3> {
  const res = await createReferenceApp({ store: NO_DATA, dialect }).request(`${origin}/openapi.json`);
  if (res.status !== 200) throw new Error(`/openapi.json answered ${res.status}`);
  return (await res.json()) as OpenAPI3;
}

/**
 * The client types a customer would generate from the default dialect's document: openapi-typescript 6
 * (7 needs TypeScript 5's JS API; this repo is on TypeScript 7), formatted by the repo's Biome config so
 * the committed file passes `npm run lint` unchanged.
 */
export async function generateClientTypes(): Promise<string> {
  const types = await openapiTS(await servedOpenApiDocument(), { silent: true });
  return execFileSync(`${ROOT}node_modules/.bin/biome`, ['format', `--stdin-file-path=${TYPES_PATH}`], {
    cwd: ROOT,
    input: types,
    encoding: 'utf8',
  });
}
