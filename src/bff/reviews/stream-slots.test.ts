import { describe, expect, it } from 'vitest';
import { StreamSlots } from './stream-slots.ts';

describe('StreamSlots', () => {
  it('limits live views per sign-in and per account, and gives a slot back once, when released', () => {
    const slots = new StreamSlots({ perSession: 2, perAccount: 3 });
    const a1 = slots.take('s1', 'acct');
    slots.take('s1', 'acct');
    expect(() => slots.take('s1', 'acct')).toThrow(/At most 2 reviews/);
    slots.take('s2', 'acct');
    // The account is full though s3 has none yet.
    expect(() => slots.take('s3', 'acct')).toThrow(/follows 3 reviews live already/);
    expect(() => slots.take('s3', 'other')).not.toThrow();
    a1();
    a1();
    slots.take('s4', 'acct');
    expect(() => slots.take('s5', 'acct')).toThrow(/follows 3 reviews/);
  });
});
