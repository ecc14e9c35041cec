import { useMutation, useQueryClient } from '@tanstack/react-query';
import { SessionResponse } from '../../../../contract/index.ts';
import { enterAccount } from '../../../lib/account-scope.ts';
import { apiFetch } from '../../../lib/api-client.ts';
import { sessionFlags } from '../session-flags.ts';
import { removeAccountQueries } from './account-queries.ts';
import { sessionQueryKey } from './get-session.ts';

/** Signs in: the key goes to the BFF once and stays there; the browser keeps only an HttpOnly cookie. */
export function createSession({ apiKey, name }: { apiKey: string; name?: string }) {
  const named = name?.trim() ? { name: name.trim() } : {};
  return apiFetch('/api/session', SessionResponse, { method: 'POST', body: { apiKey, ...named } });
}

export function useCreateSession() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: createSession,
    onSuccess: (session) => {
      // A new sign-in starts clean, whoever it is: no cached results, and another account's recent
      // searches and rate-limit budget are gone too (enterAccount).
      enterAccount(session.accountId);
      removeAccountQueries(queryClient);
      sessionFlags.clear();
      queryClient.setQueryData(sessionQueryKey, session);
    },
  });
}
