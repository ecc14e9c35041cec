/*
 * The contract's server-only part, for the BFF, the reference service, the benchmark and scripts: the USPS
 * Publication 28 tables and what reads addresses with them (the usual order of an address's parts, a match's
 * explanation and quality). The browser never loads it: src/web imports ../index.ts only, and
 * `scripts/check-bundle.ts` fails when a module of this folder reaches dist/. What the browser needs of
 * addresses is small and lives beside the schemas (../address.ts, ../address-tables.ts).
 */
export * from './address-order.ts';
export * from './explain-match.ts';
export * from './explain-quality.ts';
export * from './usps.ts';
