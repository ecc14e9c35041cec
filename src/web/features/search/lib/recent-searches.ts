import { useSyncExternalStore } from 'react';
import { currentAccount, onAccountChange } from '../../../lib/account-scope.ts';

/**
 * Addresses the signed-in account searched for in this browser, newest first. Addresses only: a key or
 * anything else typed into the key screen never comes here. Kept in localStorage so they survive a reload,
 * stored with the account they belong to (its opaque accountId) and shown to no other: a sales demo never
 * offers one prospect the previous prospect's addresses. Cleared on sign-out and when another account signs
 * in; clearable by hand.
 */
const STORAGE_KEY = 'proplens.recent-searches';
const MAX = 8;
const listeners = new Set<() => void>();
const EMPTY: string[] = [];
let cache: string[] | null = null;

type Stored = { account: string; items: string[] };

function parse(raw: string | null): Stored | null {
  try {
    const parsed: unknown = JSON.parse(raw ?? 'null');
    if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) return null;
    const { account, items } = parsed as Record<string, unknown>;
    if (typeof account !== 'string' || !Array.isArray(items)) return null;
    return { account, items: items.filter((x): x is string => typeof x === 'string').slice(0, MAX) };
  } catch {
    return null;
  }
}

function read(): string[] {
  if (cache) return cache;
  const account = currentAccount();
  if (account === null) return EMPTY;
  let stored: Stored | null = null;
  try {
    stored = parse(localStorage.getItem(STORAGE_KEY));
  } catch {
    // Storage disabled: start empty.
  }
  // A list without an owner (an older version's) or another account's is never shown.
  cache = stored?.account === account ? stored.items : [];
  return cache;
}

function notify() {
  for (const l of listeners) l();
}

function write(list: string[]) {
  const account = currentAccount();
  if (account === null) return;
  cache = list;
  try {
    if (list.length === 0) localStorage.removeItem(STORAGE_KEY);
    else localStorage.setItem(STORAGE_KEY, JSON.stringify({ account, items: list } satisfies Stored));
  } catch {
    // Storage full or disabled: the list still works for this page.
  }
  notify();
}

function forget() {
  cache = null;
  try {
    localStorage.removeItem(STORAGE_KEY);
  } catch {
    // Nothing stored, then.
  }
  notify();
}

onAccountChange(({ cleared }) => {
  if (cleared) forget();
  else {
    cache = null;
    notify();
  }
});

export function addRecentSearch(address: string) {
  const a = address.trim();
  if (a === '' || a.length > 200) return;
  write([a, ...read().filter((x) => x.toLowerCase() !== a.toLowerCase())].slice(0, MAX));
}

export function clearRecentSearches() {
  write([]);
}

export function useRecentSearches(): string[] {
  return useSyncExternalStore(
    (l) => {
      listeners.add(l);
      return () => listeners.delete(l);
    },
    read,
    read,
  );
}

/** For tests: forget the in-memory copy so the next read comes from storage. */
export function resetRecentSearchesCache() {
  cache = null;
}
