import { lazy, Suspense } from 'react';
import { Link, Navigate, Route, Routes } from 'react-router';
import { RateLimitMeter } from '../features/rate-limit/components/rate-limit-meter.tsx';
import { PageShell, ProtectedLayout } from './layouts.tsx';
import { SignInRoute } from './routes/sign-in.tsx';

// The search screen loads on demand: the key screen, the first thing most visits show, stays small.
const SearchRoute = lazy(() => import('./routes/search.tsx').then((m) => ({ default: m.SearchRoute })));

function NotFound() {
  return (
    <PageShell>
      <h1 className="text-2xl font-bold">Page not found</h1>
      <p className="mt-2">
        <Link className="underline" to="/search">
          Go to search
        </Link>
      </p>
    </PageShell>
  );
}

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
      <Route element={<ProtectedLayout headerExtra={<RateLimitMeter />} />}>
        <Route
          path="/search"
          element={
            <Suspense fallback={<RouteFallback />}>
              <SearchRoute />
            </Suspense>
          }
        />
      </Route>
      <Route path="*" element={<NotFound />} />
    </Routes>
  );
}
