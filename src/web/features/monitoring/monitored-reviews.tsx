import { useQuery } from '@tanstack/react-query';
import { Link } from 'react-router';
import { formatDateTime } from '../../lib/format.ts';
import { monitorsQueryOptions, scheduleText } from './api.ts';

/** On /review: the account's monitored reviews with their next and last run (nothing while there are none). */
export function MonitoredReviews() {
  const list = useQuery(monitorsQueryOptions());
  const monitors = list.data?.monitors ?? [];
  if (monitors.length === 0) return null;
  return (
    <section aria-labelledby="monitored-reviews" className="space-y-2">
      <h2 id="monitored-reviews" className="text-lg font-semibold">
        Monitored reviews
      </h2>
      <ul className="divide-y divide-slate-200 rounded-xl border border-slate-200 bg-white text-sm dark:divide-slate-800 dark:border-slate-800 dark:bg-slate-900">
        {monitors.map((m) => (
          <li key={m.reviewId} className="flex flex-wrap gap-x-4 gap-y-1 px-4 py-3">
            <Link
              to={`/review/${m.reviewId}`}
              className="font-semibold text-teal-800 underline-offset-2 hover:underline dark:text-teal-300"
            >
              {m.reviewName}
            </Link>
            <span>{scheduleText(m)}</span>
            <span>
              {m.pausedReason
                ? m.pausedReason === 'unreadable'
                  ? 'Paused: its schedule could not be read'
                  : 'Paused: monthly cap reached'
                : `Next run ${formatDateTime(new Date(m.nextRunAt))}`}
            </span>
            <span>{m.lastRunAt ? `Last run ${formatDateTime(new Date(m.lastRunAt))}` : 'Not run yet'}</span>
          </li>
        ))}
      </ul>
    </section>
  );
}
