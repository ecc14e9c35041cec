import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { openAesGcm, sealAesGcm } from './aes-gcm.ts';

/* The one AES-256-GCM of PropLens: what it seals opens only whole, with its key and its additional data. */
describe('AES-256-GCM seal and open', () => {
  const key = randomBytes(32);
  const aad = Buffer.from('account-1');

  it('opens what it sealed, and nothing with another key, other additional data or a changed byte', () => {
    const sealed = sealAesGcm(key, aad, 'pi_live_secret');
    expect(openAesGcm(key, aad, sealed)).toBe('pi_live_secret');
    expect(openAesGcm(randomBytes(32), aad, sealed)).toBeNull();
    expect(openAesGcm(key, Buffer.from('account-2'), sealed)).toBeNull();
    const body = Buffer.from(sealed.body);
    body[0] = (body[0] as number) ^ 1;
    expect(openAesGcm(key, aad, { ...sealed, body })).toBeNull();
  });

  it('refuses a truncated tag, even one whose bytes are the real tag’s first (hostile review M11)', () => {
    const sealed = sealAesGcm(key, aad, 'pi_live_secret');
    for (const length of [4, 8, 12, 15])
      expect(
        openAesGcm(key, aad, { ...sealed, tag: sealed.tag.subarray(0, length) }),
        String(length),
      ).toBeNull();
    expect(openAesGcm(key, aad, { ...sealed, iv: Buffer.concat([sealed.iv, Buffer.alloc(4)]) })).toBeNull();
  });
});
