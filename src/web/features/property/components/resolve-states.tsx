import { useEffect } from 'react';
import type { Candidate } from '../../../../contract/index.ts';
import { Alert } from '../../../components/ui/alert.tsx';
import { Button } from '../../../components/ui/button.tsx';
import { useSecondsUntil } from '../../../hooks/use-seconds-until.ts';
import { ApiRequestError } from '../../../lib/api-client.ts';
import { useRateLimit } from '../../../lib/rate-limit-store.ts';
import { allowanceInWords } from '../../../lib/rate-limit-wording.ts';
import { notFoundAdvice } from '../lib/not-found.ts';
import { AmbiguousCandidates } from './ambiguous-candidates.tsx';
import { CandidateList } from './candidate-list.tsx';
import { CompareCandidates, type RenderCompare } from './compare-candidates.tsx';

export function formatCountdown(seconds: number): string {
  const m = Math.floor(seconds / 60);
  const s = seconds % 60;
  return m > 0 ? `${m}:${String(s).padStart(2, '0')}` : `${s} s`;
}

function RateLimited({ resetAt, onRetry }: { resetAt: string | null; onRetry: () => void }) {
  const left = useSecondsUntil(resetAt);
  const rate = useRateLimit();
  useEffect(() => {
    if (left === 0) onRetry();
  }, [left, onRetry]);
  return (
    <Alert tone="warning" title="Rate limit reached: this search will run again automatically">
      <p>
        The property service allows your key {allowanceInWords(rate)}, and they are used up. This is not a
        “not found”: nothing is wrong with the address.
      </p>
      <p aria-live="off">
        Retrying in <strong className="tabular-nums">{formatCountdown(left)}</strong>.
      </p>
    </Alert>
  );
}

/**
 * What the unit-not-found list holds, said as it is: the BFF lists the building first, then any units the
 * service named; often it names none, and then only the building is shown.
 */
function unitsShown(listed: number): string {
  if (listed === 0) return '';
  if (listed === 1) return 'Below is the building’s own record; the service listed none of its units.';
  const units = listed - 1;
  return `Below are the building’s own record and ${units === 1 ? 'one unit' : `${units} units`} the service listed.`;
}

/** The building is known but not the unit: the building and any units the service listed, to pick or compare. */
function UnitNotFound({
  candidates,
  address,
  renderCompare,
}: {
  candidates: Candidate[];
  address: string;
  renderCompare?: RenderCompare;
}) {
  return (
    <div className="space-y-3">
      <Alert tone="info" title="The building is known, but not that unit">
        <p>Check the unit number. {unitsShown(candidates.length)}</p>
        {candidates.length > 0 ? (
          <CandidateList
            candidates={candidates}
            label={candidates.length > 1 ? 'Building and units' : 'Building'}
          />
        ) : null}
      </Alert>
      <CompareCandidates key={address} candidates={candidates} render={renderCompare} />
    </div>
  );
}

/** The service failed or sent a record we cannot show: the search is kept, to be tried again. */
function ServiceUnavailable({ invalid, onRetry }: { invalid: boolean; onRetry: () => void }) {
  return (
    <Alert tone="error" title="The property service is not answering">
      <p>
        {invalid
          ? 'It sent a record without the source, confidence or verification date we need to show it, or one we could not read.'
          : 'It may be busy or down for a moment.'}{' '}
        Your search is kept; try again.
      </p>
      <Button variant="secondary" onClick={onRetry}>
        Try again
      </Button>
    </Alert>
  );
}

/** Every way a lookup can fail, each with what the person can do next. */
export function ResolveError({
  error,
  address,
  onRetry,
  renderCompare,
  demo = false,
}: {
  error: unknown;
  address: string;
  onRetry: () => void;
  renderCompare?: RenderCompare;
  /** Signed in with a demo key: a ZIP code the data does not cover is said to be the demo's gap. */
  demo?: boolean;
}) {
  const e = error instanceof ApiRequestError ? error : null;
  switch (e?.code) {
    case 'not_found':
      return (
        <Alert tone="info" title={`No property matches “${address}”`}>
          <p>{notFoundAdvice(address, e.reason, demo)}</p>
          {e.candidates.length > 0 ? (
            <>
              <p className="font-medium">Did you mean:</p>
              <CandidateList candidates={e.candidates} label="Did you mean" />
            </>
          ) : null}
        </Alert>
      );
    case 'ambiguous':
      return (
        <div className="space-y-3">
          <AmbiguousCandidates
            key={address}
            address={address}
            candidates={e.candidates}
            total={e.total}
            renderCompare={renderCompare}
          />
        </div>
      );
    case 'unit_not_found':
      // The comparison sits outside the alert: a status region would read the whole table out.
      return <UnitNotFound candidates={e.candidates} address={address} renderCompare={renderCompare} />;
    case 'rate_limited':
      return <RateLimited resetAt={e.resetAt} onRetry={onRetry} />;
    case 'bad_request':
      return (
        <Alert tone="error" title="That search could not be run">
          <p>{e.message}</p>
        </Alert>
      );
    case 'offline':
      return (
        <Alert tone="warning" title="No connection">
          <p>{e.message} The search runs again when you are back online.</p>
          <Button variant="secondary" onClick={onRetry}>
            Try again
          </Button>
        </Alert>
      );
    default:
      return <ServiceUnavailable invalid={e?.code === 'upstream_invalid'} onRetry={onRetry} />;
  }
}
