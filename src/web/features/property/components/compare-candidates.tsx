import { type ReactNode, useState } from 'react';
import type { Candidate } from '../../../../contract/index.ts';
import { Button } from '../../../components/ui/button.tsx';

/** Candidates side by side; the route supplies the comparison (it belongs to the review feature). */
export type RenderCompare = (candidates: readonly Candidate[], close: () => void) => ReactNode;

/**
 * "Compare" under a list of candidates: those of an ambiguous search (every one listed so far, "Show more"
 * included), or a building's units.
 */
export function CompareCandidates({
  candidates,
  render,
}: {
  candidates: readonly Candidate[];
  render?: RenderCompare;
}) {
  const [open, setOpen] = useState(false);
  if (!render || candidates.length < 2) return null;
  return open ? (
    <div className="mt-2">{render(candidates, () => setOpen(false))}</div>
  ) : (
    <Button variant="secondary" onClick={() => setOpen(true)}>
      Compare
    </Button>
  );
}
