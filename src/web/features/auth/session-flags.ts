import { useSyncExternalStore } from 'react';

/**
 * What the page knows about how the last session ended, for the key screen's wording and its `next=` link:
 * `ended` when a session stopped working while in use (not on a first visit), `signedOut` after Sign out
 * (the open page was that account's, not a place to come back to). A small store, not data faked into the
 * query cache: nothing fetches it.
 */
export interface SessionFlags {
  ended: boolean;
  signedOut: boolean;
}

const CLEAR: SessionFlags = { ended: false, signedOut: false };
let flags: SessionFlags = CLEAR;
const listeners = new Set<() => void>();

export const sessionFlags = {
  get: (): SessionFlags => flags,
  set(next: Partial<SessionFlags>): void {
    flags = { ...flags, ...next };
    for (const listener of listeners) listener();
  },
  /** A new sign-in starts with neither. */
  clear(): void {
    sessionFlags.set(CLEAR);
  },
  subscribe(listener: () => void): () => void {
    listeners.add(listener);
    return () => void listeners.delete(listener);
  },
};

export const useSessionFlags = (): SessionFlags =>
  useSyncExternalStore(sessionFlags.subscribe, sessionFlags.get, sessionFlags.get);
