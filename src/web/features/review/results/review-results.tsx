import { useCallback, useDeferredValue, useEffect, useId, useMemo, useState } from 'react';
import type { Property, ReviewRowResult, ReviewSummary } from '../../../../contract/index.ts';
import { formatCount, formatDateTime } from '../../../lib/format.ts';
import { agencyOf, sourceKindText } from '../../property/index.ts';
import { ChartsSection, ChartsWaiting } from './charts/charts-section.tsx';
import { loadBars } from './charts/lazy-bars.tsx';
import { barsShown } from './charts/source-chart.tsx';
import { MIN_COMPARE } from './compare.ts';
import { Comparison } from './comparison.tsx';
import { decisionCounts } from './decisions.ts';
import { ExportActions } from './export-actions.tsx';
import { PrintTable, usePrinting } from './print-results.tsx';
import { ReliabilitySummary } from './reliability-summary.tsx';
import { FilterChips, ResultFiltersBar } from './result-filters.tsx';
import { ResultsTable, useResultsTable } from './results-table.tsx';
import { retrievedLine } from './retrieved-line.ts';
import { RowDetails } from './row-details.tsx';
import { useRowInAddress } from './row-in-address.ts';
import { SelectionBar, useRowSelection } from './selection-bar.tsx';
import { SignOffLines, SignOffPanel } from './sign-off.tsx';
import {
  ageHistogram,
  isCounted,
  type ResultRow,
  recordsByKind,
  recordsBySource,
  summarize,
  toResultRows,
} from './stats.ts';
import { clearFilter, describeFilters, filterRows, NO_FILTERS, type ResultFilters } from './stats-filters.ts';
import { useWholeProperties } from './whole-rows.ts';

/*
 * The review feature shows records with features/property's badges, record view, formatting and
 * verification tiers: they are the product's shared vocabulary, imported here rather than copied, so a
 * "stale" record means the same thing on every screen.
 */

const PRINTED_AT: Intl.DateTimeFormatOptions = {
  day: 'numeric',
  month: 'long',
  year: 'numeric',
  hour: '2-digit',
  minute: '2-digit',
  timeZoneName: 'short',
};

/** The figures the results view shows, worked out once per set of rows (and "today"). */
function useResultStats(rows: ReviewRowResult[], now: Date) {
  const results = useMemo(() => toResultRows(rows, now), [rows, now]);
  const summary = useMemo(() => summarize(results), [results]);
  const looks = summary.looks;
  // The charts count what the summary counts: rows a reviewer excluded are in the table only.
  const counted = useMemo(
    () => (summary.excluded === 0 ? results : results.filter(isCounted)),
    [results, summary.excluded],
  );
  const histogram = useMemo(() => ageHistogram(counted), [counted]);
  const sourceBars = useMemo(() => recordsBySource(counted), [counted]);
  const kindBars = useMemo(() => recordsByKind(counted, sourceKindText), [counted]);
  const sources = useMemo(() => {
    const counts = new Map<string, number>();
    for (const r of counted) {
      const name = r.row.property ? agencyOf(r.row.property) : undefined;
      if (name !== undefined) counts.set(name, (counts.get(name) ?? 0) + 1);
    }
    return [...counts]
      .map(([name, count]) => ({ name, count }))
      .sort((a, b) => b.count - a.count || a.name.localeCompare(b.name));
  }, [counted]);
  const changed = useMemo(() => rows.filter((r) => r.previous).length, [rows]);
  const decisions = useMemo(() => decisionCounts(results), [results]);
  return { results, looks, summary, histogram, sourceBars, kindBars, sources, changed, decisions };
}

/** The table's filters (the charts set them too), and the rows they let through, a moment behind typing. */
function useResultFilters(results: ResultRow[]) {
  const [filters, setFilters] = useState<ResultFilters>(NO_FILTERS);
  // Typing in the search box stays responsive over 10,000 rows: the table catches up a moment later.
  const deferred = useDeferredValue(filters);
  const filtered = useMemo(() => filterRows(results, deferred), [results, deferred]);
  const patch = useCallback((p: Partial<ResultFilters>) => setFilters((f) => ({ ...f, ...p })), []);
  // The table has not caught up with the filters yet: the status says so rather than a count of the old rows.
  const pending = filters !== deferred;
  return { filters, deferred, setFilters, filtered, patch, pending };
}

/** "All 300 rows." or "42 of 300 rows, filtered by Confidence: High.": what a printed table holds. */
function printScope(filters: ResultFilters, shown: number, total: number): string {
  const chips = describeFilters(filters);
  return chips.length === 0
    ? `All ${formatCount(shown)} rows.`
    : `${formatCount(shown)} of ${formatCount(total)} rows, filtered by ${chips
        .map((c) => c.text)
        .join('; ')}.`;
}

/** The printed page's header: the review, when its rows were retrieved and when it was printed. */
function PrintHeader({ review, retrieved, now }: { review: ReviewSummary; retrieved: string; now: Date }) {
  return (
    <header className="hidden print:block">
      <h1 className="text-xl font-bold">PropLens review: {review.name}</h1>
      <p className="text-sm">{retrieved}</p>
      <p className="text-xs">
        Printed {formatDateTime(now, PRINTED_AT)}. {formatCount(review.totalRows)} rows in the review.
      </p>
      <div className="text-xs">
        {review.signOff ? (
          <SignOffLines signOff={review.signOff} latest={review.runs.at(-1)} />
        ) : (
          <p>Not signed off.</p>
        )}
      </div>
    </header>
  );
}

/*
 * The charts' drawings (recharts: most of this page's code and of its first drawing) come in a chunk of their
 * own (charts/lazy-bars.tsx), and the charts are drawn once every row is in: over a first page of 100 rows they
 * would be wrong, and drawing them cost a 100,000-row review most of its time to the first rows (1.9 s of 2.2 at
 * load 11). Their frames are the page's own, so the drawings' late code moves nothing below them.
 */
/**
 * The results: export and print, the filters and what they let through, the comparison's selection, and
 * the table (every row of it, as text, while printing).
 */
function ResultsSection({
  headingId,
  review,
  rows,
  stats,
  filtering,
  selection,
  table,
  onOpen,
  printing,
  onPrint,
  byIndex,
}: {
  headingId: string;
  review: ReviewSummary;
  rows: ReviewRowResult[];
  stats: ReturnType<typeof useResultStats>;
  filtering: ReturnType<typeof useResultFilters>;
  selection: ReturnType<typeof useRowSelection>;
  byIndex: ReadonlyMap<number, ResultRow>;
  table: ReturnType<typeof useResultsTable>;
  onOpen: (r: ResultRow) => void;
  printing: boolean;
  onPrint: () => void;
}) {
  const { results, looks } = stats;
  const { filters, setFilters, filtered, patch, pending } = filtering;
  const { selected, setSelected, setCompared } = selection;
  return (
    // On a wide screen (from 1536 px) the results take more than the page column (up to 80rem, with a margin of
    // at least 4rem): addresses and sources read whole rather than cut. At 1280 they kept the column's edge, 8 px
    // from the window's, out of line with everything above them.
    <section
      aria-labelledby={headingId}
      className="space-y-3 2xl:mx-[calc(50%-min(50vw-4rem,40rem))] print:mx-0"
    >
      <div className="flex flex-wrap items-center justify-between gap-3">
        <h2 id={headingId} className="text-lg font-semibold">
          Results
        </h2>
        <ExportActions review={review} rowCount={rows.length} onPrint={onPrint} now={() => new Date()} />
      </div>
      <ResultFiltersBar
        filters={filters}
        onChange={patch}
        sources={stats.sources}
        changed={stats.changed}
        looks={looks}
        excluded={stats.summary.excluded}
      />
      <FilterChips
        filters={filters}
        shown={filtered.length}
        total={results.length}
        pending={pending}
        onClear={(key) => setFilters((f) => clearFilter(f, key))}
        onClearAll={() => setFilters(NO_FILTERS)}
      />
      <SelectionBar
        reviewId={review.id}
        selected={selected}
        shown={table.rows}
        byIndex={byIndex}
        onCompare={() => setCompared([...selected].sort((a, b) => a - b))}
        onSelect={setSelected}
        signedOff={Boolean(review.signOff)}
      />
      <ResultsTable
        table={table.table}
        rows={table.rows}
        labelledBy={headingId}
        onOpen={onOpen}
        footer={results.length === 0 ? 'No rows yet.' : undefined}
      />
      {printing ? (
        <PrintTable rows={table.rows} scope={printScope(filters, filtered.length, results.length)} />
      ) : null}
    </section>
  );
}

/** The rows chosen for comparison that have a record, in the order chosen. */
function rowsOf(indexes: readonly number[] | null, byIndex: ReadonlyMap<number, { row: ReviewRowResult }>) {
  return (indexes ?? []).flatMap((i) => {
    const row = byIndex.get(i)?.row;
    return row?.property ? [row] : [];
  });
}

/** The charts once every row is in (`complete`), their drawings' code read as soon as the first rows are drawn. */
function Charts({
  headingId,
  complete,
  shown,
  stats,
  filtering,
}: {
  headingId: string;
  complete: boolean;
  shown: boolean;
  stats: ReturnType<typeof useResultStats>;
  filtering: ReturnType<typeof useResultFilters>;
}) {
  // The drawings' code is read while the rest of the rows come (the page waits on the server then), not after,
  // and once the first rows are drawn, so that reading it never competes with them.
  useEffect(() => {
    if (!shown) return;
    const frame = requestAnimationFrame(() => void loadBars());
    return () => cancelAnimationFrame(frame);
  }, [shown]);
  if (!complete)
    return (
      <ChartsWaiting
        headingId={headingId}
        text="The charts are drawn once every row is in."
        sourceBars={barsShown(stats.sourceBars, stats.kindBars)}
      />
    );
  return (
    <ChartsSection
      headingId={headingId}
      summary={stats.summary}
      histogram={stats.histogram}
      sourceBars={stats.sourceBars}
      kindBars={stats.kindBars}
      filters={filtering.deferred}
      onFilter={filtering.patch}
    />
  );
}

/** Without a live review to show it at once, a fixed row arrives with the server's next event. */
const ignoreFix = () => {};

/** Everything below the progress bar on /review/:id (issue 8 §3-5). */
export function ReviewResults({
  review,
  accountName,
  rows,
  now: fixedNow,
  onRowFixed,
}: {
  review: ReviewSummary;
  /** The signed-in account's name, for "retrieved ... by ...". */
  accountName: string;
  rows: ReviewRowResult[];
  now?: Date;
  /** A row fixed in place from its details (the server's answer): shown at once. */
  onRowFixed?: (row: ReviewRowResult) => void;
}) {
  // Ages count in the reader's calendar days; one "today" per mount keeps every figure consistent.
  const [mountedAt] = useState(() => new Date());
  const now = fixedNow ?? mountedAt;
  const resultsId = useId();
  const stats = useResultStats(rows, now);
  const filtering = useResultFilters(stats.results);
  const selection = useRowSelection();
  const [openIndex, setOpenIndex] = useRowInAddress();
  const open = useCallback((r: { row: ReviewRowResult }) => setOpenIndex(r.row.index), [setOpenIndex]);
  const table = useResultsTable({
    rows: filtering.filtered,
    selected: selection.selected,
    onToggle: selection.toggle,
    onOpen: open,
  });
  const [printing, print] = usePrinting();

  const byIndex = useMemo(() => new Map(stats.results.map((r) => [r.row.index, r])), [stats.results]);
  const openRow = openIndex === null ? undefined : byIndex.get(openIndex);
  // Worked out over every row: not again at a redraw that changed neither.
  const retrieved = useMemo(() => retrievedLine(accountName, rows), [accountName, rows]);

  return (
    <div className="space-y-8">
      <PrintHeader review={review} retrieved={retrieved} now={now} />

      <ReliabilitySummary summary={stats.summary} retrieved={retrieved} decisions={stats.decisions} />

      <SignOffPanel review={review} undecided={stats.decisions.undecided} />

      <Charts
        headingId={`${resultsId}-charts`}
        // Rows still loading (a big review opens on its first page): the charts wait for the rest.
        complete={rows.length >= Math.min(review.receivedRows, review.totalRows)}
        shown={rows.length > 0}
        stats={stats}
        filtering={filtering}
      />

      <ComparedRecords reviewId={review.id} selection={selection} byIndex={byIndex} now={now} />

      <ResultsSection
        headingId={`${resultsId}-results`}
        review={review}
        rows={rows}
        stats={stats}
        filtering={filtering}
        selection={selection}
        table={table}
        onOpen={open}
        printing={printing}
        onPrint={print}
        byIndex={byIndex}
      />

      {openRow ? (
        <RowDetails
          reviewId={review.id}
          result={openRow}
          now={now}
          onClose={() => setOpenIndex(null)}
          onFixed={onRowFixed ?? ignoreFix}
          signedOff={Boolean(review.signOff)}
        />
      ) : null}
    </div>
  );
}

/** The rows being compared, side by side once their whole records are read (the table's rows are brief). */
function ComparedRecords({
  reviewId,
  selection,
  byIndex,
  now,
}: {
  reviewId: string;
  selection: Pick<ReturnType<typeof useRowSelection>, 'compared' | 'setCompared'>;
  byIndex: ReadonlyMap<number, { row: ReviewRowResult }>;
  now: Date;
}) {
  const compared = useWholeProperties(reviewId, rowsOf(selection.compared, byIndex));
  const properties = compared.properties.includes(undefined) ? [] : (compared.properties as Property[]);
  if (properties.length < MIN_COMPARE)
    return <CompareWaiting asked={selection.compared !== null} failed={compared.failed} />;
  return (
    <Comparison properties={properties} now={now} onClose={() => selection.setCompared(null)} focusOnMount />
  );
}

/** Compare selected, while the rows' whole records are read, or when one could not be (hostile review H16b-F5). */
function CompareWaiting({ asked, failed }: { asked: boolean; failed: boolean }) {
  if (!asked) return null;
  return (
    <p role="status" className={failed ? 'text-sm text-red-800' : 'text-sm text-slate-600'}>
      {failed
        ? 'The records to compare could not be read (a row has a new answer, or the connection failed). Select the rows and compare them again.'
        : 'Reading the records to compare…'}
    </p>
  );
}
