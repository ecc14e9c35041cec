import { useQueryClient } from '@tanstack/react-query';
import { useCallback } from 'react';
import { sessionEndedKey, sessionQueryKey } from '../../features/auth/api/get-session.ts';

/**
 * When review work meets an ended session, the session query becomes null: the protected layout then sends
 * the person to sign in with `next` set to where they are (the review's URL on its page). Reviews themselves
 * run on the server and go on at the account's next sign-in.
 */
export function useReviewSessionRedirect() {
  const queryClient = useQueryClient();
  return useCallback(() => {
    if (queryClient.getQueryData(sessionQueryKey)) queryClient.setQueryData(sessionEndedKey, true);
    queryClient.setQueryData(sessionQueryKey, null);
  }, [queryClient]);
}
