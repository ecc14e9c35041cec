import { describe, expect, it } from 'vitest';
import { describeMatch, ResolveMiss, ResolveResponse } from '../../contract/index.ts';
import { createHarness } from '../test-support/harness.ts';
import type { UpstreamHandler } from '../test-support/in-process-upstream.ts';

/** A provider that signs in any key and answers every other call with `status` and `body`. */
function answering(status: number, body: unknown): UpstreamHandler {
  return (async (request: Request) => {
    const url = new URL(request.url);
    const me = url.pathname.endsWith('/auth/me');
    return new Response(JSON.stringify(me ? { account: { name: 'Fake Co', plan: 'enterprise' } } : body), {
      status: me ? 200 : status,
      headers: {
        'content-type': 'application/json',
        'x-ratelimit-limit': '100',
        'x-ratelimit-remaining': '99',
        'x-ratelimit-reset': '30',
      },
    });
  }) satisfies UpstreamHandler;
}

describe('the resolve answer explains the match', () => {
  it('says what a typo corrected and what was inferred', async () => {
    const h = createHarness();
    await h.signIn();
    const parsed = ResolveResponse.parse(await (await h.resolve('1100 Congres Ave, Austn, TX')).json());
    expect(parsed.property.address).toBe('1100 Congress Ave, Austin, TX 78701');
    expect(parsed.match?.typed).toBe('1100 Congres Ave, Austn, TX');
    expect(parsed.match?.matched).toBe('1100 Congress Ave, Austin, TX 78701');
    expect(describeMatch(parsed.match ?? { changes: [] })).toBe(
      'corrected: Congres → Congress, Austn → Austin; added: ZIP 78701',
    );
  });

  it('says nothing when the address was only written differently, even from cache', async () => {
    const h = createHarness();
    await h.signIn();
    await h.resolve('1100 Congres Ave, Austn, TX 78701');
    const exact = ResolveResponse.parse(
      await (await h.resolve('1100 CONGRESS AVENUE, Austin TX 78701')).json(),
    );
    expect(exact.match).toBeNull();
    // The cache folds case and spacing; each spelling still gets its own explanation.
    const again = ResolveResponse.parse(await (await h.resolve('1100 congres ave, austn, tx 78701')).json());
    expect(describeMatch(again.match ?? { changes: [] })).toBe(
      'corrected: congres → Congress, austn → Austin',
    );
  });
});

describe('candidates carry what the upstream says about them', () => {
  const candidates = [
    { property_id: 'a', address: '100 Main St, Hope, AK 99605', confidence: 'High' },
    { property_id: 'b', address: '100 Main St, Dallas, TX 75376', confidence: 'certain' },
    { property_id: 'c', address: '100 Main St, Ava, NY 13303' },
  ];

  it('an ambiguous answer passes on the total and each candidate’s confidence when readable', async () => {
    const h = createHarness({
      fetch: answering(409, { error: { code: 'ambiguous_address', message: 'x', candidates, total: 569 } }),
    });
    await h.signIn();
    const res = await h.resolve('100 Main St');
    // The upstream's 409 is the BFF's 200: an answer the person acts on, not a failure.
    expect(res.status).toBe(200);
    const { miss: error } = ResolveMiss.parse(await res.json());
    expect(error.code).toBe('ambiguous');
    expect(error.total).toBe(569);
    expect(error.candidates).toEqual([
      { id: 'a', address: '100 Main St, Hope, AK 99605', confidence: 'high' },
      { id: 'b', address: '100 Main St, Dallas, TX 75376' },
      { id: 'c', address: '100 Main St, Ava, NY 13303' },
    ]);
  });

  it.each([['many'], [-1], [2], [1.5]])('a total of %j is not a count and is left out', async (total) => {
    const h = createHarness({
      fetch: answering(409, { error: { code: 'ambiguous_address', message: 'x', candidates, total } }),
    });
    await h.signIn();
    const { miss: error } = ResolveMiss.parse(await (await h.resolve('100 Main St')).json());
    expect(error.candidates).toHaveLength(3);
    expect(error).not.toHaveProperty('total');
  });

  it('a not-found answer’s suggestions carry their confidence too', async () => {
    const h = createHarness({
      fetch: answering(404, { error: { code: 'address_not_found', message: 'x', candidates } }),
    });
    await h.signIn();
    const { miss: error } = ResolveMiss.parse(await (await h.resolve('100 Mian St')).json());
    expect(error.code).toBe('not_found');
    expect(error.candidates?.[0]).toEqual({
      id: 'a',
      address: '100 Main St, Hope, AK 99605',
      confidence: 'high',
    });
  });
});
