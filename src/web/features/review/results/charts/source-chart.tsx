import { useId, useState } from 'react';
import type { Confidence } from '../../../../../contract/index.ts';
import { formatShare, MAX_NAMED_SOURCES, type SourceBar } from '../stats.ts';
import type { ResultFilters } from '../stats-filters.ts';
import { sourceChartHeight, sourceFrame } from './bar-data.ts';
import { ChartFigure, FilterButton, type FilterPatch, plural } from './chart-figure.tsx';
import { SourceBars } from './lazy-bars.tsx';
import { SourceBreakdown } from './source-breakdown.tsx';

type SourceGrouping = 'source' | 'kind';

function GroupingSwitch({
  value,
  onChange,
}: {
  value: SourceGrouping;
  onChange: (g: SourceGrouping) => void;
}) {
  const name = useId();
  const options: [SourceGrouping, string][] = [
    ['source', 'Source'],
    ['kind', 'Kind of source'],
  ];
  return (
    <fieldset className="mt-3 flex flex-wrap items-center gap-2 text-sm print:hidden">
      <legend className="float-left mr-1 font-medium">Group by</legend>
      {options.map(([v, text]) => (
        <label
          key={v}
          className={`inline-flex min-h-9 cursor-pointer items-center gap-2 rounded-md border px-3 py-1 has-focus-visible:outline-3 has-focus-visible:outline-teal-600 ${
            value === v
              ? 'border-teal-700 bg-teal-50 font-semibold text-teal-900 dark:border-teal-400 dark:bg-teal-950 dark:text-teal-100'
              : 'border-slate-300 dark:border-slate-600'
          }`}
        >
          <input
            type="radio"
            name={name}
            value={v}
            checked={value === v}
            onChange={() => onChange(v)}
            className="accent-teal-700"
          />
          {text}
        </label>
      ))}
    </fieldset>
  );
}

/** The sources (or kinds) as the list under the chart, each a button filtering the table to it. */
function SourceList({
  bars,
  isActive,
  toggle,
}: {
  bars: SourceBar[];
  isActive: (b: SourceBar) => boolean;
  toggle: (b: SourceBar) => void;
}) {
  return (
    <ul aria-label="Records by source: show only" className="mt-3 grid gap-2 sm:grid-cols-2">
      {bars.map((b) => (
        <li key={b.label} className="min-w-0">
          <FilterButton pressed={isActive(b)} onClick={() => toggle(b)} wide>
            <span className="min-w-0">
              <span className="block truncate font-medium">{b.label}</span>
              <span className="block text-xs">
                <SourceBreakdown bar={b} />
              </span>
            </span>
          </FilterButton>
        </li>
      ))}
    </ul>
  );
}

const countSources = (bySource: readonly SourceBar[]) => bySource.reduce((n, b) => n + b.sources.length, 0);

/** Many counties, each its own assessor: by name, most records fold into "other sources"; by kind reads. */
const groupingFor = (sourceCount: number): SourceGrouping =>
  sourceCount > MAX_NAMED_SOURCES + 1 ? 'kind' : 'source';

/** The bars the chart first shows of these sources (by source, or by kind when there are many). */
export const barsShown = (bySource: readonly SourceBar[], byKind: readonly SourceBar[]): number =>
  (groupingFor(countSources(bySource)) === 'kind' ? byKind : bySource).length;

export function SourceChart({
  bySource,
  byKind,
  records,
  filters,
  onFilter,
}: {
  bySource: SourceBar[];
  byKind: SourceBar[];
  records: number;
  filters: ResultFilters;
  onFilter: (patch: FilterPatch) => void;
}) {
  const sourceCount = countSources(bySource);
  // Until the reviewer picks, this follows the review as its rows arrive (a running review starts small).
  const [chosen, setGroup] = useState<SourceGrouping | null>(null);
  const group = chosen ?? groupingFor(sourceCount);
  const bars = group === 'kind' ? byKind : bySource;
  const isActive = (b: SourceBar) =>
    filters.source?.label === b.label && Boolean(filters.source.byKind) === (group === 'kind');
  const toggle = (b: SourceBar, confidence?: Confidence) =>
    onFilter(
      isActive(b) && (confidence === undefined || filters.confidence === confidence)
        ? { source: null, ...(confidence ? { confidence: null } : {}) }
        : {
            source: { label: b.label, names: b.sources, ...(group === 'kind' ? { byKind: true } : {}) },
            ...(confidence ? { confidence } : {}),
          },
    );
  const top = bars[0];
  const caption =
    records === 0 || !top
      ? 'Which sources the records come from, and at what confidence.'
      : `${plural(sourceCount, 'source')}${
          group === 'kind' ? ` of ${plural(byKind.length, 'kind')}` : ''
        }; the largest ${group === 'kind' ? 'kind' : 'source'}, ${top.label}, gave ${plural(
          top.total,
          'record',
        )} (${formatShare(top.total, records)}).`;
  return (
    <ChartFigure
      title="Records by source"
      caption={caption}
      empty={records === 0}
      height={sourceChartHeight(bars.length)}
      frame={sourceFrame(bars.length)}
      onActivate={(label) => {
        const b = bars.find((x) => x.label === label);
        if (b) toggle(b);
      }}
      chart={(track) => (
        <SourceBars
          bars={bars}
          filtering={Boolean(filters.source)}
          isActive={isActive}
          toggle={toggle}
          track={track}
        />
      )}
      controls={<GroupingSwitch value={group} onChange={setGroup} />}
      figures={<SourceList bars={bars} isActive={isActive} toggle={toggle} />}
    />
  );
}
