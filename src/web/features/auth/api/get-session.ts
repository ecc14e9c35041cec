import { queryOptions } from '@tanstack/react-query';
import { type SessionResponse, SessionResponse as SessionSchema } from '../../../../contract/index.ts';
import { enterAccount } from '../../../lib/account-scope.ts';
import { ApiRequestError, apiFetch } from '../../../lib/api-client.ts';
import { removeAccountQueries } from './account-queries.ts';

/** The signed-in account, or null when there is no session (a normal state, not an error). */
export async function getSession(signal?: AbortSignal): Promise<SessionResponse | null> {
  try {
    // 204: nobody is signed in (a first visit); 401: the session named by the cookie has ended.
    return (await apiFetch('/api/session', SessionSchema, { signal })) ?? null;
  } catch (err) {
    if (err instanceof ApiRequestError && err.code === 'unauthenticated') return null;
    throw err;
  }
}

export const sessionQueryKey = ['session'] as const;

export const sessionQueryOptions = () =>
  queryOptions({
    queryKey: sessionQueryKey,
    queryFn: async ({ signal, client }) => {
      const session = await getSession(signal);
      // The cookie may now be another account's (signed in from another tab): drop what the page held.
      if (session && enterAccount(session.accountId)) removeAccountQueries(client);
      return session;
    },
    staleTime: 5 * 60_000,
  });
