import { describe, expect, it } from 'vitest';
import { AuditQuery, keyFilterFingerprint } from './audit.ts';

describe('the Activity filter', () => {
  it('reads the fingerprint a key filter names as the table shows it, in any case; anything else is a name', () => {
    for (const typed of [
      '3f9a1c2e',
      'key 3f9a1c2e',
      ' KEY 3F9A1C2E ',
      'key3f9a1c2e',
      'Dana Ortiz (key 3F9A1C2E)',
    ])
      expect(keyFilterFingerprint(AuditQuery.parse({ key: typed }).key as string)).toBe('3f9a1c2e');
    // Not a fingerprint: looked up by the BFF as a key's name (and refused there when nobody has it).
    for (const typed of ['key 3f9a', 'sk_live_3f9a1c2e', 'Dana Ortiz'])
      expect(keyFilterFingerprint(typed)).toBeNull();
    expect(AuditQuery.safeParse({ key: '   ' }).success).toBe(false);
    expect(AuditQuery.safeParse({ key: 'x'.repeat(101) }).success).toBe(false);
  });
});
