import { useQueryClient } from '@tanstack/react-query';
import { useCallback, useEffect } from 'react';
import { sessionEndedKey, sessionQueryKey } from '../../features/auth/api/get-session.ts';
import { getReviewWorkspace } from '../../features/review/lib/workspace.ts';

/**
 * When review work meets an ended session, the session query becomes null: the protected layout then sends
 * the person to sign in with `next` set to where they are (the review's URL on its page), and the review
 * goes on when they are back. Returns the same "session ended" for the page's own requests (an area walk).
 */
export function useReviewSessionRedirect() {
  const queryClient = useQueryClient();
  const endSession = useCallback(() => {
    if (queryClient.getQueryData(sessionQueryKey)) queryClient.setQueryData(sessionEndedKey, true);
    queryClient.setQueryData(sessionQueryKey, null);
  }, [queryClient]);
  useEffect(() => {
    getReviewWorkspace().setSessionEndedHandler(endSession);
  }, [endSession]);
  return endSession;
}
