import { useMutation, useQueryClient } from '@tanstack/react-query';
import { SessionResponse } from '../../../../contract/index.ts';
import { apiFetch } from '../../../lib/api-client.ts';
import { sessionQueryKey } from './get-session.ts';

/** Signs in: the key goes to the BFF once and stays there; the browser keeps only an HttpOnly cookie. */
export function createSession(apiKey: string) {
  return apiFetch('/api/session', SessionResponse, { method: 'POST', body: { apiKey } });
}

export function useCreateSession() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: createSession,
    onSuccess: (session) => {
      // A new account must not see the previous one's cached results.
      queryClient.removeQueries({ predicate: (q) => q.queryKey[0] !== 'config' });
      queryClient.setQueryData(sessionQueryKey, session);
    },
  });
}
