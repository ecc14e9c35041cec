import { useQuery } from '@tanstack/react-query';
import { Link } from 'react-router';
import type { AppNotification, ChangeKind } from '../../../contract/index.ts';
import { Button } from '../../components/ui/button.tsx';
import { formatCount, formatDateTime } from '../../lib/format.ts';
import { KIND_LABEL, notificationsQueryOptions, useMarkRead } from './api.ts';

/** "3 rows changed: 2 source changed, 1 confidence dropped". */
export function changeSummary(n: AppNotification): string {
  const rows = `${formatCount(n.rowsChanged)} ${n.rowsChanged === 1 ? 'row' : 'rows'} changed`;
  const kinds = Object.entries(n.counts)
    .filter(([, count]) => count > 0)
    .map(([kind, count]) => {
      const label =
        kind === 'other' && count === 1 ? 'other change' : (KIND_LABEL[kind as ChangeKind] ?? kind);
      return `${formatCount(count)} ${label}`;
    });
  return kinds.length > 0 ? `${rows}: ${kinds.join(', ')}` : rows;
}

/** The alerts monitored runs left, newest first: each links to its review's "Changes since" view. */
export function NotificationsList() {
  const page = useQuery(notificationsQueryOptions());
  const read = useMarkRead();
  if (page.isError)
    return <p role="alert">The notifications could not be loaded. Reload the page to try again.</p>;
  if (!page.data) return <p role="status">Loading notifications…</p>;
  const { notifications, unread } = page.data;
  if (notifications.length === 0)
    return (
      <p className="text-sm">
        No notifications yet. Monitor a finished review (Monitor, on its page) and a run that finds a change
        leaves one here.
      </p>
    );
  return (
    <div className="space-y-3">
      <p className="text-sm">
        {unread === 0 ? 'All read.' : `${formatCount(unread)} unread.`}{' '}
        {unread > 0 ? (
          <Button variant="secondary" disabled={read.isPending} onClick={() => read.mutate('all')}>
            Mark all read
          </Button>
        ) : null}
      </p>
      <ul className="divide-y divide-slate-200 rounded-xl border border-slate-200 bg-white dark:divide-slate-800 dark:border-slate-800 dark:bg-slate-900">
        {notifications.map((n) => (
          <li key={n.id} className="space-y-1 px-4 py-3 text-sm" data-unread={n.readAt === null}>
            <p className="flex flex-wrap gap-x-3">
              <span className="font-semibold">{n.reviewName ?? 'A deleted review'}</span>
              <span>run {n.run}</span>
              <time dateTime={n.createdAt}>{formatDateTime(new Date(n.createdAt))}</time>
              {n.readAt === null ? (
                <span className="font-semibold text-teal-800 dark:text-teal-300">New</span>
              ) : null}
            </p>
            <p>{changeSummary(n)}</p>
            {n.reviewName ? (
              <Link
                to={`/review/${n.reviewId}`}
                onClick={() => n.readAt === null && read.mutate([n.id])}
                className="text-teal-800 underline-offset-2 hover:underline dark:text-teal-300"
              >
                Changes since run {n.run - 1}
              </Link>
            ) : null}
          </li>
        ))}
      </ul>
    </div>
  );
}
