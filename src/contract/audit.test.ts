import { describe, expect, it } from 'vitest';
import { ActivityQuery } from './audit.ts';

describe('the Activity filter', () => {
  it('takes a key as the table shows it, in any case, and refuses what is not a fingerprint', () => {
    for (const typed of ['3f9a1c2e', 'key 3f9a1c2e', ' KEY 3F9A1C2E ', 'key3f9a1c2e'])
      expect(ActivityQuery.parse({ key: typed }).key).toBe('3f9a1c2e');
    expect(ActivityQuery.safeParse({ key: 'key 3f9a' }).success).toBe(false);
    expect(ActivityQuery.safeParse({ key: 'sk_live_3f9a1c2e' }).success).toBe(false);
  });
});
