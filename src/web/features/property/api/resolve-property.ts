import { queryOptions } from '@tanstack/react-query';
import { addressKey, ResolveResponse } from '../../../../contract/index.ts';
import { apiFetch } from '../../../lib/api-client.ts';

export function resolveProperty(address: string, signal?: AbortSignal) {
  return apiFetch(`/api/properties/resolve?${new URLSearchParams({ address })}`, ResolveResponse, { signal });
}

export const resolveQueryOptions = (address: string) =>
  queryOptions({
    queryKey: ['property', 'resolve', addressKey(address)],
    queryFn: ({ signal }) => resolveProperty(address, signal),
    // A record does not change from minute to minute; the BFF caches for 5 minutes too.
    staleTime: 5 * 60_000,
    gcTime: 30 * 60_000,
  });
