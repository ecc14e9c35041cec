import { useQuery } from '@tanstack/react-query';
import { useEffect } from 'react';
import { Link, useLocation, useNavigate } from 'react-router';
import { Button } from '../../components/ui/button.tsx';
import { sessionQueryOptions } from '../../features/auth/api/get-session.ts';
import { OpenPageShell } from '../layouts.tsx';

const linkClass =
  'inline-flex min-h-10 items-center rounded-md px-4 py-2 text-sm font-semibold bg-teal-700 text-white hover:bg-teal-800 dark:bg-teal-500 dark:text-slate-950 dark:hover:bg-teal-400';

/** A page that does not exist: the usual header (signed in or not), what happened, and the ways back. */
export function NotFoundRoute() {
  const session = useQuery(sessionQueryOptions());
  const location = useLocation();
  const navigate = useNavigate();
  // The first page of this visit has no page of ours before it to go back to.
  const canGoBack = location.key !== 'default';

  useEffect(() => {
    document.title = 'Page not found · PropLens';
  }, []);

  return (
    <OpenPageShell>
      <div className="max-w-xl">
        <p className="text-sm font-semibold text-teal-800 dark:text-teal-300">404</p>
        <h1 className="mt-1 text-2xl font-bold tracking-tight">Page not found</h1>
        <p className="mt-2 text-slate-700 dark:text-slate-300">
          There is no page at <code className="break-all font-mono text-sm">{location.pathname}</code>. The
          link may be mistyped or out of date.
        </p>
        <div className="mt-6 flex flex-wrap gap-3">
          <Link className={linkClass} to="/search">
            {session.data === null ? 'Sign in' : 'Go to search'}
          </Link>
          {canGoBack ? (
            <Button variant="secondary" onClick={() => navigate(-1)}>
              Back to the previous page
            </Button>
          ) : null}
        </div>
      </div>
    </OpenPageShell>
  );
}
