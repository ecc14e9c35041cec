import { useEffect } from 'react';
import { NotificationsList } from '../../features/monitoring/index.ts';

/** /notifications: the alerts monitored reviews left. */
export function NotificationsRoute() {
  useEffect(() => {
    document.title = 'Notifications · PropLens';
  }, []);
  return (
    <div className="space-y-4">
      <h1 className="text-2xl font-bold tracking-tight">Notifications</h1>
      <NotificationsList />
    </div>
  );
}
