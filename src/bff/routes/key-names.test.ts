import { describe, expect, it } from 'vitest';
import { ApiErrorBody, KeyNamesResponse, keyName, SessionResponse } from '../../contract/index.ts';
import { DEMO_KEYS } from '../../reference/accounts.ts';
import { reviewDatabase } from '../test-support/review-database.ts';

/*
 * People, not fingerprints (issue 27): a key can be given its holder's name, at sign-in or later; every key of the
 * account sees the names; a demo visitor has one name for the visit; a name that would mislead is refused.
 */

const reviews = reviewDatabase('key-names');
const COLLEAGUE = 'pi_demo_professional_2';

const session = async (res: Response) => {
  expect(res.status, await res.clone().text()).toBe(200);
  return SessionResponse.parse(await res.json());
};

describe('names on keys', () => {
  it('keeps the name given at sign-in or in Settings, and every key of the account reads it', async () => {
    const h = reviews.make();
    const dana = await session(
      await h.call('/api/session', {
        method: 'POST',
        body: { apiKey: 'pi_demo_professional', name: ' Dana Ortiz ' },
      }),
    );
    expect(dana.keyName).toBe('Dana Ortiz');
    // Signing in again without a name keeps it.
    expect((await session(await h.signIn())).keyName).toBe('Dana Ortiz');
    const renamed = await session(
      await h.call('/api/session/name', { method: 'PUT', body: { name: 'Dana O.' } }),
    );
    expect(renamed.keyName).toBe('Dana O.');

    h.cookie = '';
    const colleague = await session(await h.signIn(COLLEAGUE));
    expect(colleague.keyName).toBeNull();
    expect(colleague.accountId).toBe(dana.accountId);
    const keys = KeyNamesResponse.parse(await (await h.call('/api/account/keys')).json()).keys;
    expect(keys).toEqual([{ fingerprint: dana.keyFingerprint, name: 'Dana O.' }]);

    // An empty name takes it off.
    h.cookie = '';
    await h.signIn();
    expect(
      (await session(await h.call('/api/session/name', { method: 'PUT', body: { name: '' } }))).keyName,
    ).toBeNull();
    expect(KeyNamesResponse.parse(await (await h.call('/api/account/keys')).json()).keys).toEqual([]);
  });

  it('refuses a name that would mislead or is too long, and answers 401 without a session', async () => {
    const h = reviews.make();
    await h.signIn();
    // Review finding R22: a name with something invisible inside could pass for a colleague's.
    const hidden = [
      'Dana\u200bOrtiz',
      'Dana\u00adOrtiz',
      'Dana\u2028Ortiz',
      'Dana\nOrtiz',
      'Dana\ufeffOrtiz',
    ];
    for (const name of ['Dana\u202eztrO', 'x'.repeat(61), '\u200b\u200b', ...hidden])
      expect(
        ApiErrorBody.parse(
          await (await h.call('/api/session/name', { method: 'PUT', body: { name } })).json(),
        ).error.code,
      ).toBe('bad_request');
    // Joiners that shape a script or an emoji are part of a name.
    for (const name of ['\u0645\u0647\u200c\u0633\u0627', 'Dana \u{1F469}\u200d\u{1F4BB}'])
      expect(keyName.safeParse(name).success).toBe(true);
    h.cookie = '';
    expect((await h.call('/api/account/keys')).status).toBe(401);
    expect((await h.call('/api/session/name', { method: 'PUT', body: { name: 'Eve' } })).status).toBe(401);
  });

  it('names a demo visitor for the visit, and forgets the name they gave at sign-out', async () => {
    const h = reviews.make({ demoKeys: [...DEMO_KEYS] });
    const visitor = await session(await h.signIn('pi_demo_professional'));
    expect(visitor.keyName).toBe(`Visitor ${visitor.keyFingerprint?.slice(0, 4).toUpperCase()}`);
    await session(await h.call('/api/session/name', { method: 'PUT', body: { name: 'Sam from sales' } }));
    expect((await session(await h.call('/api/session'))).keyName).toBe('Sam from sales');
    await h.call('/api/session', { method: 'DELETE' });
    h.cookie = '';
    await h.signIn(COLLEAGUE);
    expect(KeyNamesResponse.parse(await (await h.call('/api/account/keys')).json()).keys).toEqual([]);
  });

  it('shows a demo visitor no other visitor’s name (review finding R10: strangers share the demo account)', async () => {
    const h = reviews.make({ demoKeys: [...DEMO_KEYS] });
    const names = async () => KeyNamesResponse.parse(await (await h.call('/api/account/keys')).json()).keys;
    await h.signIn('pi_demo_professional');
    await session(await h.call('/api/session/name', { method: 'PUT', body: { name: 'Dana Ortiz' } }));
    const dana = await names();
    expect(dana.map((k) => k.name)).toEqual(['Dana Ortiz']);
    // Another visitor, who closed nothing and signed out of nothing: sees only their own.
    h.cookie = '';
    await h.signIn('pi_demo_professional');
    await session(await h.call('/api/session/name', { method: 'PUT', body: { name: 'Sam' } }));
    expect((await names()).map((k) => k.name)).toEqual(['Sam']);
  });

  it('refuses to name a key other than the one the form showed (review finding R7: another tab signed in)', async () => {
    const h = reviews.make();
    const alice = await session(await h.signIn());
    // The same browser signs in with a colleague's key in another tab: the cookie now holds that key.
    const bob = await session(await h.signIn(COLLEAGUE));
    const stale = await h.call('/api/session/name', {
      method: 'PUT',
      body: { name: 'Alice Adams (lead)', fingerprint: alice.keyFingerprint },
    });
    expect(stale.status).toBe(409);
    expect(ApiErrorBody.parse(await stale.json()).error.message).toContain(
      `signed in with another key now (key ${bob.keyFingerprint})`,
    );
    expect((await session(await h.call('/api/session'))).keyName ?? null).not.toBe('Alice Adams (lead)');
    const own = await h.call('/api/session/name', {
      method: 'PUT',
      body: { name: 'Bob Brown', fingerprint: bob.keyFingerprint },
    });
    expect((await session(own)).keyName).toBe('Bob Brown');
  });
});
