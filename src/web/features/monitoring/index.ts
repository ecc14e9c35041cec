/* Monitored reviews and their alerts (issue 29): what the review pages, the header and /notifications show. */
export { MonitoredReviews } from './monitored-reviews.tsx';
export { NotificationsLink } from './notifications-link.tsx';
export { NotificationsList } from './notifications-list.tsx';
export { ReviewMonitor } from './review-monitor.tsx';
