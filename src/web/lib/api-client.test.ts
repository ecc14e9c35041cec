import { afterEach, describe, expect, it, vi } from 'vitest';
import { ResolveAnswer } from '../../contract/index.ts';
import { apiError, fakeApi, json, resolveMiss } from '../test/utils.tsx';
import { ApiRequestError, apiFetch } from './api-client.ts';
import { currentRateLimit, resetRateLimit } from './rate-limit-store.ts';

const resetAt = '2026-11-21T12:00:42.000Z';

afterEach(() => {
  resetRateLimit();
  vi.unstubAllGlobals();
});

describe('apiFetch and the rate limit', () => {
  it('an answer that found no record (a 200) and a refusal that spent a request both report what is left', async () => {
    fakeApi({
      'GET /api/properties/resolve': ({ url }) =>
        url.searchParams.get('address') === 'nowhere'
          ? resolveMiss('not_found', 'No', {}, { limit: 60, remaining: 57, resetAt, windowS: 60 })
          : apiError(502, 'upstream_unavailable', 'Down', {
              rateLimit: { limit: 60, remaining: 56, resetAt },
            }),
    });
    const answer = await apiFetch('/api/properties/resolve?address=nowhere', ResolveAnswer);
    expect(answer).toMatchObject({ miss: { code: 'not_found' } });
    expect(currentRateLimit()).toEqual({ limit: 60, remaining: 57, resetAt, windowS: 60 });
    const error = await apiFetch('/api/properties/resolve?address=main', ResolveAnswer).catch((e) => e);
    expect(error).toBeInstanceOf(ApiRequestError);
    expect((error as ApiRequestError).code).toBe('upstream_unavailable');
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
    await apiFetch('/api/properties/resolve?address=x', ResolveAnswer).catch(() => {});
    expect(currentRateLimit()).toEqual({ limit: 4, remaining: 0, resetAt, windowS: 12 });
  });

  it('an answer without a rate limit (signed out) leaves the meter alone', async () => {
    fakeApi({
      'GET /api/properties/resolve': () => apiError(401, 'unauthenticated', 'Ended'),
      'GET /api/session': () => json({ error: 'not json we know' }, 500),
    });
    await apiFetch('/api/properties/resolve?address=x', ResolveAnswer).catch(() => {});
    expect(currentRateLimit()).toBeNull();
  });
});
