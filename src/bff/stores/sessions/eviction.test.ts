import { describe, expect, it } from 'vitest';
import { redisServerAvailable, useTestRedis } from '../../test-support/test-redis.ts';
import { deriveSecrets, RedisKeys } from '../redis-keys.ts';
import { MemorySessionStore } from './memory.ts';
import { RedisSessionStore } from './redis.ts';
import { keyFingerprint, type SessionLimits, type SessionStore } from './types.ts';

/*
 * A full store and a flood of sign-ins (SessionStore.create's rule), on both stores: the flood evicts its own
 * sessions, never another account's established one, and within its own account its own address's first.
 */

const account = { name: 'Harbor & Vale Realty', plan: 'professional' as const };
const agent = {
  apiKey: 'pi_agent',
  keyHash: 'a'.repeat(64),
  account,
  accountId: 'acct-agent',
  client: '10.0.0.1',
};
const visitor = {
  apiKey: 'pi_demo_v1',
  keyHash: 'b'.repeat(64),
  account,
  accountId: 'acct-demo',
  client: '10.0.0.2',
};
const flood = (i: number, client = '10.0.0.9') => ({
  apiKey: `pi_demo_f${i}`,
  keyHash: i.toString(16).padStart(64, 'f'),
  account,
  accountId: 'acct-demo',
  client,
});
const MAX = 20;
const limits: SessionLimits = { idleMs: 30 * 60_000, absoluteMs: 12 * 3_600_000, maxSessions: MAX };

type Make = (now: { t: number }, overrides?: Partial<SessionLimits>) => SessionStore;

function suite(name: string, make: () => Make) {
  describe(name, () => {
    it('a flood of sign-ins from one address evicts its own sessions: an agent and a visitor elsewhere stay', async () => {
      const now = { t: 1_000_000 };
      const store = make()(now);
      const mine = await store.create(agent);
      const theirs = await store.create(visitor);
      // Some colleagues of the agent, from the office's other address.
      for (let i = 0; i < 3; i++) await store.create({ ...agent, client: '10.0.0.3' });
      let last = '';
      for (let i = 0; i < MAX * 10; i++) {
        now.t += 10;
        last = await store.create(flood(i));
      }
      expect((await store.get(mine))?.apiKey).toBe('pi_agent');
      expect((await store.get(theirs))?.apiKey).toBe('pi_demo_v1');
      expect((await store.get(last))?.apiKey).toBe(`pi_demo_f${MAX * 10 - 1}`);
      expect(await store.liveAccounts()).toEqual(expect.arrayContaining(['acct-agent', 'acct-demo']));
      if (store.count) expect(await store.count()).toBe(MAX);
    });

    it('a flood from many addresses on one account evicts that account’s sessions, not another account’s', async () => {
      const now = { t: 1_000_000 };
      const store = make()(now);
      // The agent signed in first and has been idle since: the least recently used session of all.
      const mine = await store.create(agent);
      const colleague = await store.create({ ...agent, apiKey: 'pi_agent_2', client: '10.0.0.4' });
      for (let i = 0; i < MAX * 10; i++) {
        now.t += 10;
        await store.create(flood(i, `192.0.2.${i % 250}`));
      }
      expect((await store.get(mine))?.apiKey).toBe('pi_agent');
      expect((await store.get(colleague))?.apiKey).toBe('pi_agent_2');
      if (store.count) expect(await store.count()).toBe(MAX);
    });

    it('an account signing in past the cap gives up its own oldest session before anyone else’s', async () => {
      const now = { t: 1_000_000 };
      const store = make()(now);
      const others = [];
      for (let i = 0; i < MAX / 2; i++) others.push(await store.create(flood(i, `192.0.2.${i}`)));
      const agents = [];
      for (let i = 0; i < MAX / 2; i++) {
        now.t += 10;
        agents.push(await store.create({ ...agent, apiKey: `pi_agent_${i}` }));
      }
      // Full; the agent's account now holds as many as the demo: its next sign-in costs its own oldest.
      now.t += 10;
      await store.create({ ...agent, apiKey: 'pi_agent_new' });
      expect(await store.get(agents[0] as string)).toBeUndefined();
      for (const id of [...agents.slice(1), ...others]) expect(await store.get(id)).toBeDefined();
    });

    it('what an account gives up is its session idle longest: one in use stays, however early it signed in', async () => {
      const now = { t: 1_000_000 };
      const store = make()(now);
      for (let i = 0; i < MAX / 2; i++) await store.create(flood(i, `192.0.2.${i}`));
      const agents = [];
      for (let i = 0; i < MAX / 2; i++) {
        now.t += 10;
        agents.push(await store.create({ ...agent, apiKey: `pi_agent_${i}` }));
      }
      // The first to sign in is the one searching all morning; the second has not been seen since.
      now.t += 10;
      expect(await store.get(agents[0] as string)).toBeDefined();
      expect(await store.get(agents[0] as string)).toBeDefined();
      now.t += 10;
      await store.create({ ...agent, apiKey: 'pi_agent_new' });
      expect(await store.get(agents[1] as string)).toBeUndefined();
      expect((await store.get(agents[0] as string))?.apiKey).toBe('pi_agent_0');
    });

    it('tells whether a key is signed in from every session of its account, not the ten used last', async () => {
      const now = { t: 1_000_000 };
      const store = make()(now);
      await store.create(visitor);
      for (let i = 0; i < 12; i++) {
        now.t += 10;
        await store.create(flood(i, `192.0.2.${i}`));
      }
      expect(await store.holdsKey('acct-demo', keyFingerprint(visitor.keyHash))).toBe(true);
      expect(await store.holdsKey('acct-demo', keyFingerprint(agent.keyHash))).toBe(false);
      expect(await store.holdsKey('acct-agent', keyFingerprint(visitor.keyHash))).toBe(false);
    });

    it('sessions that have expired go before any live one', async () => {
      const now = { t: 1_000_000 };
      const store = make()(now, { idleMs: 1_000 });
      const stale = await store.create(flood(1));
      now.t += 2_000;
      const live = [];
      for (let i = 0; i < MAX; i++) live.push(await store.create({ ...agent, apiKey: `pi_agent_${i}` }));
      for (const id of live) expect(await store.get(id)).toBeDefined();
      expect(await store.get(stale)).toBeUndefined();
    });
  });
}

suite('MemorySessionStore eviction', () => (now, overrides) =>
  new MemorySessionStore({ ...limits, ...overrides }, () => now.t));

it('MemorySessionStore: a look at whether a key is signed in is not a use, and its session idles out', async () => {
  const now = { t: 1_000_000 };
  const store = new MemorySessionStore(limits, () => now.t);
  const id = await store.create(visitor);
  for (let minute = 0; minute < 29; minute++) {
    now.t += 60_000;
    expect(await store.holdsKey('acct-demo', keyFingerprint(visitor.keyHash))).toBe(true);
  }
  now.t += 2 * 60_000;
  expect(await store.holdsKey('acct-demo', keyFingerprint(visitor.keyHash))).toBe(false);
  expect(await store.get(id)).toBeUndefined();
});

describe.skipIf(!redisServerAvailable())('RedisSessionStore eviction', () => {
  const local = useTestRedis();
  const secrets = deriveSecrets('a-session-secret-of-at-least-32-characters');
  const keys = new RedisKeys(secrets.namesKey);
  suite('on a real redis-server', () => (now, overrides) =>
    new RedisSessionStore(local.redis, keys, secrets.sessionKey, { ...limits, ...overrides }, () => now.t));
});
