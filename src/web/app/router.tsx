import { lazy, Suspense, useState } from 'react';
import { Navigate, Route, Routes } from 'react-router';
import { RateLimitMeter } from '../features/rate-limit/components/rate-limit-meter.tsx';
import { preloadReview } from '../features/review/api/preload-review.ts';
import { ProtectedLayout } from './layouts.tsx';
import { NotFoundRoute } from './routes/not-found.tsx';
import { SignInRoute } from './routes/sign-in.tsx';
import { loadSearchRoute } from './search-chunk.ts';

// The search screen loads on demand (and is preloaded once a sign-in is under way): the key screen, the
// first thing most visits show, stays small.
const SearchRoute = lazy(() => loadSearchRoute().then((m) => ({ default: m.SearchRoute })));
// The review workspace (papaparse, IndexedDB, the results' charts) loads only when a review is opened.
const ReviewRoute = lazy(() => import('./routes/review.tsx').then((m) => ({ default: m.ReviewRoute })));
const ActivityRoute = lazy(() => import('./routes/activity.tsx').then((m) => ({ default: m.ActivityRoute })));
const SettingsRoute = lazy(() => import('./routes/settings.tsx').then((m) => ({ default: m.SettingsRoute })));
const NotificationsRoute = lazy(() =>
  import('./routes/notifications.tsx').then((m) => ({ default: m.NotificationsRoute })),
);

/** A review's page: its code once loaded (kept to draw it without suspending), and the load under way. */
let reviewRunModule: typeof import('./routes/review-run.tsx') | null = null;
let reviewRunLoading: Promise<typeof import('./routes/review-run.tsx')> | null = null;
function loadReviewRunRoute() {
  reviewRunLoading ??= import('./routes/review-run.tsx').then(
    (m) => (reviewRunModule = m),
    (err: unknown) => {
      reviewRunLoading = null; // the next visit tries again
      throw err;
    },
  );
  return reviewRunLoading;
}
const LazyReviewRunRoute = lazy(() => loadReviewRunRoute().then((m) => ({ default: m.ReviewRunRoute })));
/**
 * Drawn straight away when its code came first: a lazy component suspends at least once even then, and React
 * holds what replaces a fallback for 300 ms after the fallback showed (a third of the first rows' time).
 */
function ReviewRunRoute() {
  const [Page] = useState(() => reviewRunModule?.ReviewRunRoute ?? LazyReviewRunRoute);
  return <Page />;
}
// Opened from its address (a reload, a link): the review's code and its first rows are asked for now, beside
// the session check, instead of one after the other once the session is known.
const openedReview = /^\/review\/([\w-]+)\/?$/.exec(window.location.pathname)?.[1];
if (openedReview) {
  void loadReviewRunRoute().catch(() => {});
  preloadReview(openedReview);
}

const VerifyRoute = lazy(() => import('./routes/verify.tsx').then((m) => ({ default: m.VerifyRoute })));

function RouteFallback() {
  return <div className="min-h-64" aria-busy="true" />;
}

/**
 * Declarative routes: we load data with React Query, not route loaders, so the data router's extra weight
 * (about 17 KB gzipped) buys nothing here.
 */
export function AppRoutes() {
  return (
    <Routes>
      <Route path="/" element={<Navigate to="/search" replace />} />
      <Route path="/sign-in" element={<SignInRoute />} />
      <Route
        path="/verify"
        element={
          <Suspense fallback={<RouteFallback />}>
            <VerifyRoute />
          </Suspense>
        }
      />
      <Route element={<ProtectedLayout headerExtra={<RateLimitMeter />} />}>
        <Route
          path="/search"
          element={
            <Suspense fallback={<RouteFallback />}>
              <SearchRoute />
            </Suspense>
          }
        />
        <Route
          path="/review"
          element={
            <Suspense fallback={<RouteFallback />}>
              <ReviewRoute />
            </Suspense>
          }
        />
        <Route
          path="/activity"
          element={
            <Suspense fallback={<RouteFallback />}>
              <ActivityRoute />
            </Suspense>
          }
        />
        <Route
          path="/settings"
          element={
            <Suspense fallback={<RouteFallback />}>
              <SettingsRoute />
            </Suspense>
          }
        />
        <Route
          path="/notifications"
          element={
            <Suspense fallback={<RouteFallback />}>
              <NotificationsRoute />
            </Suspense>
          }
        />
        <Route
          path="/review/:id"
          element={
            <Suspense fallback={<RouteFallback />}>
              <ReviewRunRoute />
            </Suspense>
          }
        />
      </Route>
      <Route path="*" element={<NotFoundRoute />} />
    </Routes>
  );
}
