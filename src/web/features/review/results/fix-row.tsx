import { useMutation } from '@tanstack/react-query';
import { type FormEvent, type ReactNode, useEffect, useId, useRef, useState } from 'react';
import { Link } from 'react-router';
import type {
  Candidate,
  FixRowRequest,
  FixRowResponse,
  ReviewRowResult,
  RowFix,
} from '../../../../contract/index.ts';
import { Alert } from '../../../components/ui/alert.tsx';
import { Button } from '../../../components/ui/button.tsx';
import { inputClass, labelClass } from '../../../components/ui/field.ts';
import { ApiRequestError } from '../../../lib/api-client.ts';
import { formatDateTime } from '../../../lib/format.ts';
import { ConfidenceMark, searchLink } from '../../property/index.ts';
import { fixRow } from '../api/server-reviews.ts';

type Attempt = NonNullable<FixRowResponse['attempt']> & { address: string };

/** How many candidates there are, and how many are listed when the service said there are more. */
export function candidateCount(listed: number, total: number | undefined): string {
  if (total !== undefined && total > listed) return `Showing ${listed} of ${total} candidates`;
  return `${listed} ${listed === 1 ? 'candidate' : 'candidates'}`;
}

/** What an address looked up from the row found, when it was not one property. */
function attemptTitle(attempt: Attempt): string {
  if (attempt.outcome === 'ambiguous') return `“${attempt.address}” matches more than one property.`;
  if (attempt.outcome === 'matched') return 'That candidate now finds another property.';
  return `Still no match for “${attempt.address}”.`;
}

/**
 * Fix an ambiguous, unmatched or failed row without leaving the review: choose one of the candidates ("Use
 * this one"), or edit the address and "Look up again". The row takes the answer only when the address finds
 * one property; otherwise it stays as it was, and what the address found is shown here to choose from.
 */
export function FixRow({
  reviewId,
  row,
  onFixed,
  children,
}: {
  reviewId: string;
  row: ReviewRowResult;
  onFixed: (row: ReviewRowResult) => void;
  /** Under the candidates: Compare, when there are enough. */
  children?: ReactNode;
}) {
  const [attempt, setAttempt] = useState<Attempt | null>(null);
  const fix = useMutation({
    mutationFn: (input: FixRowRequest) => fixRow(reviewId, row.index, input),
    onSuccess: (answer, input) => {
      if (answer.fixed) {
        setAttempt(null);
        onFixed(answer.row);
      } else if (answer.attempt) setAttempt({ ...answer.attempt, address: input.address });
    },
  });
  const candidates = attempt ? (attempt.candidates ?? []) : (row.candidates ?? []);
  const total = attempt ? attempt.error?.total : row.error?.total;
  const use = (c: Candidate) => fix.mutate({ address: c.address, candidateId: c.id });
  return (
    <div className="space-y-4">
      {attempt ? (
        <AttemptNotice key={fix.submittedAt} title={attemptTitle(attempt)}>
          <p>
            {attempt.outcome === 'matched'
              ? attempt.error?.message
              : candidates.length > 0
                ? 'The row is unchanged. Choose one of the candidates below, or edit the address and look it up again.'
                : 'The row is unchanged. Edit the address and look it up again.'}
          </p>
        </AttemptNotice>
      ) : null}
      {attempt === null &&
      (row.outcome === 'matched' || row.outcome === 'failed') ? null : candidates.length > 0 ? (
        <div>
          <p className="text-sm font-semibold">{candidateCount(candidates.length, total)}</p>
          <ul
            aria-label="Candidates"
            className="mt-2 divide-y divide-slate-200 rounded-lg border border-slate-200 bg-white dark:divide-slate-800 dark:border-slate-700 dark:bg-slate-900"
          >
            {candidates.map((c) => (
              <CandidateChoice key={c.id} candidate={c} busy={fix.isPending} onUse={() => use(c)} />
            ))}
          </ul>
          {children}
        </div>
      ) : (
        <p className="text-sm">The service offered no candidates: edit the address and look it up again.</p>
      )}
      <LookUpAgain
        initial={row.fix?.address ?? row.input}
        busy={fix.isPending}
        onSubmit={(address) => fix.mutate({ address })}
      />
      <FixStatus pending={fix.isPending ? fix.variables : undefined} error={fix.error} />
    </div>
  );
}

/** One candidate: its address (opens the search), its confidence, and "Use this one". */
function CandidateChoice({
  candidate,
  busy,
  onUse,
}: {
  candidate: Candidate;
  busy: boolean;
  onUse: () => void;
}) {
  const addressId = useId();
  return (
    <li className="flex flex-wrap items-center gap-x-3 gap-y-2 px-4 py-2.5">
      <Link
        id={addressId}
        to={searchLink(candidate.address)}
        className="min-w-0 flex-1 break-words text-sm font-medium text-teal-800 underline-offset-2 hover:underline dark:text-teal-300"
      >
        {candidate.address}
      </Link>
      {candidate.confidence ? <ConfidenceMark level={candidate.confidence} /> : null}
      <Button variant="secondary" aria-describedby={addressId} disabled={busy} onClick={onUse}>
        Use this one
      </Button>
    </li>
  );
}

/** The address, editable, and "Look up again"; what was typed stays whatever the answer. */
export function LookUpAgain({
  initial,
  busy,
  onSubmit,
}: {
  initial: string;
  busy: boolean;
  onSubmit: (address: string) => void;
}) {
  const [draft, setDraft] = useState(initial);
  const [empty, setEmpty] = useState(false);
  const id = useId();
  const submit = (e: FormEvent) => {
    e.preventDefault();
    const address = draft.trim();
    setEmpty(address === '');
    if (address) onSubmit(address);
  };
  return (
    <form aria-label="Look up again" onSubmit={submit} className="space-y-1">
      <label htmlFor={id} className={labelClass}>
        Address to look up
      </label>
      <div className="flex flex-wrap gap-2">
        <input
          id={id}
          value={draft}
          onChange={(e) => setDraft(e.target.value)}
          aria-invalid={empty || undefined}
          aria-describedby={empty ? `${id}-empty` : undefined}
          autoComplete="off"
          className={`${inputClass} min-h-10 min-w-0 flex-1 basis-64`}
        />
        <Button type="submit" disabled={busy}>
          Look up again
        </Button>
      </div>
      {empty ? (
        <p id={`${id}-empty`} className="text-sm text-red-800 dark:text-red-300">
          Enter the address to look up.
        </p>
      ) : null}
    </form>
  );
}

/**
 * What an address looked up from the row found instead of one property. Focus moves to it (the button that
 * asked may be gone), so a screen reader says it; a new attempt is a new notice.
 */
function AttemptNotice({ title, children }: { title: string; children: ReactNode }) {
  const ref = useRef<HTMLDivElement>(null);
  useEffect(() => ref.current?.focus(), []);
  return (
    <div ref={ref} tabIndex={-1} className="outline-none focus-visible:ring-2 focus-visible:ring-amber-600">
      <Alert tone="warning" title={title}>
        {children}
      </Alert>
    </div>
  );
}

/** "Looking up …" while the lookup runs; why it could not be made when it failed. */
function FixStatus({ pending, error }: { pending: FixRowRequest | undefined; error: Error | null }) {
  return (
    <>
      <p role="status" className="text-sm text-slate-600 dark:text-slate-400">
        {pending ? `Looking up “${pending.address}”…` : ''}
      </p>
      {error ? (
        <Alert
          tone="error"
          title={
            error instanceof ApiRequestError && error.status === 400
              ? 'That address cannot be looked up. The row is unchanged.'
              : 'The lookup could not be made. The row is unchanged.'
          }
        >
          <p>
            {error instanceof ApiRequestError ? error.message : 'PropLens could not be reached. Try again.'}
          </p>
        </Alert>
      ) : null}
    </>
  );
}

/** A row fixed by hand says so: what was looked up instead of the input, how, by whom and when. */
export function FixNotice({ fix, focusKey }: { fix: RowFix; focusKey: number }) {
  const ref = useRef<HTMLDivElement>(null);
  // Each fix made here (focusKey counts them) moves focus to the notice, so a screen reader says it.
  useEffect(() => {
    if (focusKey > 0) ref.current?.focus();
  }, [focusKey]);
  const when = formatDateTime(fix.at);
  return (
    <div
      ref={ref}
      tabIndex={-1}
      className="rounded-lg border border-teal-300 bg-teal-50 p-3 text-sm text-teal-950 outline-none focus-visible:ring-2 focus-visible:ring-teal-600 dark:border-teal-800 dark:bg-teal-950/50 dark:text-teal-100"
    >
      <p className="font-semibold">
        Fixed in the review: looked up as “{fix.address}”
        {fix.how === 'candidate' ? ' (a candidate chosen)' : ' (the address edited)'}.
      </p>
      <p>
        By key {fix.by}
        {when ? `, ${when}` : ''}. Check again looks up this address.
      </p>
    </div>
  );
}
