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

describe('StreamSlots, an account full', () => {
  it('ends the oldest stream of the client holding the most, so a colleague elsewhere gets a live view', () => {
    const slots = new StreamSlots({ perSession: 6, perAccount: 4 });
    const closed: string[] = [];
    const open = (session: string, client: string, name: string) =>
      slots.take(session, 'acct', client, () => closed.push(name));
    // One visitor, signed in twice from one address, holds every slot.
    open('v1', '203.0.113.9', 'v1-a');
    open('v1', '203.0.113.9', 'v1-b');
    open('v2', '203.0.113.9', 'v2-a');
    open('v2', '203.0.113.9', 'v2-b');
    // The visitor asks for more: refused, nothing of anyone's closed.
    expect(() => open('v3', '203.0.113.9', 'v3-a')).toThrow(/follows 4 reviews live already/);
    expect(closed).toEqual([]);
    // A colleague from another address: the visitor's oldest stream makes room.
    const colleague = open('c1', '198.51.100.7', 'c1-a');
    expect(closed).toEqual(['v1-a']);
    // The visitor's page reconnects: the visitor still holds the most, so it is refused, and the colleague stays.
    expect(() => open('v1', '203.0.113.9', 'v1-c')).toThrow(/follows 4 reviews/);
    expect(closed).toEqual(['v1-a']);
    // The colleague's view ends: its slot is free for anyone.
    colleague();
    open('v1', '203.0.113.9', 'v1-d');
  });

  it("gives a closed stream's slot back once, however often its release is called", () => {
    const slots = new StreamSlots({ perSession: 6, perAccount: 2 });
    const releases = [slots.take('v', 'acct', 'a'), slots.take('v', 'acct', 'a')];
    slots.take('c', 'acct', 'b'); // ends the first of 'a'
    for (const release of releases) {
      release();
      release();
    }
    // One of 'b', and one free: 'c' takes it; then the account is full of two clients with one each.
    slots.take('c', 'acct', 'b');
    expect(() => slots.take('c', 'acct', 'b')).toThrow(/follows 2 reviews/);
  });
});
