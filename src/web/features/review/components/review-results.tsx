import type { Review, ReviewRow } from '../model.ts';

/**
 * Everything below the progress bar on /review/:id: the reliability summary, charts, the results table,
 * comparison and export (issue 8 §3-5). This first version shows the outcome counts; the rest grows here.
 */
export function ReviewResults({ review, rows }: { review: Review; rows: ReviewRow[] }) {
  const matched = rows.filter((r) => r.outcome === 'matched').length;
  return (
    <section aria-labelledby="reliability-summary-heading" className="space-y-2">
      <h2 id="reliability-summary-heading" className="text-lg font-semibold">
        Reliability summary
      </h2>
      <p>
        {matched} of {rows.length} addresses matched in “{review.name}”.
      </p>
    </section>
  );
}
