import { describe, expect, it } from 'vitest';
import { ApiErrorBody } from '../../contract/index.ts';
import { createHarness } from '../test-support/harness.ts';
import type { UpstreamHandler } from '../test-support/in-process-upstream.ts';

/** An upstream that accepts the key at /auth/me and answers every other call 429, its reset already due. */
function alwaysLimited(calls: string[]) {
  return (async (request: Request) => {
    const url = new URL(request.url);
    calls.push(url.pathname);
    if (url.pathname.endsWith('/auth/me'))
      return new Response(JSON.stringify({ account: { name: 'Acme', plan: 'enterprise' } }), {
        headers: { 'content-type': 'application/json' },
      });
    return new Response(JSON.stringify({ error: 'slow down' }), {
      status: 429,
      headers: {
        'content-type': 'application/json',
        'X-RateLimit-Reset': '0',
        'X-RateLimit-Limit': '100',
        'X-RateLimit-Remaining': '0',
      },
    });
  }) satisfies UpstreamHandler;
}

describe('UpstreamClient retry loop', () => {
  it('waits out at most 5 unforeseen 429s for one call, then answers 429 rate_limited', async () => {
    const calls: string[] = [];
    const h = createHarness({ fetch: alwaysLimited(calls) });
    expect((await h.signIn()).status).toBe(200);
    // Real time: each wait is the upstream's own reset (due at once) plus the budget's 250 ms margin.
    const res = await h.resolve('1 Main St');
    expect(res.status).toBe(429);
    expect(ApiErrorBody.parse(await res.json()).error.code).toBe('rate_limited');
    // The first attempt and five more: raising or removing the cap makes this fail.
    expect(calls.filter((p) => p.endsWith('/properties/resolve'))).toHaveLength(6);
  });
});
