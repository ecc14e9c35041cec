import { queryOptions, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useMemo } from 'react';
import { KeyNamesResponse, SessionResponse } from '../../../../contract/index.ts';
import { apiFetch } from '../../../lib/api-client.ts';
import { sessionQueryKey, sessionQueryOptions } from './get-session.ts';

/*
 * People, not fingerprints: the names the account's people gave their keys, shown beside each fingerprint in
 * reviews, History and Activity. A demo visitor, whose key is theirs for the visit, is "Visitor 3F9A" until they
 * give a name (the BFF says the same).
 */

export const keyNamesQueryKey = (accountId: string) => ['key-names', accountId] as const;

export const keyNamesQueryOptions = (accountId: string) =>
  queryOptions({
    queryKey: keyNamesQueryKey(accountId),
    queryFn: async ({ signal }) => {
      const { keys } = await apiFetch('/api/account/keys', KeyNamesResponse, { signal });
      return new Map(keys.map((k) => [k.fingerprint, k.name]));
    },
    staleTime: 60_000,
  });

/** "Dana Ortiz (key 3f9a1c2e)", or "key 3f9a1c2e" for a key nobody named. */
export function keyLabel(fingerprint: string, name: string | null | undefined): string {
  return name ? `${name} (key ${fingerprint})` : `key ${fingerprint}`;
}

/**
 * The account's key names as every view shows them (fingerprint → name), this session's own key named as the
 * session names it: a demo visitor ("Visitor D14A") is not among the account's named keys, and Activity showed
 * only "key d14af015" where the review beside it said "Visitor D14A (key d14af015)". Undefined until known;
 * `enabled` false asks nothing.
 */
export function useKeyNames(enabled = true): ReadonlyMap<string, string> | undefined {
  const session = useQuery(sessionQueryOptions()).data;
  const names = useQuery({
    ...keyNamesQueryOptions(session?.accountId ?? ''),
    enabled: enabled && Boolean(session),
  }).data;
  return useMemo(() => {
    if (!names) return undefined;
    const all = new Map<string, string>();
    for (const [fingerprint, name] of names) if (name) all.set(fingerprint, name);
    if (session?.keyFingerprint && session.keyName) all.set(session.keyFingerprint, session.keyName);
    return all;
  }, [names, session]);
}

/** The name of the key with this fingerprint, as far as this page knows it (undefined until known). */
export function useKeyName(fingerprint: string): string | null | undefined {
  const session = useQuery(sessionQueryOptions()).data;
  const names = useQuery({
    ...keyNamesQueryOptions(session?.accountId ?? ''),
    enabled: Boolean(session),
  }).data;
  if (session?.keyFingerprint === fingerprint && session.keyName) return session.keyName;
  return names?.get(fingerprint) ?? null;
}

/** Names (or unnames, with '') the signed-in key; every view of the account shows the new name. */
export function useSetKeyName() {
  const queryClient = useQueryClient();
  return useMutation({
    // The key the page shows: refused when this browser holds another key now (another tab signed in).
    mutationFn: (body: { name: string; fingerprint?: string }) =>
      apiFetch('/api/session/name', SessionResponse, { method: 'PUT', body }),
    onSuccess: (session) => {
      queryClient.setQueryData(sessionQueryKey, session);
      void queryClient.invalidateQueries({ queryKey: keyNamesQueryKey(session.accountId) });
    },
  });
}
