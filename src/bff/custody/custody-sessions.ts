import { refusingKeptKeys } from '../refused-keys.ts';
import type { SessionStore } from '../stores/sessions/types.ts';
import type { KeyCustody } from './key-custody.ts';

/**
 * The session store as the review worker, the reviews' "waiting" status and refused-keys.ts see it with custody:
 * an account with a kept key counts as live; when none of its people is signed in, its kept key is lent, as a
 * session marked unattended; and a key the service refuses also loses its custody. Everything else is the
 * store's own.
 */
export function withCustody(store: SessionStore, custody: KeyCustody): SessionStore {
  return {
    create: (session) => store.create(session),
    get: (id) => store.get(id),
    delete: (id) => store.delete(id),
    ...(store.count ? { count: () => store.count?.() ?? Promise.resolve(0) } : {}),
    ...(store.ping ? { ping: () => store.ping?.() ?? Promise.resolve(true) } : {}),
    async liveAccounts() {
      const [live, kept] = await Promise.all([store.liveAccounts(), custody.accounts()]);
      if (kept.length === 0) return live;
      return [...new Set([...live, ...kept])];
    },
    async sessionFor(accountId, prefer) {
      // Someone of the account signed in lends their key, as without custody; the kept key only when nobody is.
      const live = await store.sessionFor(accountId, prefer);
      if (live) return live;
      const kept = await custody.sessionFor(accountId);
      return kept ? { session: kept, ref: `custody:${accountId}` } : undefined;
    },
    // Signed in means a person's session: a kept key is not one.
    holdsKey: (accountId, fingerprint) => store.holdsKey(accountId, fingerprint),
    refuseKey: refusingKeptKeys(store, custody),
  };
}
