import { afterEach, describe, expect, it, vi } from 'vitest';
import { ResolveResponse } from '../../contract/index.ts';
import { apiError, fakeApi, json } from '../test/utils.tsx';
import { ApiRequestError, apiFetch } from './api-client.ts';
import { currentRateLimit, resetRateLimit } from './rate-limit-store.ts';

const resetAt = '2026-11-21T12:00:42.000Z';

afterEach(() => {
  resetRateLimit();
  vi.unstubAllGlobals();
});

describe('apiFetch and the rate limit', () => {
  it('a refusal that spent a request (404, 409) reports what is left, like a success', async () => {
    fakeApi({
      'GET /api/properties/resolve': ({ url }) =>
        url.searchParams.get('address') === 'nowhere'
          ? apiError(404, 'not_found', 'No', {
              rateLimit: { limit: 60, remaining: 57, resetAt, windowS: 60 },
            })
          : apiError(409, 'ambiguous', 'Many', {
              candidates: [],
              rateLimit: { limit: 60, remaining: 56, resetAt },
            }),
    });
    const error = await apiFetch('/api/properties/resolve?address=nowhere', ResolveResponse).catch((e) => e);
    expect(error).toBeInstanceOf(ApiRequestError);
    expect((error as ApiRequestError).code).toBe('not_found');
    expect(currentRateLimit()).toEqual({ limit: 60, remaining: 57, resetAt, windowS: 60 });
    await apiFetch('/api/properties/resolve?address=main', ResolveResponse).catch(() => {});
    expect(currentRateLimit()?.remaining).toBe(56);
  });

  it('a 429 leaves nothing until its reset', async () => {
    fakeApi({
      'GET /api/properties/resolve': () =>
        apiError(429, 'rate_limited', 'Used up', {
          resetAt,
          rateLimit: { limit: 4, remaining: 0, resetAt, windowS: 12 },
        }),
    });
    await apiFetch('/api/properties/resolve?address=x', ResolveResponse).catch(() => {});
    expect(currentRateLimit()).toEqual({ limit: 4, remaining: 0, resetAt, windowS: 12 });
  });

  it('an answer without a rate limit (signed out) leaves the meter alone', async () => {
    fakeApi({
      'GET /api/properties/resolve': () => apiError(401, 'unauthenticated', 'Ended'),
      'GET /api/session': () => json({ error: 'not json we know' }, 500),
    });
    await apiFetch('/api/properties/resolve?address=x', ResolveResponse).catch(() => {});
    expect(currentRateLimit()).toBeNull();
  });
});
