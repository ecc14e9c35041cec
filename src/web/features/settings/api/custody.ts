import { queryOptions, useMutation, useQueryClient } from '@tanstack/react-query';
import { CustodyState } from '../../../../contract/custody.ts';
import { apiFetch } from '../../../lib/api-client.ts';

/*
 * "Work while I'm signed out" (GET/PUT/DELETE /api/custody): whether the account keeps a key on the server for
 * its reviews to go on with nobody signed in. The browser never sends a key: turning it on keeps the key this
 * sign-in used, which the server holds already.
 */

export const custodyQueryKey = (accountId: string) => ['custody', accountId] as const;

export const custodyQueryOptions = (accountId: string) =>
  queryOptions({
    queryKey: custodyQueryKey(accountId),
    queryFn: ({ signal }) => apiFetch('/api/custody', CustodyState, { signal }),
    staleTime: 30_000,
  });

/** Turns it on (true) or off (false); every view of the account's custody shows the answer. */
export function useSetCustody(accountId: string) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (on: boolean) => apiFetch('/api/custody', CustodyState, { method: on ? 'PUT' : 'DELETE' }),
    onSuccess: (state) => queryClient.setQueryData(custodyQueryKey(accountId), state),
  });
}

/** The words for a kept key the service refused, in Settings and on a waiting review alike. */
export const refusedSentence = (on: string) =>
  `The service refused the stored key on ${on}; sign in to resume.`;
