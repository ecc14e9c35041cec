import { infiniteQueryOptions } from '@tanstack/react-query';
import { addressKey, SearchResponse } from '../../../../contract/index.ts';
import { apiFetch } from '../../../lib/api-client.ts';

/**
 * The search list endpoint read page by page, for lists a person walks through (the properties of a ZIP
 * code, more candidates for an ambiguous address). The typeahead reads one page of the same endpoint in
 * features/search; this is the paged reading, with the BFF's cursors.
 */
export function searchPage(q: string, cursor: string | undefined, signal?: AbortSignal) {
  const params = new URLSearchParams({ q });
  if (cursor) params.set('cursor', cursor);
  return apiFetch(`/api/properties/search?${params}`, SearchResponse, { signal });
}

export const searchPagesQueryOptions = (q: string) =>
  infiniteQueryOptions({
    queryKey: ['property', 'search-pages', addressKey(q)],
    queryFn: ({ pageParam, signal }) => searchPage(q, pageParam, signal),
    initialPageParam: undefined as string | undefined,
    getNextPageParam: (last) => last.nextCursor,
    staleTime: 5 * 60_000,
  });
