import { useQueries } from '@tanstack/react-query';
import { useState } from 'react';
import type { Candidate, Property } from '../../../../contract/index.ts';
import { Alert } from '../../../components/ui/alert.tsx';
import { resolveQueryOptions } from '../../property/index.ts';
import { MAX_COMPARE } from './compare.ts';
import { Comparison } from './comparison.tsx';

/**
 * Compare the candidates of an ambiguous search, or the units of a building. A candidate carries only an
 * id and an address, so each chosen one is looked up (GET /api/properties/resolve, through the record
 * view's own query options: a record already seen costs nothing). Only the chosen ones are fetched: each
 * lookup spends the account's rate limit.
 */
export function CandidateComparison({
  candidates,
  onClose,
}: {
  candidates: readonly Candidate[];
  onClose?: () => void;
}) {
  const [chosen, setChosen] = useState<string[]>(() =>
    candidates.slice(0, Math.min(MAX_COMPARE, candidates.length)).map((c) => c.id),
  );
  const picked = candidates.filter((c) => chosen.includes(c.id));
  const results = useQueries({ queries: picked.map((c) => resolveQueryOptions(c.address)) });
  const properties = results.flatMap((r) => (r.data ? [r.data.property] : []));
  const loading = results.filter((r) => r.isPending).length;
  const failed = picked.filter((_, i) => results[i]?.isError);
  // Two candidates may resolve to the same record: compare each record once.
  const unique = [...new Map(properties.map((p) => [p.id, p] as [string, Property])).values()];

  const toggle = (cid: string) =>
    setChosen((now) => (now.includes(cid) ? now.filter((x) => x !== cid) : [...now, cid]));

  return (
    <div className="space-y-4">
      {candidates.length > 2 ? (
        <fieldset className="rounded-xl border border-slate-200 p-4 dark:border-slate-800">
          <legend className="px-1 text-sm font-semibold">Records to compare (2 to {MAX_COMPARE})</legend>
          <ul className="mt-1 grid gap-1 sm:grid-cols-2">
            {candidates.map((c) => {
              const on = chosen.includes(c.id);
              return (
                <li key={c.id}>
                  <label className="inline-flex min-h-8 items-center gap-2 text-sm">
                    <input
                      type="checkbox"
                      className="size-4 accent-teal-700"
                      checked={on}
                      disabled={!on && chosen.length >= MAX_COMPARE}
                      onChange={() => toggle(c.id)}
                    />
                    {c.address}
                  </label>
                </li>
              );
            })}
          </ul>
        </fieldset>
      ) : null}
      <div>
        {loading > 0 ? (
          <p role="status" className="text-sm text-slate-600 dark:text-slate-300">
            Looking up {loading} record{loading === 1 ? '' : 's'} to compare…
          </p>
        ) : null}
        {failed.length > 0 ? (
          <Alert tone="warning" title="Some records could not be looked up">
            <p>{failed.map((c) => c.address).join('; ')}. The comparison shows the others.</p>
          </Alert>
        ) : null}
        {picked.length < 2 ? (
          <p className="text-sm">Choose at least two records to compare.</p>
        ) : loading === 0 && unique.length >= 2 ? (
          <Comparison properties={unique} onClose={onClose} />
        ) : loading === 0 && unique.length < 2 ? (
          <p className="text-sm">Fewer than two different records came back: there is nothing to compare.</p>
        ) : null}
      </div>
    </div>
  );
}

export default CandidateComparison;
