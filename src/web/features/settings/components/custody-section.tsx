import { useQuery } from '@tanstack/react-query';
import { useId } from 'react';
import type { CustodyState } from '../../../../contract/custody.ts';
import { ApiRequestError } from '../../../lib/api-client.ts';
import { DATE_TIME, formatDateTime } from '../../../lib/format.ts';
import { custodyQueryOptions, refusedSentence, useSetCustody } from '../api/custody.ts';

/** The section's anchor: the review page and the start form link here. */
export const CUSTODY_ANCHOR = 'work-while-signed-out';
export const CUSTODY_LABEL = "Work while I'm signed out";

const when = (iso: string | null) => (iso ? (formatDateTime(iso, DATE_TIME.long) ?? iso) : '');

/** What the switch's state means now, in one sentence (or none while off with nothing to say). */
function stateSentence(state: CustodyState): string | null {
  const by = state.keyFingerprint
    ? `key ${state.keyFingerprint}${state.keyName ? ` (${state.keyName})` : ''}`
    : 'a key of this account';
  if (state.on) return `On since ${when(state.since)}: reviews go on with ${by}.`;
  if (state.problem === 'refused') return refusedSentence(when(state.problemAt));
  if (state.problem === 'unreadable')
    return `The key kept by ${by} can no longer be read (the server’s key encryption secret changed). Turn this on again to keep your key.`;
  return null;
}

/**
 * Settings, "Work while I'm signed out": a switch that keeps this sign-in's key encrypted on the server, so the
 * account's reviews go on while nobody of it is signed in, and what that means, said before it is turned on.
 */
export function CustodySection({ accountId }: { accountId: string }) {
  const id = useId();
  const state = useQuery(custodyQueryOptions(accountId));
  const set = useSetCustody(accountId);
  const current = state.data;
  const on = current?.on ?? false;
  const reason = current ? (current.unavailableReason ?? null) : null;
  const sentence = current ? stateSentence(current) : null;
  return (
    <section
      id={CUSTODY_ANCHOR}
      aria-labelledby={`${id}-heading`}
      className="space-y-3 rounded-xl border border-slate-200 p-4 dark:border-slate-800"
    >
      <div className="flex items-center justify-between gap-4">
        <h2 id={`${id}-heading`} className="text-lg font-semibold">
          {CUSTODY_LABEL}
        </h2>
        <button
          type="button"
          role="switch"
          aria-checked={on}
          aria-labelledby={`${id}-heading`}
          aria-describedby={`${id}-about`}
          disabled={!current || reason !== null || set.isPending}
          onClick={() => set.mutate(!on)}
          className={`relative inline-flex h-7 w-12 shrink-0 items-center rounded-full transition-[background-color] disabled:cursor-not-allowed disabled:opacity-50 ${on ? 'bg-teal-700 dark:bg-teal-500' : 'bg-slate-400 dark:bg-slate-600'}`}
        >
          <span
            aria-hidden="true"
            className={`inline-block h-5 w-5 rounded-full bg-white shadow transition-transform ${on ? 'translate-x-6' : 'translate-x-1'}`}
          />
        </button>
      </div>
      <p id={`${id}-about`} className="text-sm text-slate-600 dark:text-slate-400">
        Reviews then go on while nobody of this account is signed in: signing out no longer stops them.
        PropLens keeps the API key you signed in with on its server, encrypted (AES-256-GCM), never in your
        browser, a log or an export. Any key of this account can turn it off, which deletes the kept key at
        once. Every lookup made with it is in Activity, marked unattended; if the service refuses the key,
        PropLens deletes it and reviews wait for a sign-in.
      </p>
      <p role="status" className="text-sm font-medium">
        {reason ?? sentence ?? ''}
      </p>
      {state.isError || set.isError ? (
        <p role="alert" className="text-sm font-medium text-red-700 dark:text-red-300">
          {set.error instanceof ApiRequestError
            ? set.error.message
            : state.error instanceof ApiRequestError
              ? state.error.message
              : 'PropLens could not change this.'}{' '}
          Try again.
        </p>
      ) : null}
    </section>
  );
}
