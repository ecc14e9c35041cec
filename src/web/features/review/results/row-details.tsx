import { useEffect, useId, useRef, useState } from 'react';
import {
  type LookupError,
  notFoundReasonText,
  type Property,
  type ReviewRowResult,
  UNIT_NOT_FOUND_TEXT,
} from '../../../../contract/index.ts';
import { Button } from '../../../components/ui/button.tsx';
import { DATE_TIME, formatDateTime } from '../../../lib/format.ts';
import { MatchNotice, PropertyRecord } from '../../property/index.ts';
import { CandidateComparison } from './candidate-comparison.tsx';
import { MIN_COMPARE } from './compare.ts';
import { DecideRow } from './decide-row.tsx';
import { DECISION_TEXT } from './decisions.ts';
import { ExcludeRow } from './exclude-row.tsx';
import { FixNotice, FixRow } from './fix-row.tsx';
import { EXCLUDED_TEXT, isLook, LOOK_TEXT, MATCH_TEXT, outcomeText, type ResultRow } from './stats.ts';
import { useWholeProperties } from './whole-rows.ts';

function retrievedText(r: ResultRow): string | null {
  if (!r.row.retrievedAt) return null;
  const at = new Date(r.row.retrievedAt);
  if (Number.isNaN(at.getTime())) return null;
  return `Retrieved ${formatDateTime(at, DATE_TIME.long)}${r.row.cached ? ' (from the cache)' : ''}.`;
}

/**
 * One row opened: the full record for a match (the record view itself), the candidates for an ambiguous or
 * unmatched address (with "Compare"), or why the lookup failed. A modal <dialog>: focus moves in, Escape
 * closes, and focus goes back to the row that opened it.
 */
export function RowDetails({
  reviewId,
  result,
  onClose,
  now,
  onFixed,
  signedOff = false,
}: {
  reviewId: string;
  result: ResultRow;
  onClose: () => void;
  now: Date;
  /** The row fixed in place, excluded or included again (the server's answer): it replaces the row. */
  onFixed: (row: ReviewRowResult) => void;
  /** The review is signed off: deciding a row withdraws it (DecideRow says so). */
  signedOff?: boolean;
}) {
  const ref = useModalDialog();
  const titleId = useId();
  const [comparing, setComparing] = useState(false);
  const [fixesHere, setFixesHere] = useState(0);
  const { row } = result;
  const fixed = (answer: ReviewRowResult) => {
    setFixesHere((n) => n + 1);
    setComparing(false);
    onFixed(answer);
  };
  const compare = () => setComparing(true);
  const candidates = row.candidates ?? [];
  const whole = useWholeProperties(reviewId, [row]);
  const property = whole.properties[0];
  return (
    <dialog
      ref={ref}
      aria-labelledby={titleId}
      onCancel={(e) => {
        e.preventDefault();
        onClose();
      }}
      className="m-auto max-h-[90vh] w-[min(64rem,calc(100vw-1.5rem))] overflow-auto rounded-xl border border-slate-200 bg-slate-50 p-0 text-slate-900 shadow-2xl backdrop:bg-slate-950/60 dark:border-slate-700 dark:bg-slate-950 dark:text-slate-100"
    >
      <RowDetailsHeader result={result} titleId={titleId} onClose={onClose} />
      <div className="space-y-4 p-4 sm:p-6">
        {row.fix ? <FixNotice fix={row.fix} focusKey={fixesHere} /> : null}
        {row.property ? (
          <MatchedRecord
            reviewId={reviewId}
            result={result}
            property={property}
            failed={whole.failed}
            now={now}
            onFixed={fixed}
          />
        ) : row.outcome === 'pending' ? (
          <p>This address has not been looked up yet.</p>
        ) : row.outcome === 'not_asked' ? (
          <p>
            {row.excluded
              ? 'This address was not looked up: it was excluded before it was asked. Include it again to ask it.'
              : 'This address was never looked up: the review was cancelled first. Check the review again to ask it.'}
          </p>
        ) : row.outcome === 'failed' ? (
          <>
            <LookupFailed error={row.error} />
            <FixRow reviewId={reviewId} row={row} onFixed={fixed} />
          </>
        ) : (
          <NoMatch reviewId={reviewId} row={row} comparing={comparing} onCompare={compare} onFixed={fixed} />
        )}
        {comparing ? (
          <CandidateComparison candidates={candidates} onClose={() => setComparing(false)} />
        ) : null}
        <DecideRow reviewId={reviewId} row={row} onChanged={onFixed} signedOff={signedOff} />
        <ExcludeRow reviewId={reviewId} row={row} onChanged={onFixed} />
      </div>
    </dialog>
  );
}

/**
 * The dialog opened as a modal when mounted (focus moves in), closed when unmounted, and focus given back to
 * what had it before (the row that opened it).
 */
function useModalDialog() {
  const ref = useRef<HTMLDialogElement>(null);
  useEffect(() => {
    const dialog = ref.current;
    if (!dialog) return;
    const opener = document.activeElement instanceof HTMLElement ? document.activeElement : null;
    // jsdom (tests) has no showModal; an open <dialog> is the same content without the top layer.
    if (typeof dialog.showModal === 'function') dialog.showModal();
    else dialog.setAttribute('open', '');
    return () => {
      if (typeof dialog.close === 'function' && dialog.open) dialog.close();
      opener?.focus();
    };
  }, []);
  return ref;
}

/** A matched row: how it was matched, its whole record (read alone), and a way to look up another address. */
function MatchedRecord({
  reviewId,
  result,
  property,
  failed,
  now,
  onFixed,
}: {
  reviewId: string;
  result: ResultRow;
  /** The row's whole record, once read. */
  property: Property | undefined;
  /** Whether reading it failed. */
  failed: boolean;
  now: Date;
  onFixed: (row: ReviewRowResult) => void;
}) {
  return (
    <>
      {result.explanation ? <MatchNotice match={result.explanation} /> : null}
      {property ? (
        <PropertyRecord property={property} now={now} />
      ) : (
        <p role="status">
          {failed ? 'The record could not be read. Close the row and open it again.' : 'Reading the record…'}
        </p>
      )}
      <details className="rounded-lg border border-slate-200 p-3 dark:border-slate-700 print:hidden">
        <summary className="cursor-pointer text-sm font-semibold">
          Wrong record? Look up another address
        </summary>
        <div className="mt-3">
          <FixRow reviewId={reviewId} row={result.row} onFixed={onFixed} />
        </div>
      </details>
    </>
  );
}

/** The row's number, outcome and match, the address as given, when it was retrieved, and Close. */
function RowDetailsHeader({
  result,
  titleId,
  onClose,
}: {
  result: ResultRow;
  titleId: string;
  onClose: () => void;
}) {
  const { row } = result;
  const retrieved = retrievedText(result);
  return (
    <div className="sticky top-0 z-10 flex items-start justify-between gap-3 border-b border-slate-200 bg-slate-50 px-4 py-3 sm:px-6 dark:border-slate-800 dark:bg-slate-950">
      <div className="min-w-0">
        <p className="text-xs font-medium uppercase tracking-wide text-slate-600 dark:text-slate-400">
          Row {row.index + 1}
          {row.sourceRow ? ` (line ${row.sourceRow} as given)` : ''} ·{' '}
          {isLook(result) ? LOOK_TEXT : outcomeText(row)}
          {row.excluded ? ` · ${EXCLUDED_TEXT}` : ''}
          {row.decision ? ` · ${DECISION_TEXT[row.decision.decision]}` : ''}
          {result.match && result.match !== 'as_typed' ? ` · ${MATCH_TEXT[result.match]}` : ''}
        </p>
        <h2 id={titleId} className="break-words text-lg font-semibold">
          {row.input}
        </h2>
        {retrieved ? <p className="text-xs text-slate-600 dark:text-slate-400">{retrieved}</p> : null}
      </div>
      <Button variant="secondary" onClick={onClose} autoFocus>
        Close
      </Button>
    </div>
  );
}

/** Why the lookup failed, and its code when there is one. */
function LookupFailed({ error }: { error: LookupError | undefined }) {
  if (error?.code === 'no_address')
    return (
      <div className="space-y-1">
        <p className="font-semibold">Nothing to look up.</p>
        <p>{error.message} Type the address below to look it up.</p>
      </div>
    );
  return (
    <div className="space-y-1">
      <p className="font-semibold">The lookup failed.</p>
      <p>{error?.message ?? 'The property service did not give an answer.'}</p>
      {error ? <p className="text-sm text-slate-600 dark:text-slate-400">Code: {error.code}</p> : null}
    </div>
  );
}

/** An ambiguous or unmatched address: why, then the candidates to choose from, Compare, and Look up again. */
function NoMatch({
  reviewId,
  row,
  comparing,
  onCompare,
  onFixed,
}: {
  reviewId: string;
  row: ReviewRowResult;
  comparing: boolean;
  onCompare: () => void;
  onFixed: (row: ReviewRowResult) => void;
}) {
  const candidates = row.candidates ?? [];
  return (
    <div className="space-y-3">
      <p className="font-semibold">
        {row.outcome === 'ambiguous'
          ? 'More than one property matches this address. Choose the one meant, or edit the address.'
          : row.error?.code === 'unit_not_found'
            ? UNIT_NOT_FOUND_TEXT
            : 'No property matches this address.'}
      </p>
      {row.outcome === 'not_found' && row.error?.reason ? (
        <p data-testid="not-found-reason">{notFoundReasonText(row.error.reason, row.input)}</p>
      ) : null}
      <FixRow reviewId={reviewId} row={row} onFixed={onFixed}>
        {candidates.length >= MIN_COMPARE && !comparing ? (
          <Button variant="secondary" onClick={onCompare} className="mt-2">
            Compare
          </Button>
        ) : null}
      </FixRow>
    </div>
  );
}
