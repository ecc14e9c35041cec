import { describe, expect, it } from 'vitest';
import { redisServerAvailable, useTestRedis } from '../../test-support/test-redis.ts';
import { RedisConnection } from '../redis-connection.ts';
import { deriveSecrets, RedisKeys } from '../redis-keys.ts';
import { RedisSessionStore } from './redis.ts';
import { keyFingerprint } from './types.ts';

const SECRET = 'a-session-secret-of-at-least-32-characters';
const API_KEY = 'pi_live_4f9a8b7c6d5e4f3a2b1c';
const account = { name: 'Harbor & Vale Realty', plan: 'professional' as const };
const limits = { idleMs: 30 * 60_000, absoluteMs: 12 * 3_600_000, maxSessions: 100 };

describe.skipIf(!redisServerAvailable())('RedisSessionStore', () => {
  const local = useTestRedis();
  const secrets = deriveSecrets(SECRET);
  const keys = new RedisKeys(secrets.namesKey);
  const make = (
    now: { t: number },
    overrides: Partial<typeof limits> = {},
    sessionKey = secrets.sessionKey,
  ) => new RedisSessionStore(local.redis, keys, sessionKey, { ...limits, ...overrides }, () => now.t);
  const session = { apiKey: API_KEY, keyHash: 'c0ffee'.repeat(10), account, accountId: 'acct-coffee' };

  it('lends any replica a live session of an account by a handle that is not the cookie', async () => {
    const now = { t: 1_000_000 };
    const a = make(now);
    const b = make(now);
    const id = await a.create(session);
    await a.create({ ...session, apiKey: 'pi_other', keyHash: 'beef'.repeat(16), accountId: 'acct-other' });
    expect((await b.liveAccounts()).sort()).toEqual(['acct-coffee', 'acct-other']);
    const lent = await b.sessionFor('acct-coffee');
    expect(lent?.session.apiKey).toBe(API_KEY);
    expect(lent?.ref).not.toBe(id);
    expect(await b.get(lent?.ref ?? '')).toBeUndefined();
    await b.refuseKey({ accountId: 'acct-coffee', keyHash: lent?.session.keyHash ?? '' });
    expect(await a.get(id)).toBeUndefined();
    expect(await b.sessionFor('acct-coffee')).toBeUndefined();
    expect(await b.liveAccounts()).toEqual(['acct-other']);
  });

  it('lends a review its owner’s key first, when a session holds it, else the latest used', async () => {
    const now = { t: 1_000_000 };
    const a = make(now);
    await a.create(session);
    now.t += 1_000;
    await a.create({ ...session, apiKey: 'pi_colleague', keyHash: 'beef'.repeat(16) });
    expect((await a.sessionFor('acct-coffee'))?.session.apiKey).toBe('pi_colleague');
    expect((await a.sessionFor('acct-coffee', keyFingerprint(session.keyHash)))?.session.apiKey).toBe(
      API_KEY,
    );
  });

  it('ends every session of a refused key on any replica, and only those: the account’s other keys stay', async () => {
    const now = { t: 1_000_000 };
    const a = make(now);
    const b = make(now);
    const mine = [await a.create(session), await b.create(session)];
    const colleague = await a.create({ ...session, apiKey: 'pi_colleague', keyHash: 'beef'.repeat(16) });
    await b.refuseKey(session);
    for (const id of mine) expect(await a.get(id)).toBeUndefined();
    expect((await a.get(colleague))?.apiKey).toBe('pi_colleague');
    expect((await b.sessionFor('acct-coffee'))?.session.apiKey).toBe('pi_colleague');
    expect(await b.liveAccounts()).toEqual(['acct-coffee']);
    await a.refuseKey({ accountId: 'acct-coffee', keyHash: 'beef'.repeat(16) });
    expect(await b.liveAccounts()).toEqual([]);
  });

  it('is one store for every replica: made on one, used and ended on another', async () => {
    const now = { t: 1_000_000 };
    const a = make(now);
    const b = make(now);
    const id = await a.create(session);
    expect(id).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(await b.get(id)).toEqual({
      ...session,
      auditRef: expect.stringMatching(/^[\w-]{12}$/),
      createdAt: 1_000_000,
      lastSeenAt: 1_000_000,
    });
    await b.delete(id);
    expect(await a.get(id)).toBeUndefined();
  });

  it('holds nothing readable as the key, the session id or the account', async () => {
    const id = await make({ t: 0 }).create(session);
    const names = await local.redis.client.keys('*');
    expect(names.sort()).toEqual(
      [
        keys.session(id),
        keys.sessionIndex(),
        keys.accountSessions(session.accountId),
        keys.liveAccounts(),
        // The cap's bookkeeping: where each session's sets are, each account's count, each address's set.
        'proplens:v1:session-owners',
        'proplens:v1:session-counts',
        `proplens:v1:client-sessions:${keys.name(`${session.accountId}\n`)}`,
        // The account's sessions of one key, for whether that key is signed in (holdsKey).
        `proplens:v1:key-sessions:${keys.name(`${session.accountId}\nkey\n${keyFingerprint(session.keyHash)}`)}`,
      ].sort(),
    );
    const dump = [
      ...names,
      (await local.redis.client.get(keys.session(id))) ?? '',
      ...(await local.redis.client.zrange(keys.sessionIndex(), '0', '-1')),
      ...(await local.redis.client.zrange(keys.accountSessions(session.accountId), '0', '-1')),
      // The account's id is itself one-way (accountIdFor), never the service's account name.
      ...(await local.redis.client.zrange(keys.liveAccounts(), '0', '-1')),
      ...Object.entries(await local.redis.client.hgetall('proplens:v1:session-owners')).flat(),
      ...(await local.redis.client.zrange('proplens:v1:session-counts', '0', '-1')),
      ...(await local.redis.client.zrange(
        `proplens:v1:key-sessions:${keys.name(`${session.accountId}\nkey\n${keyFingerprint(session.keyHash)}`)}`,
        '0',
        '-1',
      )),
    ].join('\n');
    for (const secret of [
      API_KEY,
      Buffer.from(API_KEY).toString('base64'),
      id,
      session.keyHash,
      account.name,
    ]) {
      expect(dump).not.toContain(secret);
    }
    for (const name of names) expect(name.startsWith('proplens:v1:')).toBe(true);
  });

  it('keeps the idle timeout as the key’s expiry, pushed back by each use', async () => {
    const now = { t: 0 };
    const store = make(now);
    const id = await store.create(session);
    const ttl = () => local.redis.client.pttl(keys.session(id));
    expect(await ttl()).toBeGreaterThan(limits.idleMs - 5000);
    expect(await ttl()).toBeLessThanOrEqual(limits.idleMs);
    // As if 29 minutes had passed unused: Redis would end it in a minute.
    await local.redis.client.pexpire(keys.session(id), 60_000);
    now.t = 29 * 60_000;
    expect(await store.get(id)).toBeDefined();
    expect(await ttl()).toBeGreaterThan(limits.idleMs - 5000);
  });

  it('answers whether a key is signed in without pushing any session’s expiry back', async () => {
    const now = { t: 0 };
    const store = make(now);
    const id = await store.create(session);
    const ttl = () => local.redis.client.pttl(keys.session(id));
    await local.redis.client.pexpire(keys.session(id), 60_000);
    expect(await store.holdsKey('acct-coffee', keyFingerprint(session.keyHash))).toBe(true);
    expect(await ttl()).toBeLessThanOrEqual(60_000);
    await local.redis.client.del(keys.session(id)); // idle for 30 minutes: Redis ended it
    expect(await store.holdsKey('acct-coffee', keyFingerprint(session.keyHash))).toBe(false);
  });

  it('tells whether a key is signed in by opening that key’s sessions only, however many others the account has', async () => {
    const now = { t: 0 };
    const read: number[] = [];
    // The connection as the store uses it, counting the session records each MGET asks for.
    const counting = new Proxy(local.redis, {
      get(target, name) {
        if (name !== 'run') return Reflect.get(target, name, target);
        return <T>(work: (r: typeof target.client) => Promise<T>) =>
          target.run((r) =>
            work(
              new Proxy(r, {
                get(client, method) {
                  const value = Reflect.get(client, method, client);
                  if (method !== 'mget' || typeof value !== 'function') return value;
                  return (...keys: string[]) => {
                    read.push(keys.length);
                    return value.apply(client, keys);
                  };
                },
              }),
            ),
          );
      },
    });
    const store = new RedisSessionStore(counting, keys, secrets.sessionKey, limits, () => now.t);
    const demo = { ...session, accountId: 'acct-demo' };
    for (let i = 0; i < 30; i++)
      await store.create({ ...demo, apiKey: `pi_demo_${i}`, keyHash: i.toString(16).padStart(64, 'e') });
    const visitor = await store.create(demo);
    expect(await store.holdsKey('acct-demo', keyFingerprint(demo.keyHash))).toBe(true);
    expect(await store.holdsKey('acct-demo', keyFingerprint('f'.repeat(64)))).toBe(false);
    expect(read).toEqual([1]);
    await store.delete(visitor); // signed out
    expect(await store.holdsKey('acct-demo', keyFingerprint(demo.keyHash))).toBe(false);
  });

  it('ends every session at the absolute timeout, however busy, and never lets it outlive it', async () => {
    const now = { t: 0 };
    const store = make(now);
    const id = await store.create(session);
    now.t = limits.absoluteMs - 10 * 60_000;
    expect(await store.get(id)).toBeDefined();
    // Ten minutes left: the expiry is cut to those, not a full idle timeout.
    const ttl = await local.redis.client.pttl(keys.session(id));
    expect(ttl).toBeLessThanOrEqual(10 * 60_000);
    expect(ttl).toBeGreaterThan(10 * 60_000 - 5000);
    now.t = limits.absoluteMs + 1;
    expect(await store.get(id)).toBeUndefined();
    expect(await local.redis.client.exists(keys.session(id))).toBe(0);
  });

  it('caps the number of sessions, dropping the one idle longest', async () => {
    const now = { t: 0 };
    const store = make(now, { maxSessions: 2 });
    const a = await store.create({ ...session, apiKey: 'a' });
    now.t = 1;
    const b = await store.create({ ...session, apiKey: 'b' });
    now.t = 10;
    await store.get(a); // a is now the most recently used
    now.t = 11;
    const c = await store.create({ ...session, apiKey: 'c' });
    expect(await store.get(b)).toBeUndefined();
    expect((await store.get(a))?.apiKey).toBe('a');
    expect((await store.get(c))?.apiKey).toBe('c');
    expect(await local.redis.client.zcard(keys.sessionIndex())).toBe(2);
  });

  it('opens nothing sealed under another SESSION_SECRET, altered, or moved to another session’s name', async () => {
    const now = { t: 0 };
    const id = await make(now).create(session);
    const other = make(now, {}, deriveSecrets('another-secret-of-at-least-32-characters').sessionKey);
    expect(await other.get(id)).toBeUndefined();

    const store = make(now);
    const victim = await store.create(session);
    const attacker = await store.create({ ...session, apiKey: 'pi_attacker' });
    const sealed = (await local.redis.client.get(keys.session(victim))) as string;
    await local.redis.client.set(keys.session(attacker), sealed);
    expect(await store.get(attacker)).toBeUndefined();

    const parts = sealed.split('.');
    const body = Buffer.from(parts[3] as string, 'base64url');
    body[0] = (body[0] as number) ^ 1;
    parts[3] = body.toString('base64url');
    await local.redis.client.set(keys.session(victim), parts.join('.'));
    expect(await store.get(victim)).toBeUndefined();
  });

  it('treats unknown and absurd cookies as no session, without asking Redis to store anything', async () => {
    const store = make({ t: 0 });
    expect(await store.get('nope')).toBeUndefined();
    expect(await store.get('x'.repeat(10_000))).toBeUndefined();
    expect(await local.redis.client.dbsize()).toBe(0);
  });

  it('answers 503 store_unavailable at once, and says it is not ready, while Redis is away', async () => {
    const gone = new RedisConnection({ url: 'redis://127.0.0.1:1' });
    const store = new RedisSessionStore(gone, keys, secrets.sessionKey, limits);
    const started = Date.now();
    await expect(store.get('a'.repeat(43))).rejects.toMatchObject({ status: 503, code: 'store_unavailable' });
    await expect(store.create(session)).rejects.toMatchObject({ code: 'store_unavailable' });
    expect(await store.ping()).toBe(false);
    expect(Date.now() - started).toBeLessThan(500);
    await gone.close();
  });
});
