export * from './api.ts';
export * from './audit.ts';
export * from './common.ts';
export * from './csv.ts';
export * from './match.ts';
export * from './review.ts';
export * from './upstream.ts';
export * from './usps.ts';
