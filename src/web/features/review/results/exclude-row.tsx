import { useMutation } from '@tanstack/react-query';
import { type FormEvent, useEffect, useId, useRef, useState } from 'react';
import { MAX_EXCLUSION_REASON, type ReviewRowResult, type RowExclusion } from '../../../../contract/index.ts';
import { Alert } from '../../../components/ui/alert.tsx';
import { Button } from '../../../components/ui/button.tsx';
import { hintClass, inputClass, labelClass } from '../../../components/ui/field.ts';
import { ApiRequestError } from '../../../lib/api-client.ts';
import { formatDateTime } from '../../../lib/format.ts';
import { KeyLabel } from '../../auth/index.ts';
import { setRowExcluded } from '../api/server-reviews.ts';

/**
 * Exclude a row from the review later ("Thanks!" that slipped into a paste, an office among the collateral),
 * with a reason for whoever reads the export; or, for an excluded row, who excluded it, when and why, and
 * "Include again". The row keeps its place either way; the server's answer replaces it in every view.
 */
export function ExcludeRow({
  reviewId,
  row,
  onChanged,
}: {
  reviewId: string;
  row: ReviewRowResult;
  onChanged: (row: ReviewRowResult) => void;
}) {
  const [reason, setReason] = useState('');
  const notice = useRef<HTMLElement | null>(null);
  const noticeRef = (el: HTMLElement | null) => {
    notice.current = el;
  };
  const [changes, setChanges] = useState(0);
  const change = useMutation({
    mutationFn: (next: string | null) => setRowExcluded(reviewId, row.index, next),
    onSuccess: (answer) => {
      setReason('');
      setChanges((n) => n + 1);
      onChanged(answer);
    },
  });
  // Each change made here moves focus to what now stands (the notice, or the form), so a screen reader says it.
  useEffect(() => {
    if (changes > 0) notice.current?.focus();
  }, [changes]);
  const error =
    change.error instanceof ApiRequestError
      ? change.error.message
      : change.error
        ? 'The change could not be saved. Try again.'
        : null;

  if (row.excluded)
    return (
      <div
        ref={noticeRef}
        tabIndex={-1}
        data-testid="row-excluded"
        className="space-y-2 rounded-lg border border-slate-400 bg-slate-100 p-3 text-sm outline-none focus-visible:ring-2 focus-visible:ring-teal-600 dark:border-slate-600 dark:bg-slate-900"
      >
        <ExcludedNotice excluded={row.excluded} />
        {error ? <Alert tone="error" title={error} /> : null}
        <Button variant="secondary" onClick={() => change.mutate(null)} disabled={change.isPending}>
          {change.isPending ? 'Including…' : 'Include again'}
        </Button>
      </div>
    );
  const submit = (e: FormEvent) => {
    e.preventDefault();
    change.mutate(reason.trim());
  };
  return (
    <details
      ref={noticeRef}
      tabIndex={-1}
      className="rounded-lg border border-slate-200 p-3 outline-none focus-visible:ring-2 focus-visible:ring-teal-600 dark:border-slate-700 print:hidden"
    >
      <summary className="cursor-pointer text-sm font-semibold">Exclude this row from the review</summary>
      <form onSubmit={submit} className="mt-3 space-y-2">
        <ReasonField value={reason} onChange={setReason} />
        {error ? <Alert tone="error" title={error} /> : null}
        <Button type="submit" variant="secondary" disabled={change.isPending}>
          {change.isPending ? 'Excluding…' : 'Exclude row'}
        </Button>
      </form>
    </details>
  );
}

/** Who excluded the row, when and why, and what that means. */
function ExcludedNotice({ excluded }: { excluded: RowExclusion }) {
  const when = formatDateTime(excluded.at);
  return (
    <>
      <p className="font-semibold">Excluded from the review.</p>
      <p>
        {excluded.reason ? <>“{excluded.reason}”. </> : null}
        By <KeyLabel fingerprint={excluded.by} />
        {when ? `, ${when}` : ''}. It keeps its place in the export (marked excluded) but counts in none of
        the review’s figures, and Check again does not look it up.
      </p>
    </>
  );
}

function ReasonField({ value, onChange }: { value: string; onChange: (value: string) => void }) {
  const reasonId = useId();
  const hintId = useId();
  return (
    <>
      <label htmlFor={reasonId} className={labelClass}>
        Reason (optional)
      </label>
      <input
        id={reasonId}
        className={`${inputClass} h-10`}
        value={value}
        maxLength={MAX_EXCLUSION_REASON}
        aria-describedby={hintId}
        onChange={(e) => onChange(e.target.value)}
      />
      <p id={hintId} className={hintClass}>
        For whoever reads the export, e.g. “Not an address” or “Office, not collateral”. The row keeps its
        place, marked excluded; it counts in no figure and is not looked up again.
      </p>
    </>
  );
}
