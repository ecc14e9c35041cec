import { useState } from 'react';
import type { ReviewSummary } from '../../../../contract/index.ts';
import { Button } from '../../../components/ui/button.tsx';
import { createReview, putChunk } from '../api/server-reviews.ts';
import { loadFile, tableDraft } from './loaded.ts';
import { InputError } from './rows.ts';
import { toUpload, uploadReview } from './upload.ts';

export const SAMPLE_PATH = '/sample-review.csv';

/** Reads the sample file that ships with the app and starts a review of it. */
export async function startSampleReview(): Promise<ReviewSummary> {
  const res = await fetch(SAMPLE_PATH, { credentials: 'same-origin' });
  if (!res.ok) throw new InputError('The sample could not be loaded. Reload the page and try again.');
  const loaded = tableDraft(await loadFile(await res.blob()));
  if ('error' in loaded) throw new InputError(loaded.error);
  const draft = { kind: 'sample' as const, prepared: loaded.prepared, defaultName: 'Sample review' };
  return uploadReview(toUpload(draft, 'Sample review'), { create: createReview, put: putChunk });
}

/** The sales demo: 31 addresses of every kind, done in about half a minute. Offered with a demo key only. */
export function SampleReview({ onStarted }: { onStarted: (review: ReviewSummary) => void }) {
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  return (
    <section
      aria-labelledby="sample-heading"
      className="rounded-xl border border-dashed border-teal-600/50 bg-teal-50/60 p-4 sm:p-5 dark:bg-teal-950/30"
    >
      <h2 id="sample-heading" className="text-base font-semibold">
        New here? Run the sample
      </h2>
      <p className="mt-1 text-sm text-slate-700 dark:text-slate-300">
        31 addresses as people really type them: clean, messy, misspelt, ambiguous and unknown, at every
        confidence level. It runs on the server in about half a minute; then read the reliability overview.
      </p>
      <Button
        className="mt-3"
        disabled={busy}
        onClick={async () => {
          setBusy(true);
          setError(null);
          try {
            onStarted(await startSampleReview());
          } catch (err) {
            setError(err instanceof InputError ? err.message : 'The sample could not be started. Try again.');
            setBusy(false);
          }
        }}
      >
        Try a sample review
      </Button>
      {error ? (
        <p role="alert" className="mt-2 text-sm font-medium text-red-700 dark:text-red-300">
          {error}
        </p>
      ) : null}
    </section>
  );
}
