import { onlineManager, useQuery, useQueryClient } from '@tanstack/react-query';
import { lazy, Suspense, useCallback, useEffect, useState, useSyncExternalStore } from 'react';
import { Link, useSearchParams } from 'react-router';
import type { Property } from '../../../contract/index.ts';
import { qualityOf } from '../../../contract/index.ts';
import { Alert } from '../../components/ui/alert.tsx';
import { Button } from '../../components/ui/button.tsx';
import { RecordHistory } from '../../features/audit-trail/components/record-history.tsx';
import { sessionQueryOptions } from '../../features/auth/api/get-session.ts';
import { resolveQueryOptions } from '../../features/property/api/resolve-property.ts';
import { AreaListing } from '../../features/property/components/area-listing.tsx';
import { ConfidenceMark } from '../../features/property/components/badges.tsx';
import { BuildingUnits } from '../../features/property/components/building-units.tsx';
import type { RenderCompare } from '../../features/property/components/compare-candidates.tsx';
import { MatchNotice } from '../../features/property/components/match-notice.tsx';
import { NotAStreetAddress } from '../../features/property/components/not-an-address.tsx';
import { PropertyRecord, RecordSkeleton } from '../../features/property/components/property-record.tsx';
import { ResolveError } from '../../features/property/components/resolve-states.tsx';
import { zipOnly } from '../../features/property/lib/place.ts';
import { notAStreetAddress } from '../../features/property/lib/street-address.ts';
import { confidenceText } from '../../features/property/lib/vocabulary.ts';
import { RateLimitWait } from '../../features/rate-limit/components/rate-limit-wait.tsx';
import { AddressSearch } from '../../features/search/components/address-search.tsx';
import { DemoTour } from '../../features/search/components/demo-tour.tsx';
import {
  addRecentSearch,
  clearRecentSearches,
  useRecentSearches,
} from '../../features/search/lib/recent-searches.ts';

// Comparing candidates is the review feature's view: loaded only when someone asks for it.
const CandidateComparison = lazy(() => import('../../features/review/results/candidate-comparison.tsx'));
const renderCompare: RenderCompare = (candidates, close) => (
  <Suspense fallback={<p role="status">Loading the comparison…</p>}>
    <CandidateComparison candidates={candidates} onClose={close} />
  </Suspense>
);

const searchLink = (address: string) => `/search?${new URLSearchParams({ address })}`;

function useOnline(): boolean {
  return useSyncExternalStore(
    (l) => onlineManager.subscribe(l),
    () => onlineManager.isOnline(),
    () => true,
  );
}

function AddressLinks({ addresses }: { addresses: readonly string[] }) {
  return (
    <ul className="mt-2 space-y-1 text-sm">
      {addresses.map((a) => (
        <li key={a}>
          <Link
            className="text-teal-800 underline-offset-2 hover:underline dark:text-teal-300"
            to={searchLink(a)}
          >
            {a}
          </Link>
        </li>
      ))}
    </ul>
  );
}

function StartHere({ demo }: { demo: boolean }) {
  const recent = useRecentSearches();
  return (
    <div className="grid gap-6 sm:grid-cols-2">
      {recent.length > 0 ? (
        <section
          aria-labelledby="recent-heading"
          className="rounded-xl border border-slate-200 bg-white p-5 dark:border-slate-800 dark:bg-slate-900"
        >
          <div className="flex items-center justify-between gap-2">
            <h2 id="recent-heading" className="text-sm font-semibold">
              Recent searches
            </h2>
            <Button variant="ghost" className="min-h-8 px-2 py-1 text-xs" onClick={clearRecentSearches}>
              Clear recent searches
            </Button>
          </div>
          <AddressLinks addresses={recent} />
          <p className="mt-3 text-xs text-slate-500 dark:text-slate-400">
            Kept in this browser only. Addresses, never keys.
          </p>
        </section>
      ) : null}
      {demo ? <DemoTour current="" folded={false} className="sm:col-span-2" /> : null}
    </div>
  );
}

/** The resolve query for the address in the URL, what the field and the tab title show, and the record's seeding. */
function useAddressResult(address: string) {
  const queryClient = useQueryClient();
  // A ZIP code alone asks for an area: it is listed, not resolved.
  const zip = zipOnly(address);
  // An intersection or a landmark is answered here, at no lookup's cost, unless asked for all the same.
  const [askAnyway, setAskAnyway] = useState<string | null>(null);
  const notAddress = askAnyway === address ? null : notAStreetAddress(address);
  const resolve = useQuery({
    ...resolveQueryOptions(address),
    enabled: address !== '' && zip === null && notAddress === null,
  });
  const match = resolve.data?.match ?? null;
  // A match on another directional or street type than typed may be another property: ask before showing it.
  const [shownFor, setShownFor] = useState<string | null>(null);
  const doubt = match !== null && qualityOf(match) === 'changed_meaning' && shownFor !== address;
  // After a match that changed what was typed, the field and the tab title show the record's address; what
  // was typed stays in the URL (a reload or a shared link explains the match again) and in the explanation.
  const shown = match && resolve.data ? resolve.data.property.address : address;

  useEffect(() => {
    document.title = shown ? `${shown} · PropLens` : 'Search · PropLens';
  }, [shown]);

  useEffect(() => {
    if (resolve.data) addRecentSearch(resolve.data.property.address);
  }, [resolve.data]);

  // A suggestion already carries its full record: put it where the resolve query will look, so opening it
  // is instant and costs no request.
  const seed = useCallback(
    (property: Property) => {
      const key = resolveQueryOptions(property.address).queryKey;
      if (!queryClient.getQueryData(key)) queryClient.setQueryData(key, { property, rateLimit: null });
    },
    [queryClient],
  );

  const retry = useCallback(() => void resolve.refetch(), [resolve.refetch]);

  // The field now shows the matched address: searching it again is answered at once, at no cost.
  useEffect(() => {
    if (match && resolve.data) seed(resolve.data.property);
  }, [match, resolve.data, seed]);

  return {
    zip,
    notAddress,
    askAnyway: () => setAskAnyway(address),
    resolve,
    match,
    doubt,
    shown,
    seed,
    retry,
    showAnyway: () => setShownFor(address),
  };
}

type AddressResult = ReturnType<typeof useAddressResult>;

export function SearchRoute() {
  const [params, setParams] = useSearchParams();
  const address = (params.get('address') ?? '').trim();
  const session = useQuery(sessionQueryOptions());
  const demo = session.data?.demo === true;
  const result = useAddressResult(address);

  const go = (next: string) => {
    const a = next.trim();
    if (a === '') return;
    setParams({ address: a });
  };

  return (
    <div className="space-y-6">
      <div data-print-hide>
        <h1 className="text-2xl font-bold tracking-tight">Find a property</h1>
        <p className="mt-1 text-sm text-slate-600 dark:text-slate-300">
          Every record shows where it came from, how confident the source is, and when it was last verified.
        </p>
      </div>
      <AddressSearch
        value={result.shown}
        onSubmit={go}
        onActivate={result.seed}
        detail={(property) => ({
          node: <ConfidenceMark level={property.confidence} />,
          label: confidenceText(property.confidence),
        })}
        onPick={(property) => {
          result.seed(property);
          go(property.address);
        }}
      />
      <div aria-live="polite" aria-busy={result.resolve.isFetching}>
        <SearchOutcome
          address={address}
          demo={demo}
          result={result}
          accountName={session.data?.account.name}
          accountId={session.data?.accountId}
        />
      </div>
      {demo && address !== '' ? <DemoTour current={address} folded /> : null}
    </div>
  );
}

/** What the address in the URL came to: where to start, an area, the record, an error, offline, or a wait. */
function SearchOutcome({
  address,
  demo,
  result,
  accountName,
  accountId,
}: {
  address: string;
  demo: boolean;
  result: AddressResult;
  accountName: string | undefined;
  accountId: string | undefined;
}) {
  const online = useOnline();
  const { zip, resolve, seed } = result;
  if (address === '') return <StartHere demo={demo} />;
  if (result.notAddress)
    return <NotAStreetAddress address={address} kind={result.notAddress} onSearchAnyway={result.askAnyway} />;
  if (zip)
    return (
      <AreaListing
        zip={zip}
        onOpen={seed}
        wrapPending={(skeleton) => <RateLimitWait>{skeleton}</RateLimitWait>}
      />
    );
  if (resolve.data)
    return (
      <div className="space-y-4">
        {result.match ? (
          <MatchNotice match={result.match} {...(result.doubt ? { onShow: result.showAnyway } : {})} />
        ) : null}
        {result.doubt ? null : (
          <>
            <div className="flex justify-end print:hidden">
              <Button variant="secondary" onClick={() => window.print()}>
                Print
              </Button>
            </div>
            <PropertyRecord
              demo={demo}
              property={resolve.data.property}
              retrieved={accountName ? { at: new Date(resolve.dataUpdatedAt), by: accountName } : undefined}
            />
            <BuildingUnits property={resolve.data.property} />
            {accountId ? <RecordHistory accountId={accountId} propertyId={resolve.data.property.id} /> : null}
          </>
        )}
      </div>
    );
  if (resolve.isError)
    return (
      <ResolveError
        error={resolve.error}
        address={address}
        onRetry={result.retry}
        renderCompare={renderCompare}
        demo={demo}
      />
    );
  if (!online || resolve.fetchStatus === 'paused')
    return (
      <Alert tone="warning" title="You are offline">
        <p>The search will run as soon as the connection is back.</p>
      </Alert>
    );
  return (
    <RateLimitWait>
      <RecordSkeleton />
    </RateLimitWait>
  );
}
