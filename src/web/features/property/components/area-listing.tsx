import { useInfiniteQuery } from '@tanstack/react-query';
import { type ReactNode, type RefObject, useEffect, useId, useMemo, useRef } from 'react';
import { Link } from 'react-router';
import type { Property } from '../../../../contract/index.ts';
import { Alert } from '../../../components/ui/alert.tsx';
import { Button } from '../../../components/ui/button.tsx';
import { formatCount } from '../../../lib/format.ts';
import { searchPagesQueryOptions } from '../api/search-pages.ts';
import { ConfidenceMark } from './badges.tsx';
import { searchLink } from './candidate-list.tsx';
import { ResolveError } from './resolve-states.tsx';

/** In the ZIP: the service's own field, else the ZIP at the end of the one-line address. */
const inZip = (zip: string) => (p: Property) =>
  p.attributes.zip
    ? p.attributes.zip.slice(0, 5) === zip
    : new RegExp(`\\b${zip}(-\\d{4})?$`).test(p.address);

function ListingSkeleton() {
  return (
    <div role="status" aria-label="Looking up the properties" className="animate-pulse space-y-2">
      {Array.from({ length: 6 }, (_, i) => (
        // biome-ignore lint/suspicious/noArrayIndexKey: static placeholders
        <div key={i} className="h-11 rounded bg-slate-200 dark:bg-slate-700" />
      ))}
    </div>
  );
}

/** After "Show more", focus goes to the first property it added, so the keyboard carries on from there. */
function useFocusAdded(count: number) {
  const listRef = useRef<HTMLUListElement>(null);
  const focusFrom = useRef<number | null>(null);
  useEffect(() => {
    const from = focusFrom.current;
    if (from === null || count <= from) return;
    focusFrom.current = null;
    listRef.current?.querySelectorAll('a')[from]?.focus();
  }, [count]);
  return { listRef, focusFrom };
}

/** The listing's heading, with the way to review the whole area. */
function AreaHeader({ zip, headingId }: { zip: string; headingId: string }) {
  return (
    <div className="flex flex-wrap items-center justify-between gap-3">
      <h2 id={headingId} className="text-xl font-bold tracking-tight">
        Properties in ZIP code {zip}
      </h2>
      <Link
        to={`/review?${new URLSearchParams({ area: zip })}`}
        className="inline-flex min-h-10 items-center rounded-md border border-slate-300 bg-white px-4 py-2 text-sm font-semibold text-slate-800 hover:bg-slate-100 dark:border-slate-600 dark:bg-slate-900 dark:text-slate-100 dark:hover:bg-slate-800"
      >
        Review this area
      </Link>
    </div>
  );
}

/** The properties listed so far, each a link opening its record, described by its confidence. */
function AreaList({
  items,
  zip,
  headingId,
  listRef,
  onOpen,
}: {
  items: Property[];
  zip: string;
  /** Prefixes the ids of the confidence marks the links are described by. */
  headingId: string;
  listRef: RefObject<HTMLUListElement | null>;
  onOpen: (property: Property) => void;
}) {
  return (
    <ul
      ref={listRef}
      aria-label={`Properties in ZIP code ${zip}`}
      aria-live="off"
      className="divide-y divide-slate-200 rounded-lg border border-slate-200 bg-white dark:divide-slate-800 dark:border-slate-700 dark:bg-slate-900"
    >
      {items.map((p) => (
        <li key={p.id} className="flex items-center gap-3 pr-4">
          <Link
            to={searchLink(p.address)}
            aria-describedby={`${headingId}-${p.id}`}
            onClick={() => onOpen(p)}
            className="block min-w-0 flex-1 break-words px-4 py-3 text-sm font-medium text-teal-800 hover:bg-slate-50 dark:text-teal-300 dark:hover:bg-slate-800"
          >
            {p.address}
          </Link>
          <span id={`${headingId}-${p.id}`}>
            <ConfidenceMark level={p.confidence} />
          </span>
        </li>
      ))}
    </ul>
  );
}

/**
 * A ZIP code alone lists the properties in it, page by page ("Show more" follows the search list's cursors),
 * each opening its record at no cost (the list already carries it), with a way to review the whole area.
 */
export function AreaListing({
  zip,
  onOpen,
  wrapPending = (skeleton) => skeleton,
}: {
  zip: string;
  onOpen: (property: Property) => void;
  /** Around the skeleton while the first page loads: the route says there when the BFF is holding it. */
  wrapPending?: (skeleton: ReactNode) => ReactNode;
}) {
  const pages = useInfiniteQuery(searchPagesQueryOptions(zip));
  const items = useMemo(
    () => (pages.data?.pages ?? []).flatMap((p) => p.items).filter(inZip(zip)),
    [pages.data, zip],
  );
  const headingId = useId();
  const statusId = useId();

  const { listRef, focusFrom } = useFocusAdded(items.length);

  if (pages.isPending) return wrapPending(<ListingSkeleton />);
  if (pages.isError && !pages.data)
    return <ResolveError error={pages.error} address={zip} onRetry={() => void pages.refetch()} />;

  return (
    <section aria-labelledby={headingId} className="space-y-4">
      <AreaHeader zip={zip} headingId={headingId} />
      {items.length === 0 ? (
        <Alert tone="info" title={`No properties found in ZIP code ${zip}`}>
          <p>Check the ZIP code, or search for a street address instead.</p>
        </Alert>
      ) : (
        <>
          <p id={statusId} role="status" className="text-sm text-slate-700 dark:text-slate-300">
            {pages.hasNextPage
              ? `Showing the first ${formatCount(items.length)}.`
              : `All ${formatCount(items.length)} listed.`}{' '}
            Open one to see its record.
          </p>
          <AreaList items={items} zip={zip} headingId={headingId} listRef={listRef} onOpen={onOpen} />
        </>
      )}
      {pages.hasNextPage ? (
        <Button
          variant="secondary"
          disabled={pages.isFetchingNextPage}
          aria-describedby={statusId}
          onClick={() => {
            focusFrom.current = items.length;
            void pages.fetchNextPage();
          }}
        >
          {pages.isFetchingNextPage ? 'Loading more…' : 'Show more'}
        </Button>
      ) : null}
      {pages.isError && pages.data ? (
        <p role="alert" className="text-sm">
          More could not be loaded.{' '}
          <Button variant="ghost" className="min-h-8 px-2 py-1" onClick={() => void pages.fetchNextPage()}>
            Try again
          </Button>
        </p>
      ) : null}
    </section>
  );
}
