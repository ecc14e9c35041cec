import { createBrowserRouter, Link, Navigate } from 'react-router';
import { PageShell, ProtectedLayout } from './layouts.tsx';
import { SearchRoute } from './routes/search.tsx';
import { SignInRoute } from './routes/sign-in.tsx';

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

export function createRouter() {
  return createBrowserRouter([
    { path: '/', element: <Navigate to="/search" replace /> },
    { path: '/sign-in', element: <SignInRoute /> },
    { element: <ProtectedLayout />, children: [{ path: '/search', element: <SearchRoute /> }] },
    { path: '*', element: <NotFound /> },
  ]);
}
