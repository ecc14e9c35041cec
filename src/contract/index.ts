export * from './api.ts';
export * from './common.ts';
export * from './upstream.ts';
export * from './review.ts';
