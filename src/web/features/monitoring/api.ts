import { queryOptions, useMutation, useQueryClient } from '@tanstack/react-query';
import * as z from 'zod/mini';
import {
  type ChangeKind,
  type Monitor,
  MonitorListResponse,
  type MonitorRequest,
  NotificationsResponse,
} from '../../../contract/index.ts';
import { apiFetch } from '../../lib/api-client.ts';

/*
 * Monitored reviews (PUT/DELETE /api/reviews/:id/monitor, GET /api/monitors) and the alerts their runs leave
 * (GET /api/notifications, POST /api/notifications/read).
 */

export const monitorKeys = {
  list: ['monitors'] as const,
  notifications: ['notifications'] as const,
};

export const monitorsQueryOptions = () =>
  queryOptions({
    queryKey: monitorKeys.list,
    queryFn: ({ signal }) => apiFetch('/api/monitors', MonitorListResponse, { signal }),
    staleTime: 15_000,
  });

/** The alerts and the unread count; looked at again every 20 s while a page is open (an every-minute monitor's alert shows within its minute). */
export const notificationsQueryOptions = () =>
  queryOptions({
    queryKey: monitorKeys.notifications,
    queryFn: ({ signal }) => apiFetch('/api/notifications', NotificationsResponse, { signal }),
    staleTime: 15_000,
    refetchInterval: 20_000,
  });

export function useSetMonitor(reviewId: string) {
  const client = useQueryClient();
  return useMutation({
    mutationFn: (request: MonitorRequest) =>
      apiFetch(`/api/reviews/${encodeURIComponent(reviewId)}/monitor`, null, {
        method: 'PUT',
        body: request,
      }),
    onSettled: () => client.invalidateQueries({ queryKey: monitorKeys.list }),
  });
}

export function useStopMonitor(reviewId: string) {
  const client = useQueryClient();
  return useMutation({
    mutationFn: () =>
      apiFetch(`/api/reviews/${encodeURIComponent(reviewId)}/monitor`, null, { method: 'DELETE' }),
    onSettled: () => client.invalidateQueries({ queryKey: monitorKeys.list }),
  });
}

export function useMarkRead() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: (ids: string[] | 'all') =>
      apiFetch('/api/notifications/read', z.object({ unread: z.int() }), {
        method: 'POST',
        body: ids === 'all' ? { all: true } : { ids },
      }),
    onSettled: () => client.invalidateQueries({ queryKey: monitorKeys.notifications }),
  });
}

export const INTERVAL_LABEL: Record<Monitor['interval'], string> = {
  minute: 'Every minute',
  hour: 'Every hour',
  day: 'Every day',
  week: 'Every week',
};

export const KIND_LABEL: Record<ChangeKind, string> = {
  confidence_dropped: 'confidence dropped',
  source_changed: 'source changed',
  other_property: 'another property',
  stale: 'stale',
  no_longer_found: 'no longer found',
  other: 'other changes',
};

const WEEKDAY = ['Sunday', 'Monday', 'Tuesday', 'Wednesday', 'Thursday', 'Friday', 'Saturday'];

/** "Every day at 09:00 (Europe/Paris)", as the list and the review page say it. */
export function scheduleText(m: Pick<Monitor, 'interval' | 'timeOfDay' | 'timeZone' | 'weekday'>): string {
  if (m.interval === 'minute') return 'Every minute';
  if (m.interval === 'hour') return `Every hour at minute ${m.timeOfDay.slice(3)} (${m.timeZone})`;
  const day = m.interval === 'week' ? ` on ${WEEKDAY[m.weekday] ?? ''}` : '';
  return `${INTERVAL_LABEL[m.interval]}${day} at ${m.timeOfDay} (${m.timeZone})`;
}
