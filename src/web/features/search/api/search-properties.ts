import { keepPreviousData, queryOptions } from '@tanstack/react-query';
import { addressKey, SearchResponse } from '../../../../contract/index.ts';
import { apiFetch } from '../../../lib/api-client.ts';

export function searchProperties(q: string, signal?: AbortSignal) {
  return apiFetch(`/api/properties/search?${new URLSearchParams({ q })}`, SearchResponse, { signal });
}

export const searchQueryOptions = (q: string) =>
  queryOptions({
    queryKey: ['property', 'search', addressKey(q)],
    queryFn: ({ signal }) => searchProperties(q, signal),
    staleTime: 60_000,
    placeholderData: keepPreviousData,
  });
