import { useSyncExternalStore } from 'react';

/**
 * Addresses this browser searched for, newest first. Addresses only: a key or anything else typed into
 * the key screen never comes here. Kept in localStorage so they survive a reload; clearable.
 */
const STORAGE_KEY = 'proplens.recent-searches';
const MAX = 8;
const listeners = new Set<() => void>();
let cache: string[] | null = null;

function read(): string[] {
  if (cache) return cache;
  try {
    const parsed: unknown = JSON.parse(localStorage.getItem(STORAGE_KEY) ?? '[]');
    cache = Array.isArray(parsed)
      ? parsed.filter((x): x is string => typeof x === 'string').slice(0, MAX)
      : [];
  } catch {
    cache = [];
  }
  return cache;
}

function write(list: string[]) {
  cache = list;
  try {
    if (list.length === 0) localStorage.removeItem(STORAGE_KEY);
    else localStorage.setItem(STORAGE_KEY, JSON.stringify(list));
  } catch {
    // Storage full or disabled: the list still works for this page.
  }
  for (const l of listeners) l();
}

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
