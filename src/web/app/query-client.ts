import { MutationCache, QueryCache, QueryClient } from '@tanstack/react-query';
import { sessionEndedKey, sessionQueryKey } from '../features/auth/api/get-session.ts';
import { ApiRequestError } from '../lib/api-client.ts';

/**
 * One rule for every query and mutation: an `unauthenticated` answer means the session is over, so the
 * session query becomes null and the protected layout sends the person to the key screen (and back).
 */
export function createQueryClient(): QueryClient {
  const onError = (err: unknown) => {
    if (err instanceof ApiRequestError && err.code === 'unauthenticated') {
      if (client.getQueryData(sessionQueryKey)) client.setQueryData(sessionEndedKey, true);
      client.setQueryData(sessionQueryKey, null);
    }
  };
  const client: QueryClient = new QueryClient({
    queryCache: new QueryCache({ onError }),
    mutationCache: new MutationCache({ onError }),
    defaultOptions: {
      queries: {
        // Errors the person must act on are not retried; only a lost connection is worth one more try.
        retry: (count, err) => count < 1 && err instanceof ApiRequestError && err.code === 'offline',
        refetchOnWindowFocus: false,
      },
    },
  });
  return client;
}
