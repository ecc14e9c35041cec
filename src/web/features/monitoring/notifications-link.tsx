import { useQuery } from '@tanstack/react-query';
import { NavLink } from 'react-router';
import { notificationsQueryOptions } from './api.ts';

/** The header's link to /notifications, with the count of unread alerts (none shown while there are none). */
export function NotificationsLink({ className }: { className: string }) {
  const unread = useQuery(notificationsQueryOptions()).data?.unread ?? 0;
  return (
    <NavLink to="/notifications" className={className}>
      Notifications
      {unread > 0 ? ' ' : null}
      {unread > 0 ? (
        <span className="rounded-full bg-teal-700 px-1.5 text-xs text-white dark:bg-teal-500 dark:text-slate-950">
          {unread}
          <span className="sr-only"> unread</span>
        </span>
      ) : null}
    </NavLink>
  );
}
