import { memo } from 'react';
import type { AgeBin, ReliabilitySummary, SourceBar } from '../stats.ts';
import type { ResultFilters } from '../stats-filters.ts';
import { AgeChart } from './age-chart.tsx';
import { AGE_FRAME, CONFIDENCE_FRAME, type FrameHeights, sourceFrame } from './bar-data.ts';
import { frameHeights } from './chart-figure.tsx';
import { ConfidenceChart } from './confidence-chart.tsx';
import { SourceChart } from './source-chart.tsx';

/**
 * The charts; a bar or a figure under one sets the table's filters. Drawn by the review page once every row is
 * in, their drawings (recharts) from a chunk of their own (lazy-bars.tsx) in boxes of their height. Drawn again only when their figures or the filters change, and
 * with the filters the table has caught up with: a filter set at 100,000 rows drew them twice, 0.4-0.8 s each at
 * load 16 (the table's rows are filtered in 13 ms).
 */
export const ChartsSection = memo(function ChartsSection({
  headingId,
  summary,
  histogram,
  sourceBars,
  kindBars,
  filters,
  onFilter,
}: {
  headingId: string;
  summary: ReliabilitySummary;
  histogram: { bin: AgeBin; count: number }[];
  sourceBars: SourceBar[];
  kindBars: SourceBar[];
  filters: ResultFilters;
  onFilter: (p: Partial<ResultFilters>) => void;
}) {
  return (
    <section aria-labelledby={headingId} className="space-y-3 print:break-before-page">
      <h2 id={headingId} className="text-lg font-semibold">
        Charts
      </h2>
      <p className="text-sm text-slate-600 dark:text-slate-300 print:hidden">
        Select a bar, or a figure under a chart, to show only those rows in the results table.
      </p>
      <div className="grid gap-4 lg:grid-cols-2">
        <ConfidenceChart summary={summary} filters={filters} onFilter={onFilter} />
        <AgeChart histogram={histogram} summary={summary} filters={filters} onFilter={onFilter} />
        <div className="lg:col-span-2">
          <SourceChart
            bySource={sourceBars}
            byKind={kindBars}
            records={summary.records}
            filters={filters}
            onFilter={onFilter}
          />
        </div>
      </div>
    </section>
  );
});

/**
 * The charts' room while the rows still come (the charts wait for every row): the same three frames, each as
 * tall as its chart will be (bar-data.ts), the source chart's for the sources of the rows in so far, so that the
 * results table below does not move down when the charts come (a 20,000-row review's moved 788 px at 1280 px;
 * one of nine sources, 704 px at 390 px where the frame was sized for one).
 */
export function ChartsWaiting({
  headingId,
  text,
  sourceBars,
}: {
  headingId: string;
  text: string;
  /** The source chart's bars for the rows in so far. */
  sourceBars: number;
}) {
  const frames: [title: string, heights: FrameHeights, span?: string][] = [
    ['Confidence mix', CONFIDENCE_FRAME],
    ['Verification age', AGE_FRAME],
    ['Records by source', sourceFrame(sourceBars), 'lg:col-span-2'],
  ];
  return (
    <section aria-labelledby={headingId} className="space-y-3 print:hidden">
      <h2 id={headingId} className="text-lg font-semibold">
        Charts
      </h2>
      {/* Two lines below 640 px wide, as the drawn charts' "Select a bar…" takes there. */}
      <p className="min-h-10 text-sm text-slate-600 sm:min-h-0 dark:text-slate-300">{text}</p>
      <div aria-hidden="true" className="grid gap-4 lg:grid-cols-2">
        {frames.map(([title, heights, span]) => {
          const least = frameHeights(heights);
          return (
            <div
              key={title}
              className={`rounded-xl border border-dashed border-slate-200 p-4 dark:border-slate-800 ${least.className} ${span ?? ''}`}
              style={least.style}
            >
              <p className="text-base font-semibold text-slate-500 dark:text-slate-400">{title}</p>
            </div>
          );
        })}
      </div>
    </section>
  );
}
