import { useMutation } from '@tanstack/react-query';
import { useCallback, useState } from 'react';
import type { DecisionKind } from '../../../../contract/index.ts';
import { Alert } from '../../../components/ui/alert.tsx';
import { Button } from '../../../components/ui/button.tsx';
import { ApiRequestError } from '../../../lib/api-client.ts';
import { formatCount } from '../../../lib/format.ts';
import { MAX_COMPARE, MIN_COMPARE } from './compare.ts';
import { DECIDE_TEXT, DECISIONS } from './decisions.ts';
import { decideRows } from './decisions-api.ts';
import { WithdrawsSignOff } from './sign-off.tsx';
import type { ResultRow } from './stats.ts';

/**
 * The rows ticked in the table (any number: a decision goes to all of them), and the ones being compared (2 to
 * MAX_COMPARE of them with a record).
 */
export function useRowSelection() {
  const [selected, setSelected] = useState<ReadonlySet<number>>(new Set());
  const [compared, setCompared] = useState<number[] | null>(null);
  const toggle = useCallback(
    (index: number) =>
      setSelected((s) => {
        const next = new Set(s);
        if (next.has(index)) next.delete(index);
        else next.add(index);
        return next;
      }),
    [],
  );
  return { selected, setSelected, compared, setCompared, toggle };
}

/**
 * What can be done with the ticked rows: a decision for all of them ("Accept 42 selected"), Compare (2 to 4
 * rows with a record), Select all shown, Clear selection.
 */
export function SelectionBar({
  reviewId,
  selected,
  shown,
  byIndex,
  onCompare,
  onSelect,
  signedOff = false,
}: {
  reviewId: string;
  selected: ReadonlySet<number>;
  /** The rows the table shows now (its filters): "Select all shown" ticks them. */
  shown: readonly ResultRow[];
  byIndex: ReadonlyMap<number, ResultRow>;
  onCompare: () => void;
  onSelect: (next: ReadonlySet<number>) => void;
  /** The review is signed off: deciding withdraws it, which the bar says beside its buttons. */
  signedOff?: boolean;
}) {
  const n = selected.size;
  const withRecords = [...selected].filter((i) => byIndex.get(i)?.row.property).length;
  const canCompare = withRecords === n && n >= MIN_COMPARE && n <= MAX_COMPARE;
  const bulk = useMutation({
    mutationFn: (decision: DecisionKind) =>
      decideRows(
        reviewId,
        [...selected].sort((a, b) => a - b),
        decision,
      ),
    onSuccess: () => onSelect(new Set()),
  });
  const error =
    bulk.error instanceof ApiRequestError
      ? bulk.error.message
      : bulk.error
        ? 'The decision could not be saved. Try again.'
        : null;
  return (
    <div className="space-y-2 print:hidden">
      <div className="flex flex-wrap items-center gap-3">
        <p className="text-sm text-slate-600 dark:text-slate-300" aria-live="polite">
          {n === 0
            ? `Tick rows to decide them together, or ${MIN_COMPARE} to ${MAX_COMPARE} matched rows to compare them.`
            : `${formatCount(n)} selected.`}
        </p>
        {n > 0
          ? DECISIONS.map((d) => (
              <Button
                key={d}
                variant={d === 'accept' ? 'primary' : 'secondary'}
                disabled={bulk.isPending}
                onClick={() => bulk.mutate(d)}
              >
                {`${DECIDE_TEXT[d]}${d === 'follow_up' ? ':' : ''} ${formatCount(n)} selected`}
              </Button>
            ))
          : null}
        <Button variant="secondary" onClick={onCompare} disabled={!canCompare}>
          Compare selected
        </Button>
        {shown.length > 0 && n < shown.length ? (
          <Button
            variant="ghost"
            onClick={() => onSelect(new Set([...selected, ...shown.map((r) => r.row.index)]))}
          >
            Select all {formatCount(shown.length)} shown
          </Button>
        ) : null}
        {n > 0 ? (
          <Button variant="ghost" onClick={() => onSelect(new Set())}>
            Clear selection
          </Button>
        ) : null}
      </div>
      {signedOff && n > 0 ? <WithdrawsSignOff /> : null}
      {bulk.isSuccess ? (
        <p className="text-sm" role="status">
          {formatCount(bulk.data)} {bulk.data === 1 ? 'row' : 'rows'} decided.
        </p>
      ) : null}
      {error ? <Alert tone="error" title={error} /> : null}
    </div>
  );
}
