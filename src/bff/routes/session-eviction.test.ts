import { describe, expect, it } from 'vitest';
import { DEMO_KEYS } from '../../reference/accounts.ts';
import { readBffConfig } from '../env.ts';
import { createLogger } from '../logger.ts';
import { createStores } from '../stores/create-stores.ts';
import { createHarness } from '../test-support/harness.ts';

/*
 * Two clients over HTTP against a store of 10 sessions: an agent signed in from one address, and a flood of
 * demo sign-ins (free: the keys are public) from another address and then from many. The agent's session
 * stays usable throughout; each flood evicts its own sessions (SessionStore.create's rule).
 */
const CAP = 10;

describe('a full session store under a flood of sign-ins', () => {
  it('keeps a signed-in agent’s session, whoever floods and from however many addresses', async () => {
    const stores = createStores({ ...readBffConfig({}), sessionMaxCount: CAP }, createLogger('silent'));
    const h = createHarness({ trustProxy: true, stores, demoKeys: [...DEMO_KEYS] });
    const from = (address: string) => ({ 'X-Forwarded-For': address });
    // Each sign-in as a client of its own: no cookie sent (the jar's would end that session).
    const signIn = (apiKey: string, address: string) => {
      h.cookie = '';
      return h.call('/api/session', { method: 'POST', body: { apiKey }, headers: from(address) });
    };

    expect((await signIn('pi_demo_enterprise', '198.51.100.4')).status).toBe(200);
    const agent = h.cookie;
    const me = () => h.call('/api/session', { headers: { ...from('198.51.100.4'), cookie: agent } });
    expect((await me()).status).toBe(200);

    // A visitor trying the demo from their own address, before the flood.
    expect((await signIn('pi_demo_professional', '192.0.2.50')).status).toBe(200);
    const visitor = h.cookie;

    // 30 a minute from one address (SIGN_IN_RATE_PER_MINUTE), three times the store.
    const flood: string[] = [];
    for (let i = 0; i < 3 * CAP; i++) {
      expect((await signIn('pi_demo_professional', '203.0.113.7')).status).toBe(200);
      flood.push(h.cookie);
    }
    expect((await me()).status).toBe(200);
    const visitorMe = await h.call('/api/session', { headers: { cookie: visitor } });
    expect(visitorMe.status).toBe(200);
    // The flood's own first sessions went; its latest is there.
    expect((await h.call('/api/session', { headers: { cookie: flood[0] as string } })).status).toBe(401);
    expect((await h.call('/api/session', { headers: { cookie: flood.at(-1) as string } })).status).toBe(200);

    // The same from 60 addresses, once each: the rate limit per address never bites.
    for (let i = 0; i < 6 * CAP; i++) {
      expect((await signIn('pi_demo_professional', `203.0.113.${100 + i}`)).status).toBe(200);
    }
    expect((await me()).status).toBe(200);
    expect(await stores.sessions.count?.()).toBe(CAP);
  }, 30_000);
});
