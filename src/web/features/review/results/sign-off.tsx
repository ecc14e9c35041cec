import { useMutation, useQuery } from '@tanstack/react-query';
import { type FormEvent, type RefObject, useEffect, useId, useRef, useState } from 'react';
import {
  MAX_SIGN_OFF_REASON,
  type ReviewRun,
  type ReviewSignOff,
  type ReviewSummary,
} from '../../../../contract/index.ts';
import { Alert } from '../../../components/ui/alert.tsx';
import { Button } from '../../../components/ui/button.tsx';
import { hintClass, inputClass, labelClass } from '../../../components/ui/field.ts';
import { ApiRequestError } from '../../../lib/api-client.ts';
import { formatCount, formatDateTime } from '../../../lib/format.ts';
import { KeyLabel, sessionQueryOptions } from '../../auth/index.ts';
import { approveReview, signOffReview } from './decisions-api.ts';

/** Said beside every way of deciding a row of a signed-off review: a decision withdraws the sign-off. */
export const WITHDRAWS_SIGN_OFF =
  'This review is signed off: a decision now withdraws the sign-off, and its approval; it can be signed off again.';

/** WITHDRAWS_SIGN_OFF as the row's dialog and the selection bar say it, above their decision buttons. */
export function WithdrawsSignOff() {
  return <p className="text-sm text-amber-900 dark:text-amber-200">{WITHDRAWS_SIGN_OFF}</p>;
}

const errorText = (error: unknown) =>
  error instanceof ApiRequestError ? error.message : error ? 'That could not be saved. Try again.' : null;

/**
 * Who signed the review off, of which run, and when (with the reason rows were left undecided), and who approved
 * it. `latest`: the review's latest run, when it is later than the one signed off ("run 3 since"): a later run
 * that changes a row's answer withdraws the sign-off (the server's rule), one that changed none leaves it.
 */
export function SignOffLines({
  signOff,
  latest,
}: {
  signOff: ReviewSignOff;
  latest?: ReviewRun | undefined;
}) {
  const later = latest && latest.number > signOff.run ? latest : undefined;
  return (
    <>
      <p data-testid="signed-off">
        Signed off on run {signOff.run} by <KeyLabel fingerprint={signOff.by} />, {formatDateTime(signOff.at)}
        {signOff.reason ? ` (rows left undecided: “${signOff.reason}”)` : ''}.
        {later
          ? later.finishedAt
            ? ` Run ${later.number} since: no row’s answer changed.`
            : ` Run ${later.number} is running: if it changes a row’s answer, the sign-off is withdrawn.`
          : ''}
      </p>
      <p data-testid="approved">
        {signOff.approved ? (
          <>
            Approved by <KeyLabel fingerprint={signOff.approved.by} />, {formatDateTime(signOff.approved.at)}.
          </>
        ) : (
          'Not approved yet: another key of the account approves it.'
        )}
      </p>
    </>
  );
}

/**
 * Sign off the review (every row not excluded decided, or a reason for those that are not) and Approve it (by
 * another key of the account: the key that signed off is not offered Approve, and the server refuses it in words
 * should it try). A decision made after the sign-off withdraws it, as does a later run that changed a row's
 * answer; the review's next summary says so.
 */
export function SignOffPanel({
  review,
  undecided,
  onChanged,
}: {
  review: ReviewSummary;
  /** Rows (not excluded) without a decision. */
  undecided: number;
  onChanged?: (review: ReviewSummary) => void;
}) {
  const headingId = useId();
  const [reason, setReason] = useState('');
  // Signed off with rows undecided and no reason: said under the field, here, not by the server's refusal.
  const [noReason, setNoReason] = useState(false);
  const reasonInput = useRef<HTMLInputElement | null>(null);
  // The server's answer shows at once; the review's next summary (its live view) takes over from it.
  const [answer, setAnswer] = useState<ReviewSummary | null>(null);
  // biome-ignore lint/correctness/useExhaustiveDependencies: a new summary of the review replaces the answer
  useEffect(() => setAnswer(null), [review]);
  const done = (summary: ReviewSummary) => {
    setAnswer(summary);
    onChanged?.(summary);
  };
  const signOff = useMutation({
    mutationFn: () => signOffReview(review.id, { reason: reason.trim() }),
    onSuccess: done,
  });
  const approve = useMutation({ mutationFn: () => approveReview(review.id), onSuccess: done });
  const current = answer?.id === review.id ? answer.signOff : review.signOff;
  const withdrawn = useWithdrawn(current);
  const error = errorText(signOff.error ?? approve.error);
  // A reason typed answers "write the reason": the field is no longer marked.
  const typed = (text: string) => {
    setReason(text);
    if (text.trim()) setNoReason(false);
  };
  const submit = (e: FormEvent) => {
    e.preventDefault();
    const missing = undecided > 0 && reason.trim() === '';
    setNoReason(missing);
    if (missing) reasonInput.current?.focus();
    else signOff.mutate();
  };
  return (
    // Printed in the page's header instead (review-results.tsx PrintHeader).
    <section
      aria-labelledby={headingId}
      className="space-y-2 rounded-xl border border-slate-200 p-4 dark:border-slate-700 print:hidden"
    >
      <h2 id={headingId} className="text-lg font-semibold">
        Sign-off
      </h2>
      {!current && review.status !== 'done' && review.status !== 'cancelled' ? (
        <p className="text-sm">The review can be signed off once every row has its answer.</p>
      ) : current ? (
        <>
          <SignOffLines signOff={current} latest={(answer?.id === review.id ? answer : review).runs.at(-1)} />
          {error ? <Alert tone="error" title={error} /> : null}
          {current.approved ? null : (
            <ApproveAction signOff={current} pending={approve.isPending} onApprove={() => approve.mutate()} />
          )}
        </>
      ) : (
        <form onSubmit={submit} className="space-y-2 print:hidden">
          {withdrawn ? <WithdrawnNote signOff={withdrawn} /> : null}
          <p className="text-sm">
            {undecided === 0
              ? 'Every row has a decision: the review can be signed off.'
              : `${formatCount(undecided)} ${undecided === 1 ? 'row has' : 'rows have'} no decision yet: decide ${undecided === 1 ? 'it' : 'them'}, or say why you sign off without.`}
          </p>
          {undecided > 0 ? (
            <ReasonField value={reason} onChange={typed} missing={noReason} inputRef={reasonInput} />
          ) : null}
          {error ? <Alert tone="error" title={error} /> : null}
          <Button type="submit" disabled={signOff.isPending}>
            {signOff.isPending ? 'Signing off…' : 'Sign off'}
          </Button>
        </form>
      )}
    </section>
  );
}

/** Why the review is signed off with rows undecided: shown with the sign-off; said missing under the field. */
function ReasonField({
  value,
  onChange,
  missing,
  inputRef,
}: {
  value: string;
  onChange: (value: string) => void;
  missing: boolean;
  inputRef: RefObject<HTMLInputElement | null>;
}) {
  const id = useId();
  return (
    <>
      <label htmlFor={id} className={labelClass}>
        Reason for signing off with rows undecided
      </label>
      <input
        id={id}
        ref={inputRef}
        className={`${inputClass} h-10`}
        value={value}
        maxLength={MAX_SIGN_OFF_REASON}
        aria-invalid={missing || undefined}
        aria-describedby={missing ? `${id}-missing ${id}-hint` : `${id}-hint`}
        onChange={(e) => onChange(e.target.value)}
      />
      {missing ? (
        <p id={`${id}-missing`} className="text-sm text-red-800 dark:text-red-300">
          Write the reason, or decide the rows first.
        </p>
      ) : null}
      <p id={`${id}-hint`} className={hintClass}>
        Shown with the sign-off, on the printout and in the export.
      </p>
    </>
  );
}

/**
 * The sign-off this page showed and the review no longer has: a decision (or a run that changed an answer)
 * withdrew it, which the page says rather than going back to the empty form as if nothing had been signed.
 */
function useWithdrawn(current: ReviewSignOff | null | undefined): ReviewSignOff | null {
  const [withdrawn, setWithdrawn] = useState<ReviewSignOff | null>(null);
  const shown = useRef(current);
  useEffect(() => {
    if (current) setWithdrawn(null);
    else if (shown.current) setWithdrawn(shown.current);
    shown.current = current;
  }, [current]);
  return withdrawn;
}

function WithdrawnNote({ signOff }: { signOff: ReviewSignOff }) {
  return (
    <p
      role="status"
      className="rounded-md border border-amber-300 bg-amber-50 p-3 text-sm text-amber-900 dark:border-amber-700 dark:bg-amber-950 dark:text-amber-100"
    >
      The sign-off of run {signOff.run}
      {signOff.approved ? ', and its approval,' : ''} was withdrawn: a row’s decision or answer changed after
      it. Sign off again when the review is ready.
    </p>
  );
}

/**
 * Approve, offered to any key of the account but the one that signed off (the server refuses that one too): it is
 * told another key approves. Whose key this is, asked only here (the page's layout has it already).
 */
function ApproveAction({
  signOff,
  pending,
  onApprove,
}: {
  signOff: ReviewSignOff;
  pending: boolean;
  onApprove: () => void;
}) {
  const mine = useQuery(sessionQueryOptions()).data?.keyFingerprint;
  return signOff.by === mine ? (
    <p className="text-sm text-slate-600 dark:text-slate-300">
      You signed it off: approving it is for another key of the account.
    </p>
  ) : (
    <Button className="print:hidden" disabled={pending} onClick={onApprove}>
      {pending ? 'Approving…' : 'Approve'}
    </Button>
  );
}
