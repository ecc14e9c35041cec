import { queryOptions } from '@tanstack/react-query';
import { ResolveResponse } from '../../../../contract/index.ts';
import { apiFetch } from '../../../lib/api-client.ts';

/** The same address in other spacing or case is the same query: one cache entry, no second request. */
export function addressKey(address: string): string {
  return address
    .normalize('NFC')
    .toLowerCase()
    .replace(/\s*,\s*/g, ', ')
    .replace(/\s+/g, ' ')
    .trim();
}

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
