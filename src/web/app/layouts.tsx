import { useQuery, useQueryClient } from '@tanstack/react-query';
import type { ReactNode } from 'react';
import { Link, Navigate, Outlet, useLocation, useNavigate } from 'react-router';
import { Button } from '../components/ui/button.tsx';
import { useDeleteSession } from '../features/auth/api/delete-session.ts';
import { sessionEndedKey, sessionQueryOptions } from '../features/auth/api/get-session.ts';

export function Logo() {
  return (
    <span className="inline-flex items-center gap-2 text-lg font-bold tracking-tight">
      <svg aria-hidden="true" viewBox="0 0 32 32" className="size-7">
        <rect width="32" height="32" rx="7" className="fill-teal-700 dark:fill-teal-500" />
        <circle cx="14" cy="14" r="7" fill="none" stroke="white" strokeWidth="3" />
        <path d="M19 19l6 6" stroke="white" strokeWidth="3" strokeLinecap="round" />
      </svg>
      PropLens
    </span>
  );
}

export function Footer() {
  return (
    <footer className="mx-auto w-full max-w-6xl px-4 py-6 text-xs text-slate-500 dark:text-slate-400">
      Records come from the Property Intelligence Service; each states its source, confidence and verification
      date. Reference demo data uses ZIP code data from{' '}
      <a className="underline" href="https://www.geonames.org/" rel="noreferrer">
        GeoNames
      </a>{' '}
      (CC BY 4.0).
    </footer>
  );
}

export function PageShell({ header, children }: { header?: ReactNode; children: ReactNode }) {
  return (
    <div className="flex min-h-screen flex-col">
      <a
        href="#main"
        className="sr-only rounded bg-white px-3 py-2 text-sm font-semibold focus:not-sr-only focus:absolute focus:left-2 focus:top-2 dark:bg-slate-900"
      >
        Skip to content
      </a>
      {header}
      <main id="main" className="mx-auto w-full max-w-6xl flex-1 px-4 py-6 sm:py-10">
        {children}
      </main>
      <Footer />
    </div>
  );
}

/** Everything behind sign-in. With no session, go to the key screen and come back here afterwards. */
export function ProtectedLayout({ headerExtra }: { headerExtra?: ReactNode }) {
  const session = useQuery(sessionQueryOptions());
  const location = useLocation();
  const navigate = useNavigate();
  const signOut = useDeleteSession();
  const queryClient = useQueryClient();

  if (session.isPending) {
    return (
      <PageShell>
        <p role="status" className="text-sm text-slate-600 dark:text-slate-400">
          Checking your session…
        </p>
      </PageShell>
    );
  }
  if (session.isError) {
    return (
      <PageShell>
        <p role="alert">PropLens could not check your session. Reload the page to try again.</p>
      </PageShell>
    );
  }
  if (session.data === null) {
    const next = `${location.pathname}${location.search}`;
    const expired = queryClient.getQueryData(sessionEndedKey) === true;
    return <Navigate to={`/sign-in?next=${encodeURIComponent(next)}`} replace state={{ expired }} />;
  }
  const { account } = session.data;
  return (
    <PageShell
      header={
        <header className="border-b border-slate-200 bg-white/90 dark:border-slate-800 dark:bg-slate-900/90">
          <div className="mx-auto flex w-full max-w-6xl flex-wrap items-center gap-x-4 gap-y-2 px-4 py-3">
            <Link to="/search" aria-label="PropLens home" className="mr-auto">
              <Logo />
            </Link>
            <p className="order-3 flex w-full flex-wrap items-center gap-x-3 gap-y-1 text-sm sm:order-none sm:w-auto">
              <span className="font-semibold">{account.name}</span>
              {account.plan ? (
                <span className="rounded-full bg-slate-200 px-2 py-0.5 text-xs font-medium text-slate-800 dark:bg-slate-700 dark:text-slate-100">
                  {account.plan.charAt(0).toUpperCase()}
                  {account.plan.slice(1)} plan
                </span>
              ) : null}
              {headerExtra}
            </p>
            <Button
              variant="secondary"
              disabled={signOut.isPending}
              onClick={() =>
                signOut.mutate(undefined, { onSettled: () => navigate('/sign-in', { replace: true }) })
              }
            >
              Sign out
            </Button>
          </div>
        </header>
      }
    >
      <Outlet />
    </PageShell>
  );
}
