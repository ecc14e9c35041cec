import { useMutation, useQueryClient } from '@tanstack/react-query';
import { leaveAccount } from '../../../lib/account-scope.ts';
import { apiFetch } from '../../../lib/api-client.ts';
import { sessionFlags } from '../session-flags.ts';
import { removeAccountQueries } from './account-queries.ts';
import { sessionQueryKey } from './get-session.ts';

export function deleteSession() {
  return apiFetch('/api/session', null, { method: 'DELETE' });
}

export function useDeleteSession() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: deleteSession,
    onSettled: () => {
      // Nothing of this account stays on the page or in the browser: cached records, recent searches, its
      // rate-limit budget (leaveAccount tells their stores).
      leaveAccount();
      removeAccountQueries(queryClient);
      sessionFlags.set({ ended: false, signedOut: true });
      queryClient.setQueryData(sessionQueryKey, null);
    },
  });
}
