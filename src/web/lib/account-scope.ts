/**
 * Whose data the page holds. Everything an account leaves in the browser (recent searches, the rate-limit
 * meter, cached records) belongs to the account that was signed in when it was made; when that changes, the
 * stores that subscribe here forget it. The account's opaque `accountId` (never the key) is remembered in
 * localStorage so a switch is noticed across reloads and across tabs too.
 */
const OWNER_KEY = 'proplens.account';

/** `cleared`: the previous account's data must go. Otherwise only who the page belongs to changed. */
export type AccountChange = { accountId: string | null; cleared: boolean };
type Listener = (change: AccountChange) => void;

const listeners = new Set<Listener>();
let current: string | null = null;

function storedOwner(): string | null {
  try {
    return localStorage.getItem(OWNER_KEY);
  } catch {
    return null;
  }
}

function storeOwner(accountId: string | null) {
  try {
    if (accountId === null) localStorage.removeItem(OWNER_KEY);
    else localStorage.setItem(OWNER_KEY, accountId);
  } catch {
    // Storage disabled: the page still scopes what it holds in memory.
  }
}

function emit(change: AccountChange) {
  for (const l of listeners) l(change);
}

/** The account the page is signed in as, or null before a session is known and after sign-out. */
export function currentAccount(): string | null {
  return current;
}

/** The account whose data the page or this browser holds: signed in now, or last (its session ended). */
export function previousAccount(): string | null {
  return current ?? storedOwner();
}

/** Would signing in as `accountId` replace another account's data (on this page, or left in this browser)? */
export function isAnotherAccount(accountId: string): boolean {
  const previous = previousAccount();
  return previous !== null && previous !== accountId;
}

/**
 * The page now belongs to `accountId` (a sign-in, or a session found on load). Returns true when another
 * account's data was here: it has been cleared, and the caller clears what it holds itself (the query cache).
 */
export function enterAccount(accountId: string): boolean {
  const cleared = isAnotherAccount(accountId);
  if (!cleared && current === accountId) return false;
  current = accountId;
  storeOwner(accountId);
  emit({ accountId, cleared });
  return cleared;
}

/** Signed out: nothing of the account stays on the page or in this browser. */
export function leaveAccount() {
  current = null;
  storeOwner(null);
  emit({ accountId: null, cleared: true });
}

export function onAccountChange(listener: Listener): () => void {
  listeners.add(listener);
  return () => listeners.delete(listener);
}

/**
 * Another tab signed out or signed in as someone else (they share the session cookie): this page's data is
 * no longer its account's. Calls `onChange` after clearing, so the app can ask who is signed in now.
 */
export function watchOtherTabs(onChange: () => void): () => void {
  const onStorage = (e: StorageEvent) => {
    if (e.key !== OWNER_KEY && e.key !== null) return;
    const next = storedOwner();
    if (next === current) return;
    current = null;
    emit({ accountId: null, cleared: true });
    onChange();
  };
  window.addEventListener('storage', onStorage);
  return () => window.removeEventListener('storage', onStorage);
}

/** For tests: a page that has never seen an account. */
export function resetAccountScope() {
  current = null;
  storeOwner(null);
  emit({ accountId: null, cleared: false });
}
