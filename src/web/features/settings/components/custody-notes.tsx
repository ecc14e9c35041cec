import { useQuery } from '@tanstack/react-query';
import { Link } from 'react-router';
import { DATE_TIME, formatDateTime } from '../../../lib/format.ts';
import { sessionQueryOptions } from '../../auth/index.ts';
import { custodyQueryOptions, refusedSentence } from '../api/custody.ts';
import { CUSTODY_ANCHOR, CUSTODY_LABEL } from './custody-section.tsx';

const SETTINGS = `/settings#${CUSTODY_ANCHOR}`;

/** The account's custody as far as this page can know it (none when signed out or not asked yet). */
function useCustody() {
  const session = useQuery(sessionQueryOptions()).data;
  return useQuery({ ...custodyQueryOptions(session?.accountId ?? ''), enabled: Boolean(session) }).data;
}

/**
 * On an unfinished review: that the service refused the kept key, and when (it waited from then until a sign-in);
 * else, beside "Waiting for a sign-in", how to let it go on with nobody signed in.
 */
export function CustodyWaitingNote({ waiting }: { waiting: boolean }) {
  const custody = useCustody();
  if (custody?.problem === 'refused' && custody.problemAt)
    return (
      <p className="text-sm font-medium text-amber-800 dark:text-amber-300" data-testid="custody-refused">
        {refusedSentence(formatDateTime(custody.problemAt, DATE_TIME.long) ?? custody.problemAt)}
      </p>
    );
  if (!waiting) return null;
  return (
    <p className="text-sm text-slate-700 dark:text-slate-300">
      To let reviews go on while nobody is signed in, turn on{' '}
      <Link to={SETTINGS} className="font-semibold underline">
        {CUSTODY_LABEL}
      </Link>{' '}
      in Settings.
    </p>
  );
}

/** A review estimated to take at least this long may outlast the sign-in that starts it. */
export const OUTLASTS_MINUTES = 60;

/**
 * Offered before Start when the review will likely outlast the sign-in (an hour or more at the key's pace) and
 * the account keeps no key: what would happen, and where to change it.
 */
export function CustodyOffer({ minutes }: { minutes: number | null }) {
  const custody = useCustody();
  if (minutes === null || minutes < OUTLASTS_MINUTES || !custody || custody.on || !custody.available)
    return null;
  return (
    <p className="text-sm text-slate-700 dark:text-slate-300" data-testid="custody-offer">
      This review may outlast your sign-in: it waits while nobody of this account is signed in (after a
      sign-out, or once the sign-in ends). With{' '}
      <Link to={SETTINGS} className="font-semibold underline">
        {CUSTODY_LABEL}
      </Link>{' '}
      on, PropLens keeps your key encrypted on its server and the review finishes anyway.
    </p>
  );
}
