import { useState } from 'react';
import { Button } from '../../../components/ui/button.tsx';
import { StrokePath } from '../../../components/ui/stroke-path.tsx';
import type { Review, ReviewRow } from '../model.ts';
import { buildExport, downloadText, exportFileName, toCsv, toJson } from './export.ts';

const DOWNLOAD_ICON = (
  <svg aria-hidden="true" viewBox="0 0 20 20" className="size-4">
    <StrokePath d="M10 3v9m0 0l-3.5-3.5M10 12l3.5-3.5M4 14.5V16h12v-1.5" />
  </svg>
);

/** Evidence out of the browser: every row of the review (not only the filtered ones), and a print layout. */
export function ExportActions({
  review,
  rows,
  onPrint,
  now,
}: {
  review: Review;
  rows: ReviewRow[];
  onPrint: () => void;
  now: () => Date;
}) {
  const [done, setDone] = useState('');
  const save = (kind: 'csv' | 'json') => {
    const at = now();
    const table = buildExport(review, rows, at);
    const name = exportFileName(review, kind, at);
    if (kind === 'csv') downloadText(toCsv(table), 'text/csv;charset=utf-8', name);
    else downloadText(toJson(review, table, at), 'application/json', name);
    setDone(`Saved ${name} (${rows.length.toLocaleString('en-US')} rows).`);
  };
  return (
    <div className="flex flex-wrap items-center gap-2 print:hidden">
      <Button variant="secondary" onClick={() => save('csv')} disabled={rows.length === 0}>
        {DOWNLOAD_ICON}
        Export CSV
      </Button>
      <Button variant="secondary" onClick={() => save('json')} disabled={rows.length === 0}>
        {DOWNLOAD_ICON}
        Export JSON
      </Button>
      <Button variant="secondary" onClick={onPrint}>
        Print
      </Button>
      <p role="status" className="text-sm text-slate-600 dark:text-slate-300">
        {done}
      </p>
    </div>
  );
}
