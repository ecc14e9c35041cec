import { useId } from 'react';
import { Link } from 'react-router';
import type { Candidate } from '../../../../contract/index.ts';
import { ConfidenceMark } from './badges.tsx';

export const searchLink = (address: string) => `/search?${new URLSearchParams({ address })}`;

function CandidateItem({ candidate, onOpen }: { candidate: Candidate; onOpen?: (c: Candidate) => void }) {
  const markId = useId();
  return (
    <li className="flex items-center gap-3 pr-4">
      <Link
        to={searchLink(candidate.address)}
        aria-describedby={candidate.confidence ? markId : undefined}
        onClick={() => onOpen?.(candidate)}
        className="block min-w-0 flex-1 break-words px-4 py-3 text-sm font-medium text-teal-800 hover:bg-slate-50 dark:text-teal-300 dark:hover:bg-slate-800"
      >
        {candidate.address}
      </Link>
      {candidate.confidence ? (
        <span id={markId}>
          <ConfidenceMark level={candidate.confidence} />
        </span>
      ) : null}
    </li>
  );
}

/**
 * Addresses to pick from, each a link to its search, with its confidence when the service stated it (in
 * words and icon, and as the link's description for screen readers) so a pick is informed.
 */
export function CandidateList({
  candidates,
  label,
  onOpen,
}: {
  candidates: readonly Candidate[];
  label: string;
  onOpen?: (c: Candidate) => void;
}) {
  return (
    <ul
      aria-label={label}
      className="mt-2 divide-y divide-slate-200 rounded-lg border border-slate-200 bg-white dark:divide-slate-800 dark:border-slate-700 dark:bg-slate-900"
    >
      {candidates.map((c) => (
        <CandidateItem key={c.id} candidate={c} onOpen={onOpen} />
      ))}
    </ul>
  );
}
