import type { QueryClient } from '@tanstack/react-query';

/**
 * Removes every cached answer that belongs to an account (records, searches, reviews): all but the app's
 * configuration, which is the same for everyone. The session query is kept for the caller to set.
 */
export function removeAccountQueries(queryClient: QueryClient) {
  queryClient.removeQueries({
    predicate: (q) => q.queryKey[0] !== 'config' && q.queryKey[0] !== 'session',
  });
}
