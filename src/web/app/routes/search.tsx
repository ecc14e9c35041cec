import { onlineManager, useQuery, useQueryClient } from '@tanstack/react-query';
import { useCallback, useEffect, useSyncExternalStore } from 'react';
import { Link, useSearchParams } from 'react-router';
import type { Property } from '../../../contract/index.ts';
import { Alert } from '../../components/ui/alert.tsx';
import { Button } from '../../components/ui/button.tsx';
import { configQueryOptions } from '../../features/auth/api/get-config.ts';
import { resolveQueryOptions } from '../../features/property/api/resolve-property.ts';
import { PropertyRecord, RecordSkeleton } from '../../features/property/components/property-record.tsx';
import { ResolveError } from '../../features/property/components/resolve-states.tsx';
import { RateLimitWait } from '../../features/rate-limit/components/rate-limit-wait.tsx';
import { AddressSearch } from '../../features/search/components/address-search.tsx';
import {
  addRecentSearch,
  clearRecentSearches,
  useRecentSearches,
} from '../../features/search/lib/recent-searches.ts';

const EXAMPLES = [
  '1100 congress avenue austin tx',
  '233 S Wacker Dr, Chicago IL',
  '742 Evergreen Terrace, Springfield, OR',
  '100 Main St',
];

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

function StartHere() {
  const recent = useRecentSearches();
  const config = useQuery(configQueryOptions());
  const demo = (config.data?.demoKeys?.length ?? 0) > 0;
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
      {demo ? (
        <section
          aria-labelledby="examples-heading"
          className="rounded-xl border border-dashed border-teal-600/50 p-5"
        >
          <h2 id="examples-heading" className="text-sm font-semibold">
            Try a demo address
          </h2>
          <AddressLinks addresses={EXAMPLES} />
        </section>
      ) : null}
    </div>
  );
}

export function SearchRoute() {
  const [params, setParams] = useSearchParams();
  const address = (params.get('address') ?? '').trim();
  const queryClient = useQueryClient();
  const online = useOnline();
  const resolve = useQuery({ ...resolveQueryOptions(address), enabled: address !== '' });

  useEffect(() => {
    document.title = address ? `${address} · PropLens` : 'Search · PropLens';
  }, [address]);

  useEffect(() => {
    if (resolve.data) addRecentSearch(resolve.data.property.address);
  }, [resolve.data]);

  const go = (next: string) => {
    const a = next.trim();
    if (a === '') return;
    setParams({ address: a });
  };

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

  return (
    <div className="space-y-6">
      <div>
        <h1 className="text-2xl font-bold tracking-tight">Find a property</h1>
        <p className="mt-1 text-sm text-slate-600 dark:text-slate-300">
          Every record shows where it came from, how confident the source is, and when it was last verified.
        </p>
      </div>
      <AddressSearch
        value={address}
        onSubmit={go}
        onActivate={seed}
        onPick={(property) => {
          seed(property);
          go(property.address);
        }}
      />
      <div aria-live="polite" aria-busy={resolve.isFetching}>
        {address === '' ? (
          <StartHere />
        ) : resolve.data ? (
          <PropertyRecord property={resolve.data.property} />
        ) : resolve.isError ? (
          <ResolveError error={resolve.error} address={address} onRetry={retry} />
        ) : !online || resolve.fetchStatus === 'paused' ? (
          <Alert tone="warning" title="You are offline">
            <p>The search will run as soon as the connection is back.</p>
          </Alert>
        ) : (
          <RateLimitWait>
            <RecordSkeleton />
          </RateLimitWait>
        )}
      </div>
    </div>
  );
}
