import { useMutation, useQueryClient } from '@tanstack/react-query';
import { apiFetch } from '../../../lib/api-client.ts';
import { resetRateLimit } from '../../../lib/rate-limit-store.ts';
import { sessionQueryKey } from './get-session.ts';

export function deleteSession() {
  return apiFetch('/api/session', null, { method: 'DELETE' });
}

export function useDeleteSession() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: deleteSession,
    onSettled: () => {
      // Nothing of this account stays on the page: cached records, its rate-limit budget.
      resetRateLimit();
      queryClient.removeQueries({ predicate: (q) => q.queryKey[0] !== 'config' });
      queryClient.setQueryData(sessionQueryKey, null);
    },
  });
}
