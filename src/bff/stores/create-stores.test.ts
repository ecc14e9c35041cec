import { describe, expect, it } from 'vitest';
import { readBffConfig } from '../env.ts';
import { createStores } from './create-stores.ts';

const SECRET = 's'.repeat(32);

describe('configuring the Redis stores', () => {
  it('keeps everything in memory unless REDIS_URL is set', async () => {
    const config = readBffConfig({});
    expect(config.redisUrl).toBeUndefined();
    const stores = createStores(config);
    expect(stores.kind).toBe('memory');
    expect(stores.redis).toBeUndefined();
    await stores.close();
  });

  it('requires SESSION_SECRET with REDIS_URL, listed with every other bad variable', () => {
    expect(() => readBffConfig({ REDIS_URL: 'redis://127.0.0.1:6379', PORT: 'eighty' })).toThrow(
      /PORT: must be a whole number[\s\S]*SESSION_SECRET: required when REDIS_URL is set/,
    );
    expect(() => readBffConfig({ REDIS_URL: 'redis://127.0.0.1:6379', SESSION_SECRET: 'short' })).toThrow(
      /SESSION_SECRET: must be at least 32 characters/,
    );
  });

  it('accepts redis:// and rediss:// (TLS), and never echoes a bad URL, which may hold a password', () => {
    expect(
      readBffConfig({ REDIS_URL: 'rediss://:pw@cache.example.com:6380', SESSION_SECRET: SECRET }).redisUrl,
    ).toBe('rediss://:pw@cache.example.com:6380');
    let message = '';
    try {
      readBffConfig({ REDIS_URL: 'http://user:hunter2@cache.example.com', SESSION_SECRET: SECRET });
    } catch (err) {
      message = (err as Error).message;
    }
    expect(message).toMatch(/REDIS_URL: must be a redis:\/\/ or rediss:\/\/ \(TLS\) URL/);
    expect(message).not.toContain('hunter2');
  });

  it('gives every replica with the same SESSION_SECRET the same cursor secret, unless CURSOR_SECRET is set', async () => {
    const env = { REDIS_URL: 'redis://127.0.0.1:1', SESSION_SECRET: SECRET, LOG_LEVEL: 'silent' };
    const a = createStores(readBffConfig(env));
    const b = createStores(readBffConfig(env));
    const other = createStores(readBffConfig({ ...env, SESSION_SECRET: 't'.repeat(32) }));
    const explicit = createStores(readBffConfig({ ...env, CURSOR_SECRET: 'c'.repeat(32) }));
    expect(a.kind).toBe('redis');
    expect(a.cursorSecret).toBe(b.cursorSecret);
    expect(a.cursorSecret).not.toBe(other.cursorSecret);
    expect(a.cursorSecret).not.toContain(SECRET);
    expect(explicit.cursorSecret).toBe('c'.repeat(32));
    await Promise.all([a, b, other, explicit].map((s) => s.close()));
  });
});
