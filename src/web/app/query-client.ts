import { QueryClient } from '@tanstack/react-query';
import { sessionQueryKey } from '../features/auth/api/get-session.ts';
import { sessionFlags } from '../features/auth/session-flags.ts';
import { ApiRequestError, onSessionEnded } from '../lib/api-client.ts';

/**
 * The one rule for an ended session: any call to the BFF answered `unauthenticated` (a query, a mutation, an
 * upload, an area walk, a live view; api-client's onSessionEnded) makes the session null, and the protected
 * layout sends the person to the key screen (and back). Returns the unsubscribe, for an effect.
 */
export function followSessionEnd(client: QueryClient): () => void {
  return onSessionEnded(() => {
    if (client.getQueryData(sessionQueryKey)) sessionFlags.set({ ended: true });
    client.setQueryData(sessionQueryKey, null);
  });
}

export function createQueryClient(): QueryClient {
  const client: QueryClient = new QueryClient({
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
