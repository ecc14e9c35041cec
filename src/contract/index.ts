/*
 * What the browser may load: the wire's schemas, its words and the small helpers the SPA calls. What only the
 * servers need (the USPS tables, parsing an address, explaining a match) is in ./server/index.ts, which nothing
 * under src/web imports; `scripts/check-bundle.ts` fails the build when one of its modules reaches dist/.
 */
export * from './address.ts';
export * from './address-tables.ts';
export * from './api.ts';
export * from './audit.ts';
export * from './common.ts';
export * from './csv.ts';
export * from './match.ts';
export * from './match-quality.ts';
export * from './review.ts';
export * from './review-export.ts';
/**
 * For now only: src/bff/reviews/export-columns.ts and src/bff/stores/reviews/to-api.test.ts still import it
 * from here. Once they import ./server/index.ts, this line goes. Nothing of it reaches the browser's bundle
 * (no module of ./server/ does work at load, and scripts/check-bundle.ts checks).
 */
export { explainRecordMatch } from './server/explain-match.ts';
export * from './upstream.ts';
export * from './wording.ts';
