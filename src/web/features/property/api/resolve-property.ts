import { queryOptions } from '@tanstack/react-query';
import { addressKey, ResolveAnswer, type ResolveResponse } from '../../../../contract/index.ts';
import { ApiRequestError, apiFetch } from '../../../lib/api-client.ts';

/**
 * The record for an address. No one record (not found, ambiguous, no such unit) comes from the BFF as a 200
 * (so the browser logs no error) and is thrown here as the ApiRequestError it stands for: the screens show
 * its code, candidates and reason as they show any refusal.
 */
export async function resolveProperty(address: string, signal?: AbortSignal): Promise<ResolveResponse> {
  const answer = await apiFetch(
    `/api/properties/resolve?${new URLSearchParams({ address })}`,
    ResolveAnswer,
    {
      signal,
    },
  );
  if ('property' in answer) return answer;
  const { code, message, candidates, total, reason } = answer.miss;
  throw new ApiRequestError(200, code, message, candidates ?? [], null, total ?? null, reason ?? null);
}

export const resolveQueryOptions = (address: string) =>
  queryOptions({
    queryKey: ['property', 'resolve', addressKey(address)],
    queryFn: ({ signal }) => resolveProperty(address, signal),
    // A record does not change from minute to minute; the BFF caches for 5 minutes too.
    staleTime: 5 * 60_000,
    gcTime: 30 * 60_000,
  });
