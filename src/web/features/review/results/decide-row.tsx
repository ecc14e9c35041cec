import { useMutation, useQuery } from '@tanstack/react-query';
import { useId, useState } from 'react';
import {
  type DecisionKind,
  MAX_DECISION_NOTE,
  type ReviewRowResult,
  type RowDecision,
  type RowDecisionStep,
} from '../../../../contract/index.ts';
import { Alert } from '../../../components/ui/alert.tsx';
import { Button } from '../../../components/ui/button.tsx';
import { hintClass, inputClass, labelClass } from '../../../components/ui/field.ts';
import { ApiRequestError } from '../../../lib/api-client.ts';
import { formatDateTime } from '../../../lib/format.ts';
import { KeyLabel } from '../../auth/index.ts';
import { DECIDE_TEXT, DECISION_TEXT, DECISIONS } from './decisions.ts';
import { decideRow, rowDecisionHistory } from './decisions-api.ts';
import { WithdrawsSignOff } from './sign-off.tsx';

const errorText = (error: unknown) =>
  error instanceof ApiRequestError
    ? error.message
    : error
      ? 'The decision could not be saved. Try again.'
      : null;

/**
 * The reviewer's decision on a row: Accept, Reject or Needs follow-up, with a note; who decided what and when,
 * and every earlier decision. A new decision keeps the earlier one in the row's history; the server's answer
 * replaces the row in every view.
 */
export function DecideRow({
  reviewId,
  row,
  onChanged,
  signedOff = false,
}: {
  reviewId: string;
  row: ReviewRowResult;
  onChanged: (row: ReviewRowResult) => void;
  /** The review is signed off: a decision withdraws it, said above the buttons. */
  signedOff?: boolean;
}) {
  const [note, setNote] = useState('');
  const headingId = useId();
  const noteId = useId();
  const hintId = useId();
  const [historyShown, setHistoryShown] = useState(false);
  const change = useMutation({
    mutationFn: (decision: DecisionKind | null) =>
      decideRow(reviewId, row.index, decision && { decision, note: note.trim() }),
    onSuccess: (answer) => {
      setNote('');
      onChanged(answer);
      // The history, when open, shows the decision just made.
      if (historyShown) history.refetch();
    },
  });
  const history = useQuery({
    queryKey: ['review', 'decisions', reviewId, row.index],
    queryFn: () => rowDecisionHistory(reviewId, row.index),
    enabled: historyShown,
  });
  const error = errorText(change.error);
  const current = row.decision;
  return (
    <section
      aria-labelledby={headingId}
      className="space-y-2 rounded-lg border border-slate-200 p-3 dark:border-slate-700 print:hidden"
    >
      <h3 id={headingId} className="text-sm font-semibold">
        Decision
      </h3>
      <CurrentDecision decision={current} />
      <label htmlFor={noteId} className={labelClass}>
        Note (optional)
      </label>
      <textarea
        id={noteId}
        className={`${inputClass} min-h-16`}
        value={note}
        maxLength={MAX_DECISION_NOTE}
        aria-describedby={hintId}
        onChange={(e) => setNote(e.target.value)}
      />
      <p id={hintId} className={hintClass}>
        Why, for whoever reads the export or approves the review (at most 2,000 characters).
      </p>
      {error ? <Alert tone="error" title={error} /> : null}
      {signedOff ? <WithdrawsSignOff /> : null}
      <div className="flex flex-wrap gap-2">
        {DECISIONS.map((d) => (
          <Button
            key={d}
            variant={d === 'accept' ? 'primary' : 'secondary'}
            disabled={change.isPending}
            onClick={() => change.mutate(d)}
          >
            {DECIDE_TEXT[d]}
          </Button>
        ))}
        {current ? (
          <Button variant="ghost" disabled={change.isPending} onClick={() => change.mutate(null)}>
            Clear decision
          </Button>
        ) : null}
      </div>
      <details onToggle={(e) => setHistoryShown(e.currentTarget.open)}>
        <summary className="cursor-pointer text-sm">Earlier decisions</summary>
        <DecisionHistory steps={history.data} loading={history.isPending && historyShown} />
      </details>
    </section>
  );
}

/** The row's decision now: what, the note, by whom and when. */
function CurrentDecision({ decision }: { decision: RowDecision | undefined }) {
  return (
    <p data-testid="row-decision" className="text-sm">
      {decision ? (
        <>
          <strong>{DECISION_TEXT[decision.decision]}</strong>
          {decision.note ? <> “{decision.note}”</> : null}. By <KeyLabel fingerprint={decision.by} />
          {formatDateTime(decision.at) ? `, ${formatDateTime(decision.at)}` : ''}.
        </>
      ) : (
        'No decision yet.'
      )}
    </p>
  );
}

function DecisionHistory({ steps, loading }: { steps: RowDecisionStep[] | undefined; loading: boolean }) {
  if (loading) return <p className="mt-2 text-sm">Loading…</p>;
  if (!steps || steps.length === 0) return <p className="mt-2 text-sm">None.</p>;
  return (
    <ol className="mt-2 space-y-1 text-sm" aria-label="Decision history">
      {[...steps].reverse().map((s) => (
        <li key={`${s.at}-${s.by}-${s.decision}`}>
          {s.decision === 'cleared' ? 'Cleared' : DECISION_TEXT[s.decision]}
          {s.note ? ` “${s.note}”` : ''} by <KeyLabel fingerprint={s.by} />, {formatDateTime(s.at)}
        </li>
      ))}
    </ol>
  );
}
