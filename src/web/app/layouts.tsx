import { useQuery, useQueryClient } from '@tanstack/react-query';
import { type ReactNode, useState } from 'react';
import { Link, Navigate, NavLink, Outlet, useLocation, useNavigate } from 'react-router';
import type { Account } from '../../contract/index.ts';
import { Button } from '../components/ui/button.tsx';
import { useDeleteSession } from '../features/auth/api/delete-session.ts';
import { sessionQueryOptions } from '../features/auth/api/get-session.ts';
import { useSessionFlags } from '../features/auth/session-flags.ts';
import { NotificationsLink } from '../features/monitoring/notifications-link.tsx';
import { RateLimitMeter } from '../features/rate-limit/components/rate-limit-meter.tsx';
import { custodyQueryOptions } from '../features/settings/index.ts';

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
      (CC BY 4.0).{' '}
      <Link className="underline" to="/verify">
        Verify
      </Link>
    </footer>
  );
}

/**
 * The bar every page starts with, from the first paint: index.html draws the same bar (keep them alike)
 * before the script runs, so a cold load never shows a blank page or a header that jumps. Its first row has
 * a fixed height whatever it holds, so the logo stays where it is when the account's details arrive.
 */
export function SiteHeader({ children }: { children?: ReactNode }) {
  return (
    <header className="border-b border-slate-200 bg-white/90 dark:border-slate-800 dark:bg-slate-900/90 print:hidden">
      <div className="mx-auto flex min-h-16 w-full max-w-6xl flex-wrap items-center gap-x-4 gap-y-2 px-4 py-3">
        <Link to="/search" aria-label="PropLens home">
          <Logo />
        </Link>
        {children}
      </div>
    </header>
  );
}

/**
 * `settled={false}` while what the page shows is still being decided (the session, the configuration): only
 * the header is drawn, with `children` as a status for screen readers. A main area or footer drawn now would
 * be pushed about when the header fills in and the content arrives (layout shifts); they come with it.
 */
export function PageShell({
  header,
  children,
  settled = true,
}: {
  header?: ReactNode;
  children: ReactNode;
  settled?: boolean;
}) {
  if (!settled) {
    return (
      <div className="flex min-h-screen flex-col">
        {header}
        {children}
      </div>
    );
  }
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

/**
 * A page open to anyone (/verify, a page that does not exist): the signed-in header and navigation when someone
 * is, the plain bar when not; its content drawn once that is known (a signed-in header is taller), so the header
 * filling in never pushes it down.
 */
export function OpenPageShell({ children }: { children: ReactNode }) {
  const session = useQuery(sessionQueryOptions());
  const header = session.data ? (
    <AccountHeader account={session.data.account} extra={<RateLimitMeter />} />
  ) : (
    <SiteHeader />
  );
  return (
    <PageShell header={header} settled={!session.isPending}>
      {session.isPending ? null : children}
    </PageShell>
  );
}

/** Everything behind sign-in. With no session, go to the key screen and come back here afterwards. */
export function ProtectedLayout({ headerExtra }: { headerExtra?: ReactNode }) {
  const session = useQuery(sessionQueryOptions());
  const location = useLocation();
  const flags = useSessionFlags();

  if (session.isPending) {
    // The same shell as every other state, with nothing in it yet: no flash of words that vanish at once.
    return (
      <PageShell header={<SiteHeader />} settled={false}>
        <p role="status" className="sr-only">
          Checking your session…
        </p>
      </PageShell>
    );
  }
  if (session.isError) {
    return (
      <PageShell header={<SiteHeader />}>
        <p role="alert">PropLens could not check your session. Reload the page to try again.</p>
      </PageShell>
    );
  }
  if (session.data === null) {
    // Signed out on purpose: the page that was open is that account's, not a place to come back to.
    if (flags.signedOut) return <Navigate to="/sign-in" replace />;
    const next = `${location.pathname}${location.search}`;
    const expired = flags.ended;
    return <Navigate to={`/sign-in?next=${encodeURIComponent(next)}`} replace state={{ expired }} />;
  }
  return (
    <PageShell header={<AccountHeader account={session.data.account} extra={headerExtra} />}>
      <Outlet />
    </PageShell>
  );
}

const NAV_LINK =
  'rounded-md px-2 py-1 text-teal-800 underline-offset-4 hover:underline aria-[current=page]:underline dark:text-teal-300';

/** The header of a signed-in page: who is signed in, on which plan, what is left of the rate limit. */
export function AccountHeader({ account, extra }: { account: Account; extra?: ReactNode }) {
  const navigate = useNavigate();
  const signOut = useDeleteSession();
  const queryClient = useQueryClient();
  const session = useQuery(sessionQueryOptions()).data;
  const [confirm, setConfirm] = useState<ReviewsAtSignOut | null>(null);
  const demo = session?.demo ?? false;
  const leave = () => {
    setConfirm(null);
    // A demo visitor's own reviews are removed by the BFF at this sign-out (after the confirmation said so).
    signOut.mutate(undefined, { onSettled: () => navigate('/sign-in', { replace: true }) });
  };
  const askFirst = async () => {
    // Loaded on demand: only a sign-out needs the review list.
    const reviews = await import('../features/review/run/sign-out.ts')
      .then((m) => m.reviewsAtSignOut(session?.keyFingerprint))
      .catch(() => ({ running: 0, mine: 0 }));
    // A demo: only this visitor's reviews go, and other visitors' running ones are theirs to mind. With "Work
    // while I'm signed out" on, running reviews go on with the kept key: nothing pauses, nothing to ask.
    const kept =
      !demo && reviews.running > 0 && session
        ? await queryClient
            .fetchQuery(custodyQueryOptions(session.accountId))
            .then((c) => c.on)
            .catch(() => false)
        : false;
    if (demo ? reviews.mine > 0 : reviews.running > 0 && !kept) setConfirm(reviews);
    else leave();
  };
  return (
    <SiteHeader>
      <MainNav />
      {/* Left-aligned after the logo: the meter's text changes every second and must move nothing. At least 16rem
          wide, or it takes a row of its own: squeezed beside the links from 640 px, the account's name went one word
          a line and the header 273 px tall, wider than the window. */}
      <p className="order-3 flex w-full flex-wrap items-center gap-x-3 gap-y-1 text-sm sm:order-none sm:w-auto sm:min-w-64 sm:flex-1">
        <span className="font-semibold">{account.name}</span>
        {account.plan ? (
          <span className="rounded-full bg-slate-200 px-2 py-0.5 text-xs font-medium text-slate-800 dark:bg-slate-700 dark:text-slate-100">
            {account.plan.charAt(0).toUpperCase()}
            {account.plan.slice(1)} plan
          </span>
        ) : null}
        {extra}
      </p>
      {/* On a phone: beside the logo; the links then take rows of their own, the account the last (177 px, was 220). */}
      <Button
        variant="secondary"
        className="order-1 ml-auto sm:order-none"
        disabled={signOut.isPending}
        onClick={() => void askFirst()}
      >
        Sign out
      </Button>
      {confirm ? (
        <SignOutConfirmation
          reviews={confirm}
          demo={demo}
          keyFingerprint={session?.keyFingerprint}
          onLeave={leave}
          onStay={() => setConfirm(null)}
        />
      ) : null}
    </SiteHeader>
  );
}

function MainNav() {
  return (
    <nav
      aria-label="Main"
      className="order-2 -mx-2 flex w-[calc(100%+1rem)] flex-wrap gap-x-1 text-sm font-semibold sm:order-none sm:mx-0 sm:w-auto"
    >
      <NavLink to="/search" className={NAV_LINK}>
        Search
      </NavLink>
      <NavLink to="/review" className={NAV_LINK}>
        Review
      </NavLink>
      <NavLink to="/activity" className={NAV_LINK}>
        Activity
      </NavLink>
      <NavLink to="/settings" className={NAV_LINK}>
        Settings
      </NavLink>
      <NotificationsLink className={NAV_LINK} />
    </nav>
  );
}

/** Reviews a sign-out would touch: the account's running ones, and those this demo visitor started. */
interface ReviewsAtSignOut {
  running: number;
  mine: number;
}

/** Asked before a sign-out that pauses running reviews, or that removes a demo visitor's reviews. */
function SignOutConfirmation({
  reviews,
  demo,
  keyFingerprint,
  onLeave,
  onStay,
}: {
  reviews: ReviewsAtSignOut;
  demo: boolean;
  keyFingerprint: string | undefined;
  onLeave: () => void;
  onStay: () => void;
}) {
  const { running, mine } = reviews;
  return (
    <div
      role="alertdialog"
      aria-labelledby="sign-out-title"
      className="order-4 w-full rounded-lg border border-amber-300 bg-amber-50 p-3 text-sm text-amber-950 dark:border-amber-700 dark:bg-amber-950/60 dark:text-amber-100"
    >
      <p id="sign-out-title" className="font-semibold">
        {demo ? 'Sign out and remove the demo reviews?' : 'Sign out and pause running reviews?'}
      </p>
      <p className="mt-1">
        {demo
          ? `Signing out removes the ${mine === 1 ? 'review' : `${mine} reviews`} you started in this demo (started by key ${keyFingerprint}): demo data is not kept. Other visitors’ reviews stay. Export any you want first: each review’s page has Export CSV and Export JSON.`
          : `${running} ${running === 1 ? 'review of this account is' : 'reviews of this account are'} still running. ${running === 1 ? 'It pauses' : 'They pause'} when nobody of the account is signed in, and ${running === 1 ? 'goes' : 'go'} on at the next sign-in.`}
      </p>
      <div className="mt-2 flex flex-wrap items-center gap-2">
        {demo ? (
          // Stays signed in: the list of reviews, where each opens to its Export.
          <Link
            to="/review"
            className="rounded-md px-2 py-2 font-semibold text-teal-800 underline underline-offset-4 dark:text-teal-300"
            onClick={onStay}
          >
            Export reviews first
          </Link>
        ) : null}
        <Button onClick={onLeave}>Sign out now</Button>
        <Button variant="secondary" onClick={onStay}>
          Stay signed in
        </Button>
      </div>
    </div>
  );
}
