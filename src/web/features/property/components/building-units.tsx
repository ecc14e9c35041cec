import { useInfiniteQuery } from '@tanstack/react-query';
import { useId, useState } from 'react';
import type { Property } from '../../../../contract/index.ts';
import { Button } from '../../../components/ui/button.tsx';
import { formatCount } from '../../../lib/format.ts';
import { searchPagesQueryOptions } from '../api/search-pages.ts';
import { CandidateList } from './candidate-list.tsx';

/**
 * A building whose units have records of their own says so, and lists them on request: the list costs a lookup,
 * so it is fetched only when asked for.
 */
export function BuildingUnits({ property }: { property: Property }) {
  const headingId = useId();
  const [open, setOpen] = useState(false);
  const count = property.attributes.unitCount ?? 0;
  const eligible = count > 0 && !property.attributes.unit;
  const pages = useInfiniteQuery({ ...searchPagesQueryOptions(property.address), enabled: open && eligible });
  if (!eligible) return null;
  const units = (pages.data?.pages.flatMap((p) => p.items) ?? [])
    .filter((p) => p.id !== property.id && p.attributes.unit)
    .map((p) => ({ id: p.id, address: p.address, confidence: p.confidence }));
  const noun = count === 1 ? 'unit' : 'units';
  return (
    <section
      aria-labelledby={headingId}
      data-print-hide
      className="rounded-xl border border-slate-200 bg-white p-4 dark:border-slate-800 dark:bg-slate-900"
    >
      <div className="flex flex-wrap items-center justify-between gap-3">
        <h3 id={headingId} className="text-base font-semibold">
          This building has {formatCount(count)} {noun} on record
        </h3>
        {open ? null : (
          <Button variant="secondary" onClick={() => setOpen(true)}>
            Show them
          </Button>
        )}
      </div>
      <p className="mt-1 text-sm text-slate-600 dark:text-slate-300">
        This record is the building’s own. Each unit has a record of its own, with its own source and
        confidence.
      </p>
      {open && pages.isPending ? (
        <p role="status" className="mt-3 text-sm">
          Looking up the units…
        </p>
      ) : null}
      {open && pages.isError ? (
        <p role="alert" className="mt-3 text-sm text-red-700 dark:text-red-300">
          The units could not be listed: {pages.error.message}
        </p>
      ) : null}
      {open && pages.isSuccess && units.length === 0 ? (
        <p className="mt-3 text-sm">The service listed none of the units for this address.</p>
      ) : null}
      {units.length > 0 ? (
        <div className="mt-3">
          <CandidateList candidates={units} label={`Units of ${property.address}`} />
        </div>
      ) : null}
      {pages.hasNextPage ? (
        <Button
          variant="secondary"
          className="mt-3"
          disabled={pages.isFetchingNextPage}
          onClick={() => void pages.fetchNextPage()}
        >
          Show more
        </Button>
      ) : null}
    </section>
  );
}
