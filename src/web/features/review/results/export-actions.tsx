import { useState } from 'react';
import type { CsvSeparatorName, ReviewExportFormat, ReviewSummary } from '../../../../contract/index.ts';
import { Button } from '../../../components/ui/button.tsx';
import { StrokePath } from '../../../components/ui/stroke-path.tsx';
import { ApiRequestError } from '../../../lib/api-client.ts';
import { formatCount } from '../../../lib/format.ts';
import { downloadReviewExport } from './export.ts';
import { ExportEvidence } from './export-evidence.tsx';

const DOWNLOAD_ICON = (
  <svg aria-hidden="true" viewBox="0 0 20 20" className="size-4">
    <StrokePath d="M10 3v9m0 0l-3.5-3.5M10 12l3.5-3.5M4 14.5V16h12v-1.5" />
  </svg>
);

type ExportState =
  | { kind: 'idle' }
  | { kind: 'busy'; format: ReviewExportFormat }
  | { kind: 'saved'; text: string }
  | { kind: 'failed'; text: string };

/**
 * Evidence out of the browser: every row of the review (not only the filtered ones) as the server exports it,
 * of the run on screen, and a print layout.
 */
export function ExportActions({
  review,
  rowCount,
  onPrint,
  now,
}: {
  review: ReviewSummary;
  /** Rows on screen: none yet, nothing to export. */
  rowCount: number;
  onPrint: () => void;
  now: () => Date;
}) {
  const [state, setState] = useState<ExportState>({ kind: 'idle' });
  const [separator, setSeparator] = useState<CsvSeparatorName>('comma');
  const save = async (format: ReviewExportFormat) => {
    setState({ kind: 'busy', format });
    const run = review.runs.at(-1)?.number;
    try {
      const name = await downloadReviewExport(review.id, format, {
        ...(run !== undefined ? { run } : {}),
        now: now(),
        separator,
      });
      setState({ kind: 'saved', text: `Saved ${name} (${formatCount(review.totalRows)} rows).` });
    } catch (err) {
      const why = err instanceof ApiRequestError ? ` ${err.message}` : '';
      setState({ kind: 'failed', text: `The export could not be made.${why} Try again.` });
    }
  };
  const busy = state.kind === 'busy';
  return (
    <div className="flex flex-wrap items-center gap-2 print:hidden">
      <Button variant="secondary" onClick={() => save('csv')} disabled={rowCount === 0 || busy}>
        {DOWNLOAD_ICON}
        Export CSV
      </Button>
      <label className="flex min-w-0 max-w-full flex-wrap items-center gap-1.5 text-sm">
        <span className="text-slate-600 dark:text-slate-300">CSV separator</span>
        <select
          value={separator}
          onChange={(e) => setSeparator(e.target.value as CsvSeparatorName)}
          className="min-w-0 max-w-full rounded-md border border-slate-300 bg-white px-2 py-1.5 text-sm dark:border-slate-700 dark:bg-slate-900"
        >
          <option value="comma">Comma (,)</option>
          <option value="semicolon">Semicolon (;), Excel in Europe</option>
        </select>
      </label>
      <Button variant="secondary" onClick={() => save('json')} disabled={rowCount === 0 || busy}>
        {DOWNLOAD_ICON}
        Export JSON
      </Button>
      <Button variant="secondary" onClick={onPrint}>
        Print
      </Button>
      <ExportEvidence review={review} />
      <p role="status" className="text-sm text-slate-600 dark:text-slate-300">
        {state.kind === 'busy'
          ? `Preparing the ${state.format.toUpperCase()} file…`
          : state.kind === 'saved'
            ? state.text
            : ''}
      </p>
      {state.kind === 'failed' ? (
        <p role="alert" className="text-sm text-red-700 dark:text-red-300">
          {state.text}
        </p>
      ) : null}
    </div>
  );
}
