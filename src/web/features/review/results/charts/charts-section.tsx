import { memo } from 'react';
import type { AgeBin, ReliabilitySummary, SourceBar } from '../stats.ts';
import type { ResultFilters } from '../stats-filters.ts';
import { AgeChart } from './age-chart.tsx';
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
