import { Link } from 'react-router';
import { addressKey } from '../../../../contract/index.ts';

/**
 * The showcase searches of the embedded reference service (README, "Addresses worth trying"), in the order
 * a demo tells its story: a record to rely on, then ones to doubt, then the states around a record, then many
 * addresses at once. Keep it in step with the README and the reference's showcase records. A stop is a search
 * (`address`), another page (`page`), or neither (told, not run).
 */
export const TOUR: readonly { title: string; address: string | null; page?: string; shows: string }[] = [
  {
    title: 'High confidence',
    address: '1100 congress avenue austin tx',
    shows: 'A fresh assessor record: the badges say it can be relied on, and the ZIP the service added.',
  },
  {
    title: 'Medium confidence',
    address: '233 S Wacker Dr, Chicago IL',
    shows: 'A recorded deed verified over a year ago: check the facts that matter.',
  },
  {
    title: 'Low confidence, stale',
    address: '742 Evergreen Terrace, Springfield, OR',
    shows: 'A building permit from years ago: the summary warns before anyone relies on it.',
  },
  {
    title: 'A typo',
    address: '1100 Congres Ave, Austn, TX',
    shows: 'Corrected to the right record, and the screen says exactly what was corrected.',
  },
  {
    title: 'Ambiguous',
    address: '100 Main St',
    // The count is the service's (thousands in the demo data): said, not guessed here.
    shows: 'Every match counted, as the service totals them: grouped by state, narrowed by state or city.',
  },
  {
    title: 'A unit',
    address: '615 Bourbon St Apt 9, New Orleans, LA 70116',
    shows: 'A unit that does not exist: the building and the units it has are offered instead.',
  },
  {
    title: 'A whole ZIP code',
    address: '78701',
    shows: 'Every property in the ZIP, page by page, with a way to review the area.',
  },
  {
    title: 'A review',
    address: null,
    page: '/review',
    shows:
      'Many addresses at once: the sample’s 31, as people type them, looked up on the server; the overview says which records to rely on and which need a look, and the export keeps every row.',
  },
  {
    title: 'Rate limit',
    address: null,
    shows:
      'The meter in the header counts the lookups left. When none are, a search waits, counts down and runs by itself: never a false “not found”.',
  },
];

const searchLink = (address: string) => `/search?${new URLSearchParams({ address })}`;

type Stop = (typeof TOUR)[number];
/** A title inside a sentence: "a whole ZIP code", its first letter only lowered (ZIP stays ZIP). */
const lowerFirst = (title: string) => title.charAt(0).toLowerCase() + title.slice(1);

/** Where a stop's link goes: its search, or its page; null for a stop that is only told. */
const stopLink = (s: Stop) => (s.address ? searchLink(s.address) : (s.page ?? null));

/** The tour's stops in order, each a link that runs its search, with the one shown marked as the current step. */
function TourSteps({ at, folded }: { at: number; folded: boolean }) {
  return (
    <ol className={`mt-3 grid gap-x-8 gap-y-3 text-sm ${folded ? '' : 'lg:grid-cols-2'}`}>
      {TOUR.map((s, i) => {
        const link = stopLink(s);
        return (
          <li key={s.title} className="flex gap-3">
            <span
              aria-hidden="true"
              className={`mt-0.5 inline-flex size-6 shrink-0 items-center justify-center rounded-full text-xs font-semibold ${i === at ? 'bg-teal-700 text-white dark:bg-teal-400 dark:text-slate-950' : 'bg-slate-200 text-slate-800 dark:bg-slate-700 dark:text-slate-100'}`}
            >
              {i + 1}
            </span>
            <div className="min-w-0">
              <p className="font-semibold">
                {link ? (
                  <Link
                    to={link}
                    aria-current={i === at ? 'step' : undefined}
                    className="text-teal-800 underline underline-offset-2 dark:text-teal-300"
                  >
                    {s.title}
                  </Link>
                ) : (
                  s.title
                )}
                {s.address ? (
                  <span className="ml-2 break-words font-mono text-xs font-normal text-slate-600 dark:text-slate-400">
                    {s.address}
                  </span>
                ) : null}
              </p>
              <p className="text-slate-700 dark:text-slate-300">{s.shows}</p>
            </div>
          </li>
        );
      })}
    </ol>
  );
}

/**
 * For demo keys only: the showcase searches in order, each with what it shows. On the empty search screen it
 * is open; next to a result it folds away, says which stop this is, and offers the next one.
 */
export function DemoTour({
  current,
  folded,
  className = '',
}: {
  current: string;
  folded: boolean;
  className?: string;
}) {
  const at = TOUR.findIndex((s) => s.address !== null && addressKey(s.address) === addressKey(current));
  const next = TOUR.slice(at + 1).find((s) => stopLink(s) !== null);
  const nextLink = next ? stopLink(next) : null;

  if (!folded) {
    return (
      <section
        aria-labelledby="tour-heading"
        data-print-hide
        className={`rounded-xl border border-dashed border-teal-600/50 p-5 ${className}`}
      >
        <h2 id="tour-heading" className="text-sm font-semibold">
          Demo tour
        </h2>
        <p className="mt-1 text-sm text-slate-600 dark:text-slate-400">
          The showcase searches of the demo data, in order: select one to run it.
        </p>
        <TourSteps at={at} folded={folded} />
      </section>
    );
  }
  return (
    <section
      aria-label="Demo tour"
      data-print-hide
      className="rounded-xl border border-dashed border-teal-600/50 px-5 py-3 text-sm"
    >
      <div className="flex flex-wrap items-center justify-between gap-x-4 gap-y-1">
        <p className="font-semibold">
          Demo tour
          {at >= 0 ? (
            <span className="font-normal">
              : stop {at + 1} of {TOUR.length}, {lowerFirst(TOUR[at]?.title ?? '')}
            </span>
          ) : null}
        </p>
        {next && nextLink ? (
          <Link
            to={nextLink}
            className="font-semibold text-teal-800 underline-offset-2 hover:underline dark:text-teal-300"
          >
            {at >= 0 ? 'Next' : 'Start'}: {lowerFirst(next.title)} →
          </Link>
        ) : null}
      </div>
      <details className="mt-1">
        <summary className="cursor-pointer text-slate-700 dark:text-slate-300">All stops</summary>
        <TourSteps at={at} folded={folded} />
      </details>
    </section>
  );
}
