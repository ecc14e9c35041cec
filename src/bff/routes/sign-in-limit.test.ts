import { afterEach, describe, expect, it, vi } from 'vitest';
import { ApiErrorBody } from '../../contract/index.ts';
import { addressGroup } from '../middleware/sign-in-limit.ts';
import { listen } from '../server.ts';
import { createHarness } from '../test-support/harness.ts';

/*
 * A flood of sign-ins from one address (the demo's public keys make them free) is refused with 429 and
 * Retry-After before it can crowd other people's sessions out of the store; other addresses sign in as usual.
 */
afterEach(() => vi.useRealTimers());

const from = (address: string) => ({ 'X-Forwarded-For': `10.9.9.9, ${address}` });

describe('sign-ins per client address', () => {
  it('takes 30 a minute from one address, refuses the 31st with Retry-After, and takes others meanwhile', async () => {
    vi.useFakeTimers({ toFake: ['Date'], now: new Date('2026-11-25T10:00:00Z') });
    const h = createHarness({ trustProxy: true });
    const signIn = (address: string) =>
      h.call('/api/session', {
        method: 'POST',
        body: { apiKey: 'pi_demo_professional' },
        headers: from(address),
      });
    for (let i = 0; i < 30; i++) expect((await signIn('203.0.113.7')).status).toBe(200);
    const asked = h.upstreamRequests.length;
    vi.setSystemTime(new Date('2026-11-25T10:00:20Z'));
    const refused = await signIn('203.0.113.7');
    expect(refused.status).toBe(429);
    expect(refused.headers.get('retry-after')).toBe('40');
    const { error } = ApiErrorBody.parse(await refused.json());
    expect(error).toMatchObject({
      code: 'too_many_sign_ins',
      message: expect.stringMatching(/try again in 40 s/),
    });
    // Refused before the service is asked.
    expect(h.upstreamRequests.length).toBe(asked);
    // The address the proxy saw decides, not what the client wrote before it.
    expect((await signIn('198.51.100.4')).status).toBe(200);
    vi.setSystemTime(new Date('2026-11-25T10:01:00Z'));
    expect((await signIn('203.0.113.7')).status).toBe(200);
  }, 20_000);

  it('reads X-Forwarded-For only behind a trusted proxy', async () => {
    const h = createHarness({ trustProxy: false });
    for (let i = 0; i < 31; i++) {
      const res = await h.call('/api/session', {
        method: 'POST',
        body: { apiKey: 'pi_demo_professional' },
        headers: from('203.0.113.7'),
      });
      // In-process there is no socket, so no address to count: every sign-in goes through.
      expect(res.status).toBe(200);
    }
  }, 20_000);

  it("counts by the socket's peer over real HTTP", async () => {
    const h = createHarness();
    const server = await listen(h.app.fetch, '127.0.0.1', 0, false);
    try {
      const address = server.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      const signIn = () =>
        fetch(`http://127.0.0.1:${port}/api/session`, {
          method: 'POST',
          headers: { 'Content-Type': 'application/json', 'X-Requested-With': 'proplens' },
          body: JSON.stringify({ apiKey: 'pi_demo_professional' }),
        });
      for (let i = 0; i < 30; i++) expect((await signIn()).status).toBe(200);
      expect((await signIn()).status).toBe(429);
    } finally {
      server.close();
      server.closeAllConnections();
    }
  }, 20_000);

  it('counts an IPv6 client by its /64 (a host can use any address in it), and IPv4-mapped as IPv4', async () => {
    vi.useFakeTimers({ toFake: ['Date'], now: new Date('2026-11-25T10:00:00Z') });
    const h = createHarness({ trustProxy: true });
    const signIn = (address: string) =>
      h.call('/api/session', {
        method: 'POST',
        body: { apiKey: 'pi_demo_professional' },
        headers: from(address),
      });
    // 30 addresses of one /64, written every way.
    for (let i = 0; i < 30; i++) {
      const address = i % 2 ? `2001:db8:0:7::${i.toString(16)}` : `2001:0DB8:0000:0007:${i}:0:0:1`;
      expect((await signIn(address)).status).toBe(200);
    }
    expect((await signIn('2001:db8:0:7:ffff:ffff:ffff:ffff')).status).toBe(429);
    expect((await signIn('2001:db8:0:8::1')).status).toBe(200);
    expect(addressGroup('::FFFF:192.0.2.9')).toBe('192.0.2.9');
    expect(addressGroup('::1')).toBe('0:0:0:0::/64');
    expect(addressGroup('fe80::1:2:3:4')).toBe('fe80:0:0:0::/64');
  }, 20_000);
});
