import { useInfiniteQuery, useQuery } from '@tanstack/react-query';
import { type Dispatch, type SetStateAction, useEffect, useId, useMemo, useState } from 'react';
import { useSearchParams } from 'react-router';
import { Button } from '../../components/ui/button.tsx';
import {
  type AuditFilters,
  auditQueryOptions,
  auditSearch,
  downloadAuditCsv,
  NO_AUDIT_FILTERS,
} from '../../features/audit-trail/api/get-audit-entries.ts';
import { AuditEntryList } from '../../features/audit-trail/components/audit-entry-list.tsx';
import { OUTCOME_CHOICES } from '../../features/audit-trail/components/audit-table.tsx';
import { sessionQueryOptions } from '../../features/auth/api/get-session.ts';
import { useKeyNames } from '../../features/auth/index.ts';

const FIELD =
  'mt-1 w-full min-h-10 rounded-md border border-slate-400 bg-white px-3 text-sm shadow-sm dark:border-slate-600 dark:bg-slate-900';
const LABEL = 'block text-sm font-semibold';

/** /activity: the account's audit trail: who looked up what, when, and what it said. */
export function ActivityRoute() {
  const session = useQuery(sessionQueryOptions()).data;
  const id = useId();
  // The applied filters live in the address (?outcome=…&key=…): a filtered view can be reloaded, bookmarked and
  // sent to a colleague, and Back returns to the filters before.
  const [params, setParams] = useSearchParams();
  const filters = useMemo(() => filtersFrom(params), [params]);
  const [draft, setDraft] = useState<AuditFilters>(filters);
  useEffect(() => setDraft(filters), [filters]);
  const names = useKeyNames();
  const list = useInfiniteQuery({
    ...auditQueryOptions(session?.accountId ?? '', filters),
    enabled: Boolean(session),
  });
  useEffect(() => {
    document.title = 'Activity · PropLens';
  }, []);
  if (!session) return null;
  return (
    <div className="space-y-6">
      <AuditHeader accountName={session.account.name} />
      <AuditFilterForm
        id={id}
        draft={draft}
        onDraftChange={setDraft}
        filters={filters}
        onApply={() => setParams(auditSearch(draft))}
      />
      <AuditEntryList list={list} names={names} />
    </div>
  );
}

/** The filters named in the page's address; anything else there is ignored. */
function filtersFrom(params: URLSearchParams): AuditFilters {
  const filters = { ...NO_AUDIT_FILTERS };
  for (const name of Object.keys(filters) as (keyof AuditFilters)[])
    filters[name] = params.get(name)?.slice(0, 200) ?? '';
  return filters;
}

/** The page title and what the trail records. */
function AuditHeader({ accountName }: { accountName: string }) {
  return (
    <div>
      <h1 className="text-2xl font-bold tracking-tight">Activity</h1>
      <p className="mt-1 max-w-3xl text-sm text-slate-600 dark:text-slate-300">
        Every lookup made for {accountName}: who asked (by key fingerprint, never the key), when, what was
        asked and what the service said, and whether PropLens answered from its cache. Entries are never
        changed.
      </p>
    </div>
  );
}

/** The filters being edited (applied on submit), and the CSV export of the applied ones. */
function AuditFilterForm({
  id,
  draft,
  onDraftChange,
  filters,
  onApply,
}: {
  id: string;
  draft: AuditFilters;
  onDraftChange: Dispatch<SetStateAction<AuditFilters>>;
  filters: AuditFilters;
  onApply: () => void;
}) {
  const field = (name: keyof AuditFilters) => ({
    id: `${id}-${name}`,
    value: draft[name],
    onChange: (e: { target: { value: string } }) => onDraftChange((d) => ({ ...d, [name]: e.target.value })),
  });
  return (
    <form
      className="grid grid-cols-2 gap-3 sm:grid-cols-3 lg:grid-cols-6"
      onSubmit={(e) => {
        e.preventDefault();
        onApply();
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
        <input placeholder="key 1a2b3c4d" maxLength={20} className={FIELD} {...field('key')} />
      </div>
      <div className="col-span-2 flex flex-wrap items-end gap-2 sm:col-span-3 lg:col-span-6">
        <Button type="submit">Apply filters</Button>
        <ExportAuditCsv filters={filters} />
      </div>
    </form>
  );
}

/** The Export CSV button, and why the export failed if it did. */
function ExportAuditCsv({ filters }: { filters: AuditFilters }) {
  const [exporting, setExporting] = useState<string | null>(null);
  return (
    <>
      <Button
        type="button"
        variant="secondary"
        disabled={exporting === 'busy'}
        onClick={() => {
          setExporting('busy');
          downloadAuditCsv(filters).then(
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
    </>
  );
}
