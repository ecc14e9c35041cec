import { describe, expect, it, vi } from 'vitest';
import { Cancellation } from './cancel.ts';

describe('Cancellation (the per-request cancel token)', () => {
  it('runs each listener once, in order, with the reason set, as AbortSignal does', () => {
    const token = new Cancellation();
    const seen: string[] = [];
    const first = () => seen.push(`first:${String(token.reason)}`);
    token.addEventListener('abort', first);
    token.addEventListener('abort', first); // the same listener twice is one listener
    token.addEventListener('abort', () => seen.push('second'));
    const removed = () => seen.push('removed');
    token.addEventListener('abort', removed);
    token.removeEventListener('abort', removed);
    token.abort('gone');
    token.abort('again');
    expect(token.aborted).toBe(true);
    expect(token.reason).toBe('gone');
    expect(seen).toEqual(['first:gone', 'second']);
    token.addEventListener('abort', () => seen.push('late'));
    expect(seen).toEqual(['first:gone', 'second']);
  });

  it('keeps calling listeners after one throws, and reports the error as uncaught', async () => {
    const token = new Cancellation();
    const reported = vi.fn();
    const original = globalThis.queueMicrotask;
    globalThis.queueMicrotask = (task) =>
      original(() => {
        try {
          task();
        } catch (err) {
          reported(err);
        }
      });
    try {
      const after = vi.fn();
      token.addEventListener('abort', () => {
        throw new Error('listener failed');
      });
      token.addEventListener('abort', after);
      token.abort();
      expect(after).toHaveBeenCalledOnce();
      await Promise.resolve();
      expect(reported).toHaveBeenCalledWith(new Error('listener failed'));
    } finally {
      globalThis.queueMicrotask = original;
    }
  });
});
