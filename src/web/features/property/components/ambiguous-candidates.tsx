import { useInfiniteQuery, useQueryClient } from '@tanstack/react-query';
import { type FormEvent, useEffect, useId, useMemo, useState } from 'react';
import { useNavigate } from 'react-router';
import { addressKey, type Candidate, type Property, US_STATES } from '../../../../contract/index.ts';
import { Alert } from '../../../components/ui/alert.tsx';
import { Button } from '../../../components/ui/button.tsx';
import { formatCount } from '../../../lib/format.ts';
import { resolveQueryOptions } from '../api/resolve-property.ts';
import { searchPagesQueryOptions } from '../api/search-pages.ts';
import {
  candidateOf,
  groupByState,
  mergeById,
  type PlacedCandidate,
  placed,
  stateName,
} from '../lib/place.ts';
import { CandidateList, searchLink } from './candidate-list.tsx';
import { CompareCandidates, type RenderCompare } from './compare-candidates.tsx';

/** Pages one "Show more" may read looking for candidates not yet listed, before it stops and says so. */
const MAX_PAGES_PER_CLICK = 3;

const STATE_OPTIONS = Object.entries(US_STATES).sort((a, b) => a[1].localeCompare(b[1], 'en-US'));

/**
 * Which search results are more of the same candidates: those on the same street line ("100 Main St") as
 * the ones the service listed. The search list also holds units in those buildings and near spellings;
 * they are not what the person is choosing between.
 */
function sameStreet(candidates: readonly Candidate[]) {
  const streets = new Set(candidates.map((c) => addressKey(placed(c).street)));
  return (p: Property) => streets.has(addressKey(candidateOf(p).street));
}

function NarrowForm({ street, initialState }: { street: string; initialState: string }) {
  const navigate = useNavigate();
  const [state, setState] = useState(initialState);
  const [city, setCity] = useState('');
  const ids = { state: useId(), city: useId() };
  const submit = (e: FormEvent) => {
    e.preventDefault();
    const place = [city.trim(), state].filter(Boolean);
    if (place.length === 0) return;
    navigate(searchLink([street, ...place].join(', ')));
  };
  return (
    <form aria-label="Narrow down" onSubmit={submit} className="flex flex-wrap items-end gap-3">
      <div>
        <label htmlFor={ids.state} className="block text-xs font-semibold">
          State
        </label>
        <select
          id={ids.state}
          value={state}
          onChange={(e) => setState(e.target.value)}
          className="mt-1 min-h-10 rounded-md border border-slate-400 bg-white px-2 text-sm dark:border-slate-600 dark:bg-slate-900"
        >
          <option value="">Any state</option>
          {STATE_OPTIONS.map(([code, name]) => (
            <option key={code} value={code}>
              {name}
            </option>
          ))}
        </select>
      </div>
      <div className="min-w-40 flex-1 sm:flex-none">
        <label htmlFor={ids.city} className="block text-xs font-semibold">
          City
        </label>
        <input
          id={ids.city}
          type="text"
          value={city}
          maxLength={100}
          autoComplete="address-level2"
          onChange={(e) => setCity(e.target.value)}
          className="mt-1 min-h-10 w-full rounded-md border border-slate-400 bg-white px-2 text-sm dark:border-slate-600 dark:bg-slate-900"
        />
      </div>
      <Button type="submit" variant="secondary" disabled={city.trim() === '' && state === ''}>
        Narrow
      </Button>
    </form>
  );
}

/**
 * A candidate from the search list carries its record: opening or comparing it costs no request.
 * Never the search itself (it is ambiguous), never an address several listed records share, never over
 * anything the cache already holds.
 */
function useSeedListedRecords(found: Property[], address: string) {
  const queryClient = useQueryClient();
  useEffect(() => {
    const shared = new Map<string, number>();
    for (const p of found) shared.set(addressKey(p.address), (shared.get(addressKey(p.address)) ?? 0) + 1);
    for (const property of found) {
      const k = addressKey(property.address);
      if (k === addressKey(address) || (shared.get(k) ?? 0) > 1) continue;
      const key = resolveQueryOptions(property.address).queryKey;
      if (queryClient.getQueryState(key) === undefined) {
        queryClient.setQueryData(key, { property, rateLimit: null });
      }
    }
  }, [found, queryClient, address]);
}

/**
 * The candidates listed so far, with "Show more" reading on through the search list's pages for more on the
 * same street line, and what the listing can say about how many there are.
 */
function useMoreCandidates(address: string, candidates: readonly Candidate[], total: number | null) {
  const [wanted, setWanted] = useState(0);
  const [pagesThisClick, setPagesThisClick] = useState(0);
  const pages = useInfiniteQuery({ ...searchPagesQueryOptions(address), enabled: wanted > 0 });
  const isSame = useMemo(() => sameStreet(candidates), [candidates]);
  const found = useMemo(
    () => (pages.data?.pages ?? []).flatMap((p) => p.items).filter(isSame),
    [pages.data, isSame],
  );
  const all = useMemo(() => mergeById(candidates.map(placed), found.map(candidateOf)), [candidates, found]);
  const count = Math.max(total ?? candidates.length, all.length);
  const exhausted = wanted > 0 && pages.isSuccess && !pages.hasNextPage;
  const canShowMore =
    !exhausted &&
    !pages.isError &&
    (total === null ? candidates.length >= 10 || wanted > 0 : count > all.length);

  // One click asks for at least one more candidate: read on (a few pages at most) while a page brought only
  // what is already listed.
  const { isFetching, hasNextPage, fetchNextPage } = pages;
  useEffect(() => {
    if (wanted === 0 || isFetching || !pages.data) return;
    if (all.length < wanted && hasNextPage && pagesThisClick < MAX_PAGES_PER_CLICK) {
      setPagesThisClick((n) => n + 1);
      void fetchNextPage();
    }
  }, [wanted, isFetching, pages.data, all.length, hasNextPage, pagesThisClick, fetchNextPage]);

  const showMore = () => {
    setPagesThisClick(pages.data ? 1 : 0);
    setWanted(all.length + 1);
    if (pages.data) void fetchNextPage();
  };
  useSeedListedRecords(found, address);
  return { pages, all, count, exhausted, canShowMore, showMore };
}

/** How many are listed of how many in all, and when the service lists no more. */
function ListedStatus({
  id,
  listed,
  count,
  exhausted,
}: {
  id: string;
  listed: number;
  count: number;
  exhausted: boolean;
}) {
  return (
    <p id={id} role="status" className="text-sm text-slate-700 dark:text-slate-300">
      {listed === count
        ? `All ${formatCount(count)} listed`
        : `Showing ${formatCount(listed)} of ${formatCount(count)}`}
      , by state and city.
      {exhausted && listed < count
        ? ' The service lists no more of them: narrow it down to find the rest.'
        : ''}
    </p>
  );
}

/** The candidates grouped by state, each state a section with how many it holds. */
function StateGroups({ candidates }: { candidates: PlacedCandidate[] }) {
  return (
    <div aria-live="off" className="space-y-4">
      {groupByState(candidates).map((g) => (
        <section key={g.state ?? ''} aria-label={stateName(g.state)}>
          <h2 className="text-sm font-semibold">
            {stateName(g.state)}{' '}
            <span className="font-normal text-slate-600 dark:text-slate-400">· {g.items.length}</span>
          </h2>
          <CandidateList candidates={g.items} label={`Matching properties in ${stateName(g.state)}`} />
        </section>
      ))}
    </div>
  );
}

/**
 * More than one property matches: how many in all, ordered by state and city and grouped by state, to be
 * narrowed by state or city (a new, more precise search) or paged through with "Show more" (the search list
 * with the same text and its cursors).
 */
export function AmbiguousCandidates({
  address,
  candidates,
  total,
  renderCompare,
}: {
  address: string;
  candidates: readonly Candidate[];
  /** How many there are in all, when the service said; else the number listed. */
  total: number | null;
  /** The comparison, offered over every candidate listed so far. */
  renderCompare?: RenderCompare;
}) {
  const { pages, all, count, exhausted, canShowMore, showMore } = useMoreCandidates(
    address,
    candidates,
    total,
  );

  const places = new Set(all.map((c) => `${c.state}|${c.city}`));
  const states = new Set(all.map((c) => c.state));
  const street = placed(candidates[0] ?? { id: '', address }).street;
  const oneStreet = candidates.every((c) => addressKey(placed(c).street) === addressKey(street));
  const statusId = useId();

  return (
    <div className="space-y-4">
      <Alert tone="info" title="More than one property matches">
        <p>
          “{address}” matches {count === 1 ? 'one property' : `${formatCount(count)} properties`}
          {states.size > 1 ? ' in different places' : ''}. Pick the one you mean
          {all.length === 0 ? ', or add the city and state or the ZIP code' : ', or narrow it down'}.
        </p>
      </Alert>
      {oneStreet && (places.size > 1 || count > all.length) ? (
        // The state is filled in only when the service's total says every match is listed and all are in it:
        // a first page from one state says nothing about the rest.
        <NarrowForm
          street={street}
          initialState={
            states.size === 1 && total !== null && total === all.length ? ([...states][0] ?? '') : ''
          }
        />
      ) : null}
      {all.length > 0 ? (
        <>
          <ListedStatus id={statusId} listed={all.length} count={count} exhausted={exhausted} />
          {/* Loading more must not read the whole list out again: the status line above says what changed. */}
          <StateGroups candidates={all} />
          {canShowMore ? (
            <div>
              <Button
                variant="secondary"
                onClick={showMore}
                disabled={pages.isFetching}
                aria-describedby={statusId}
              >
                {pages.isFetching ? 'Loading more…' : 'Show more'}
              </Button>
            </div>
          ) : null}
          {pages.isError ? (
            <p role="alert" className="text-sm">
              More could not be loaded.{' '}
              <Button
                variant="ghost"
                className="min-h-8 px-2 py-1"
                onClick={() => void pages.fetchNextPage()}
              >
                Try again
              </Button>
            </p>
          ) : null}
          <CompareCandidates candidates={all} render={renderCompare} />
        </>
      ) : null}
    </div>
  );
}
