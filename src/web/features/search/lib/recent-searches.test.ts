import { act, renderHook } from '@testing-library/react';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { enterAccount, leaveAccount, resetAccountScope } from '../../../lib/account-scope.ts';
import { addRecentSearch, resetRecentSearchesCache, useRecentSearches } from './recent-searches.ts';

const STORAGE_KEY = 'proplens.recent-searches';

beforeEach(() => {
  localStorage.clear();
  resetAccountScope();
});
afterEach(() => resetAccountScope());

describe('recent searches', () => {
  it('belong to the account that made them, and survive a reload for it', () => {
    act(() => void enterAccount('acct-a'));
    const { result } = renderHook(() => useRecentSearches());
    act(() => addRecentSearch('1100 Congress Ave, Austin, TX 78701'));
    act(() => addRecentSearch('233 S Wacker Dr, Chicago, IL 60606'));
    expect(result.current).toEqual([
      '233 S Wacker Dr, Chicago, IL 60606',
      '1100 Congress Ave, Austin, TX 78701',
    ]);
    expect(JSON.parse(localStorage.getItem(STORAGE_KEY) ?? '{}').account).toBe('acct-a');
  });

  it('are never offered to another account, and are gone from the browser when it signs in', () => {
    act(() => void enterAccount('acct-a'));
    const { result } = renderHook(() => useRecentSearches());
    act(() => addRecentSearch('1100 Congress Ave, Austin, TX 78701'));
    act(() => void enterAccount('acct-b'));
    expect(result.current).toEqual([]);
    expect(localStorage.getItem(STORAGE_KEY)).toBeNull();
  });

  it('are gone on sign-out', () => {
    act(() => void enterAccount('acct-a'));
    const { result } = renderHook(() => useRecentSearches());
    act(() => addRecentSearch('1100 Congress Ave, Austin, TX 78701'));
    act(() => leaveAccount());
    expect(result.current).toEqual([]);
    expect(localStorage.getItem(STORAGE_KEY)).toBeNull();
    // Signed out, nothing is recorded.
    act(() => addRecentSearch('233 S Wacker Dr, Chicago, IL 60606'));
    expect(localStorage.getItem(STORAGE_KEY)).toBeNull();
  });

  it('ignore a list with no owner (an older version’s) or another account’s', () => {
    localStorage.setItem(STORAGE_KEY, JSON.stringify(['1 Old St']));
    act(() => void enterAccount('acct-a'));
    const { result } = renderHook(() => useRecentSearches());
    expect(result.current).toEqual([]);
    // Another account's list, read afresh (as after a reload): not shown.
    localStorage.setItem(STORAGE_KEY, JSON.stringify({ account: 'acct-z', items: ['2 Other St'] }));
    resetRecentSearchesCache();
    expect(renderHook(() => useRecentSearches()).result.current).toEqual([]);
    // The positive control: the same list owned by this account is shown.
    localStorage.setItem(STORAGE_KEY, JSON.stringify({ account: 'acct-a', items: ['3 Own St'] }));
    resetRecentSearchesCache();
    expect(renderHook(() => useRecentSearches()).result.current).toEqual(['3 Own St']);
  });
});
