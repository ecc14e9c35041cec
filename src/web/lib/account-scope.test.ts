import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import {
  type AccountChange,
  currentAccount,
  enterAccount,
  isAnotherAccount,
  leaveAccount,
  onAccountChange,
  resetAccountScope,
  watchOtherTabs,
} from './account-scope.ts';

const changes: AccountChange[] = [];
let unsubscribe = () => {};
beforeEach(() => {
  localStorage.clear();
  resetAccountScope();
  changes.length = 0;
  unsubscribe = onAccountChange((c) => changes.push(c));
});
afterEach(() => unsubscribe());

describe('whose data the page holds', () => {
  it('a first sign-in clears nothing; the same account again changes nothing', () => {
    expect(enterAccount('acct-a')).toBe(false);
    expect(changes).toEqual([{ accountId: 'acct-a', cleared: false }]);
    expect(enterAccount('acct-a')).toBe(false);
    expect(changes).toHaveLength(1);
    expect(currentAccount()).toBe('acct-a');
  });

  it('another account clears the previous one’s data', () => {
    enterAccount('acct-a');
    expect(isAnotherAccount('acct-b')).toBe(true);
    expect(isAnotherAccount('acct-a')).toBe(false);
    expect(enterAccount('acct-b')).toBe(true);
    expect(changes.at(-1)).toEqual({ accountId: 'acct-b', cleared: true });
  });

  it('notices a switch after a reload, from the account id left in storage (never the key)', async () => {
    enterAccount('acct-a');
    expect(localStorage.getItem('proplens.account')).toBe('acct-a');
    // A reload: a fresh copy of the module, with no account in memory.
    vi.resetModules();
    const reloaded = await import('./account-scope.ts');
    expect(reloaded.currentAccount()).toBeNull();
    expect(reloaded.isAnotherAccount('acct-b')).toBe(true);
    expect(reloaded.isAnotherAccount('acct-a')).toBe(false);
  });

  it('sign-out clears everything and forgets the account', () => {
    enterAccount('acct-a');
    leaveAccount();
    expect(currentAccount()).toBeNull();
    expect(localStorage.getItem('proplens.account')).toBeNull();
    expect(changes.at(-1)).toEqual({ accountId: null, cleared: true });
    expect(isAnotherAccount('acct-b')).toBe(false);
  });

  it('another tab signing out or in as someone else clears this page and asks who is signed in', () => {
    enterAccount('acct-a');
    const asked = vi.fn();
    const stop = watchOtherTabs(asked);
    // The same account in the other tab: nothing to do.
    window.dispatchEvent(new StorageEvent('storage', { key: 'proplens.account', newValue: 'acct-a' }));
    expect(asked).not.toHaveBeenCalled();
    localStorage.setItem('proplens.account', 'acct-b');
    window.dispatchEvent(new StorageEvent('storage', { key: 'proplens.account', newValue: 'acct-b' }));
    expect(asked).toHaveBeenCalledTimes(1);
    expect(changes.at(-1)).toEqual({ accountId: null, cleared: true });
    expect(currentAccount()).toBeNull();
    stop();
  });
});
