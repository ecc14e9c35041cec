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
export * from './decisions.ts';
export * from './match.ts';
export * from './match-quality.ts';
export * from './monitoring.ts';
export * from './review.ts';
export * from './review-export.ts';
export * from './upstream.ts';
export * from './webhooks.ts';
export * from './wording.ts';
