import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { generateClientTypes, TYPES_PATH } from './generate.ts';

// The generated types are committed rather than generated during `npm test`: `tsc` then checks the client
// test against them on any fresh clone with no generation step first, and a change to the document shows
// up in review as a change to the typed surface customers build on. This test keeps them honest.
describe('generated client types', () => {
  it('are what openapi-typescript generates from /openapi.json today (run `npm run openapi:types`)', async () => {
    expect(await generateClientTypes()).toBe(readFileSync(TYPES_PATH, 'utf8'));
  });
});
