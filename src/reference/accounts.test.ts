import { randomBytes } from 'node:crypto';
import type { Runtime } from 'node:inspector';
import { Session } from 'node:inspector/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AccountDirectory, hashKey } from './accounts.ts';

/**
 * Every string reachable from `value`, private class fields and Map/Set entries included: JavaScript code
 * cannot see `#fields` (Object.values of such an object is always []), V8's inspector can.
 */
async function reachableStrings(session: Session, value: object): Promise<string[]> {
  const slot = Symbol.for('proplens.accounts-test.probe');
  (globalThis as Record<symbol, unknown>)[slot] = value;
  try {
    const root = await session.post('Runtime.evaluate', {
      expression: `globalThis[Symbol.for(${JSON.stringify(slot.description)})]`,
    });
    const strings: string[] = [];
    const queue: { id: string; depth: number }[] = [{ id: root.result.objectId as string, depth: 0 }];
    for (let seen = 0; queue.length > 0 && seen < 500; seen++) {
      const { id, depth } = queue.shift() as { id: string; depth: number };
      // @types/node 20 leaves privateProperties out of the protocol's types; V8 sends it.
      const props = (await session.post('Runtime.getProperties', {
        objectId: id,
        ownProperties: true,
      })) as Runtime.GetPropertiesReturnType & { privateProperties?: Runtime.InternalPropertyDescriptor[] };
      const values = [
        ...props.result.filter((p) => p.name !== '__proto__').map((p) => p.value),
        ...(props.internalProperties ?? []).filter((p) => p.name !== '[[Prototype]]').map((p) => p.value),
        ...(props.privateProperties ?? []).map((p) => p.value),
      ];
      for (const v of values) {
        if (v?.type === 'string') strings.push(String(v.value));
        else if (v?.type === 'object' && v.objectId && depth < 8)
          queue.push({ id: v.objectId, depth: depth + 1 });
      }
    }
    return strings;
  } finally {
    delete (globalThis as Record<symbol, unknown>)[slot];
  }
}

describe('AccountDirectory', () => {
  const session = new Session();
  beforeAll(() => session.connect());
  afterAll(() => session.disconnect());

  it('keeps keys only as hashes', async () => {
    const key = `pi_live_${randomBytes(12).toString('hex')}`;
    const dir = new AccountDirectory({});
    dir.add(key, { id: 'a', name: 'A', plan: 'enterprise' });
    const strings = await reachableStrings(session, dir);
    // The walk reaches the private map: it finds the hash and the account, so the next line can fail.
    expect(strings).toEqual(expect.arrayContaining([hashKey(key), 'a', 'A', 'enterprise']));
    expect(strings.filter((s) => s.includes(key))).toEqual([]);
    expect(dir.find(key)?.id).toBe('a');
  });

  it('forgets a revoked key', () => {
    const dir = new AccountDirectory();
    expect(dir.find('pi_demo_professional')?.plan).toBe('professional');
    dir.revoke('pi_demo_professional');
    expect(dir.find('pi_demo_professional')).toBeUndefined();
    expect(dir.find('pi_demo_enterprise')?.plan).toBe('enterprise');
  });
});
