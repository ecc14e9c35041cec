import { useQuery } from '@tanstack/react-query';
import { useEffect, useState } from 'react';
import { Navigate, useLocation, useSearchParams } from 'react-router';
import { Alert } from '../../components/ui/alert.tsx';
import { configQueryOptions } from '../../features/auth/api/get-config.ts';
import { sessionQueryOptions } from '../../features/auth/api/get-session.ts';
import { KeyForm } from '../../features/auth/components/key-form.tsx';
import { previousAccount } from '../../lib/account-scope.ts';
import { PageShell, SiteHeader } from '../layouts.tsx';
import { loadSearchRoute } from '../search-chunk.ts';

/** Only same-app paths: a crafted ?next= must not send a person to another site after sign-in. */
export function safeNext(next: string | null): string {
  if (!next?.startsWith('/') || next.startsWith('//') || next.startsWith('/\\')) return '/search';
  return next;
}

export function SignInRoute() {
  const [params] = useSearchParams();
  const location = useLocation();
  // Asked only when this browser was signed in and did not sign out: a first visit or a signed-out one has no
  // session to find, and the question would only earn a 401 (an error in the console).
  const session = useQuery({ ...sessionQueryOptions(), enabled: previousAccount() !== null });
  const config = useQuery(configQueryOptions());
  // Whose page `next=` is: the account signed in (or last signed in) on this browser when a sign-in began.
  const [nextOwner, setNextOwner] = useState<string | null>(null);
  const next = safeNext(params.get('next'));
  const expired = (location.state as { expired?: boolean } | null)?.expired === true && params.has('next');

  useEffect(() => {
    document.title = 'Sign in · PropLens';
  }, []);

  if (session.data) {
    // A `next=` left by another account's session (it ended here) is that account's page: not followed.
    const theirs = nextOwner !== null && nextOwner !== session.data.accountId;
    return <Navigate to={theirs ? '/search' : next} replace />;
  }

  return (
    // Drawn once the configuration says whether there are demo keys: the screen appears whole, and a demo
    // section arriving late never pushes the footer down (a layout shift).
    <PageShell header={<SiteHeader />} settled={!config.isPending}>
      {config.isPending ? null : (
        <div className="mx-auto max-w-md">
          <div className="mb-6 text-center">
            <h1 className="text-2xl font-bold tracking-tight">Sign in to PropLens</h1>
            <p className="mt-2 text-sm text-slate-600 dark:text-slate-400">
              Resolve any US street address to a property record, and see at a glance whether it can be relied
              on.
            </p>
          </div>
          {expired ? (
            <div className="mb-4">
              <Alert tone="info" title="Your session has ended">
                <p>Sign in again and you will be taken back to where you were.</p>
              </Alert>
            </div>
          ) : null}
          <div className="rounded-xl border border-slate-200 bg-white p-6 shadow-sm dark:border-slate-800 dark:bg-slate-900">
            <KeyForm
              onSigningIn={() => {
                setNextOwner(previousAccount());
                // The search screen's code is fetched while the key is checked, so it opens at once.
                void loadSearchRoute().catch(() => {});
              }}
            />
          </div>
        </div>
      )}
    </PageShell>
  );
}
