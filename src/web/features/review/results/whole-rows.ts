import { useQueries } from '@tanstack/react-query';
import type { Property, ReviewRowResult } from '../../../../contract/index.ts';
import { getRow } from '../api/server-reviews.ts';

/**
 * The whole records of rows the table holds `brief` (their attributes cut to the state: the page reads 100,000
 * rows that way, issue 26), read a row at a time when a reviewer opens or compares them, and kept by the query
 * cache per row and answer (`seq`). A row already whole (an event's, a fix's) is used as it is.
 */
export function useWholeProperties(
  reviewId: string,
  rows: readonly ReviewRowResult[],
): { properties: (Property | undefined)[]; failed: boolean } {
  const results = useQueries({
    queries: rows.map((row) => ({
      queryKey: ['review', 'row', reviewId, row.index, row.seq] as const,
      queryFn: ({ signal }: { signal: AbortSignal }) => getRow(reviewId, row.index, row.seq, signal),
      enabled: row.brief === true && row.property !== undefined,
      staleTime: Number.POSITIVE_INFINITY,
    })),
  });
  return {
    properties: rows.map((row, i) => (row.brief ? (results[i]?.data?.property ?? undefined) : row.property)),
    failed: results.some((r) => r.isError),
  };
}
