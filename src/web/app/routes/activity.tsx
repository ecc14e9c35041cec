import { useInfiniteQuery, useQuery } from '@tanstack/react-query';
import { useEffect, useId, useState } from 'react';
import { Button } from '../../components/ui/button.tsx';
import {
  type ActivityFilters,
  activityQueryOptions,
  downloadActivityCsv,
  NO_ACTIVITY_FILTERS,
} from '../../features/activity/api/get-activity.ts';
import { ActivityTable, OUTCOME_CHOICES } from '../../features/activity/components/activity-table.tsx';
import { sessionQueryOptions } from '../../features/auth/api/get-session.ts';
import { ApiRequestError } from '../../lib/api-client.ts';

const FIELD =
  'mt-1 w-full min-h-10 rounded-md border border-slate-400 bg-white px-3 text-sm shadow-sm dark:border-slate-600 dark:bg-slate-900';
const LABEL = 'block text-sm font-semibold';

/** /activity: the account's audit trail: who looked up what, when, and what it said. */
export function ActivityRoute() {
  const session = useQuery(sessionQueryOptions()).data;
  const id = useId();
  const [draft, setDraft] = useState<ActivityFilters>(NO_ACTIVITY_FILTERS);
  const [filters, setFilters] = useState<ActivityFilters>(NO_ACTIVITY_FILTERS);
  const [exporting, setExporting] = useState<string | null>(null);
  const list = useInfiniteQuery({
    ...activityQueryOptions(session?.accountId ?? '', filters),
    enabled: Boolean(session),
  });
  useEffect(() => {
    document.title = 'Activity · PropLens';
  }, []);
  if (!session) return null;
  const entries = list.data?.pages.flatMap((p) => p.entries) ?? [];
  const field = (name: keyof ActivityFilters) => ({
    id: `${id}-${name}`,
    value: draft[name],
    onChange: (e: { target: { value: string } }) => setDraft((d) => ({ ...d, [name]: e.target.value })),
  });
  return (
    <div className="space-y-6">
      <div>
        <h1 className="text-2xl font-bold tracking-tight">Activity</h1>
        <p className="mt-1 max-w-3xl text-sm text-slate-600 dark:text-slate-300">
          Every lookup made for {session.account.name}: who asked (by key fingerprint, never the key), when,
          what was asked and what the service said, and whether PropLens answered from its cache. Entries are
          never changed.
        </p>
      </div>
      <form
        className="grid grid-cols-2 gap-3 sm:grid-cols-3 lg:grid-cols-6"
        onSubmit={(e) => {
          e.preventDefault();
          setFilters(draft);
        }}
      >
        <div>
          <label htmlFor={`${id}-from`} className={LABEL}>
            From
          </label>
          <input type="date" className={FIELD} {...field('from')} />
        </div>
        <div>
          <label htmlFor={`${id}-to`} className={LABEL}>
            To
          </label>
          <input type="date" className={FIELD} {...field('to')} />
        </div>
        <div>
          <label htmlFor={`${id}-outcome`} className={LABEL}>
            Outcome
          </label>
          <select className={FIELD} {...field('outcome')}>
            <option value="">All outcomes</option>
            {OUTCOME_CHOICES.map(([value, text]) => (
              <option key={value} value={value}>
                {text}
              </option>
            ))}
          </select>
        </div>
        <div className="col-span-2 sm:col-span-1 lg:col-span-2">
          <label htmlFor={`${id}-q`} className={LABEL}>
            Address or property ID
          </label>
          <input type="search" maxLength={200} className={FIELD} {...field('q')} />
        </div>
        <div>
          <label htmlFor={`${id}-key`} className={LABEL}>
            Key
          </label>
          <input placeholder="8 hex digits" maxLength={8} className={FIELD} {...field('key')} />
        </div>
        <div className="col-span-2 flex flex-wrap items-end gap-2 sm:col-span-3 lg:col-span-6">
          <Button type="submit">Apply filters</Button>
          <Button
            type="button"
            variant="secondary"
            disabled={exporting === 'busy'}
            onClick={() => {
              setExporting('busy');
              downloadActivityCsv(filters).then(
                () => setExporting(null),
                () => setExporting('The export could not be made. Try again.'),
              );
            }}
          >
            Export CSV
          </Button>
          {exporting && exporting !== 'busy' ? (
            <p role="alert" className="text-sm text-red-700 dark:text-red-300">
              {exporting}
            </p>
          ) : null}
        </div>
      </form>
      {list.isError ? (
        <p role="alert" className="text-sm">
          {list.error instanceof ApiRequestError ? list.error.message : 'The activity could not be loaded.'}
        </p>
      ) : list.data ? (
        entries.length === 0 ? (
          <p className="text-sm">No activity matches these filters.</p>
        ) : (
          <>
            <ActivityTable entries={entries} />
            {list.hasNextPage ? (
              <Button
                variant="secondary"
                disabled={list.isFetchingNextPage}
                onClick={() => void list.fetchNextPage()}
              >
                Show older entries
              </Button>
            ) : (
              <p className="text-xs text-slate-600 dark:text-slate-400">That is the oldest entry kept.</p>
            )}
          </>
        )
      ) : (
        <p role="status" className="text-sm text-slate-600 dark:text-slate-400">
          Loading the activity…
        </p>
      )}
    </div>
  );
}
