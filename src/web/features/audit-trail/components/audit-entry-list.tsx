import type { InfiniteData, UseInfiniteQueryResult } from '@tanstack/react-query';
import type { AuditResponse } from '../../../../contract/index.ts';
import { Button } from '../../../components/ui/button.tsx';
import { ApiRequestError } from '../../../lib/api-client.ts';
import { AuditTable, when } from './audit-table.tsx';

/**
 * The matching entries, newest first, with a button for older ones; or why there are none yet. A text filter no
 * index narrows searches for a bounded time per page (AuditResponse.searchedBackTo): the page then says how far
 * back it searched, with what it found so far, and the button searches on, so nobody waits on the whole trail
 * and nobody reads "no activity" where only part of it was searched.
 */
export function AuditEntryList({
  list,
  names,
}: {
  list: UseInfiniteQueryResult<InfiniteData<AuditResponse>>;
  names: ReadonlyMap<string, string> | undefined;
}) {
  const entries = list.data?.pages.flatMap((p) => p.entries) ?? [];
  const searchedBackTo = list.hasNextPage ? list.data?.pages.at(-1)?.searchedBackTo : null;
  if (list.isError)
    return (
      <p role="alert" className="text-sm">
        {list.error instanceof ApiRequestError ? list.error.message : 'The activity could not be loaded.'}
      </p>
    );
  if (!list.data)
    return (
      <p role="status" className="text-sm text-slate-600 dark:text-slate-400">
        Loading the activity…
      </p>
    );
  if (entries.length === 0 && !list.hasNextPage)
    return <p className="text-sm">No activity matches these filters.</p>;
  return (
    <>
      {entries.length > 0 ? <AuditTable entries={entries} {...(names ? { names } : {})} /> : null}
      {searchedBackTo ? (
        <p role="status" className="text-sm">
          {entries.length === 0 ? 'None found yet: searched' : `${entries.length} found so far: searched`} the
          entries after {when(searchedBackTo)}.
        </p>
      ) : null}
      {list.hasNextPage ? (
        <Button
          variant="secondary"
          disabled={list.isFetchingNextPage}
          onClick={() => void list.fetchNextPage()}
        >
          {searchedBackTo ? 'Search older entries' : 'Show older entries'}
        </Button>
      ) : (
        <p className="text-xs text-slate-600 dark:text-slate-400">That is the oldest entry kept.</p>
      )}
    </>
  );
}
