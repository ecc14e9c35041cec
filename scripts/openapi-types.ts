import { writeFileSync } from 'node:fs';
import { generateClientTypes, TYPES_PATH } from '../src/reference/openapi-client/generate.ts';

/**
 * `npm run openapi:types`: regenerates the committed client types from the reference's /openapi.json.
 * src/reference/openapi-client/api-types.test.ts fails until this has been run after a change to the document.
 */
writeFileSync(TYPES_PATH, await generateClientTypes());
console.log(`Wrote ${TYPES_PATH}`);
