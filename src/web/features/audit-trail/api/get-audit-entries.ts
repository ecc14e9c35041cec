import { infiniteQueryOptions, queryOptions } from '@tanstack/react-query';
import { AuditResponse } from '../../../../contract/index.ts';
import { apiDownload, apiFetch } from '../../../lib/api-client.ts';

/** What the Activity page is narrowed to; empty values are left out. */
export interface AuditFilters {
  from: string;
  to: string;
  outcome: string;
  q: string;
  key: string;
}

export const NO_AUDIT_FILTERS: AuditFilters = { from: '', to: '', outcome: '', q: '', key: '' };

export const auditKeys = {
  all: ['activity'] as const,
  list: (accountId: string, filters: AuditFilters) => ['activity', 'list', accountId, filters] as const,
  history: (accountId: string, propertyId: string) => ['activity', 'history', accountId, propertyId] as const,
};

export function auditSearch(
  filters: Partial<AuditFilters> & { propertyId?: string },
  cursor?: string | null,
) {
  const params = new URLSearchParams();
  for (const [name, value] of Object.entries(filters)) if (value) params.set(name, value);
  if (cursor) params.set('cursor', cursor);
  return params.toString();
}

export const getAuditEntries = (query: string, signal?: AbortSignal) =>
  apiFetch(`/api/activity${query ? `?${query}` : ''}`, AuditResponse, signal ? { signal } : {});

export const auditQueryOptions = (accountId: string, filters: AuditFilters) =>
  infiniteQueryOptions({
    queryKey: auditKeys.list(accountId, filters),
    queryFn: ({ pageParam, signal }) => getAuditEntries(auditSearch(filters, pageParam), signal),
    initialPageParam: null as string | null,
    getNextPageParam: (last) => last.nextCursor,
  });

/** Every time this account looked the property up, newest first. */
export const historyQueryOptions = (accountId: string, propertyId: string) =>
  queryOptions({
    queryKey: auditKeys.history(accountId, propertyId),
    queryFn: ({ signal }) => getAuditEntries(`${auditSearch({ propertyId })}&limit=200`, signal),
  });

/** The filtered activity as CSV, built by the server as a stream. */
export async function downloadAuditCsv(filters: AuditFilters): Promise<void> {
  const url = URL.createObjectURL(await apiDownload(`/api/activity/export.csv?${auditSearch(filters)}`));
  const a = document.createElement('a');
  a.href = url;
  a.download = `proplens-activity-${new Date().toISOString().slice(0, 10)}.csv`;
  document.body.append(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(url), 0);
}
