import { useMutation, useQueryClient } from '@tanstack/react-query';
import { apiFetch } from '../../../lib/api-client.ts';
import { sessionQueryKey } from './get-session.ts';

export function deleteSession() {
  return apiFetch('/api/session', null, { method: 'DELETE' });
}

export function useDeleteSession() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: deleteSession,
    onSettled: () => {
      queryClient.removeQueries({ predicate: (q) => q.queryKey[0] !== 'config' });
      queryClient.setQueryData(sessionQueryKey, null);
    },
  });
}
