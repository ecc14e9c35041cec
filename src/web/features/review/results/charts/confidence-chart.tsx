import type { Confidence } from '../../../../../contract/index.ts';
import { formatCount } from '../../../../lib/format.ts';
import { CONFIDENCE_WORD, CONFIDENCES } from '../../../property/index.ts';
import { formatShare, type ReliabilitySummary } from '../stats.ts';
import type { ResultFilters } from '../stats-filters.ts';
import { CONFIDENCE_CHART_HEIGHT, CONFIDENCE_FRAME, type ConfidenceDatum } from './bar-data.ts';
import { ChartFigure, FilterButton, type FilterPatch, plural } from './chart-figure.tsx';
import { ConfidenceBars } from './lazy-bars.tsx';
import { CHART_COLORS } from './palette.ts';

/** The confidence mix as the list of buttons under the chart, each filtering the table to its level. */
function ConfidenceList({
  data,
  records,
  selected,
  toggle,
}: {
  data: ConfidenceDatum[];
  records: number;
  selected: Confidence | null;
  toggle: (c: Confidence) => void;
}) {
  return (
    <ul aria-label="Confidence mix: show only" className="mt-3 flex flex-wrap gap-2">
      {data.map((d) => (
        <li key={d.level}>
          <FilterButton
            pressed={selected === d.level}
            onClick={() => toggle(d.level)}
            swatch={CHART_COLORS[d.level]}
          >
            {d.label}: {formatCount(d.count)} ({formatShare(d.count, records)})
          </FilterButton>
        </li>
      ))}
    </ul>
  );
}

export function ConfidenceChart({
  summary,
  filters,
  onFilter,
}: {
  summary: ReliabilitySummary;
  filters: ResultFilters;
  onFilter: (patch: FilterPatch) => void;
}) {
  const data: ConfidenceDatum[] = CONFIDENCES.map((c) => ({
    level: c,
    label: CONFIDENCE_WORD[c],
    count: summary.confidence[c],
  }));
  const toggle = (c: Confidence) => onFilter({ confidence: filters.confidence === c ? null : c });
  const byLabel = (label: string) => data.find((d) => d.label === label)?.level;
  const caption =
    summary.records === 0
      ? 'How many records are at high, medium and low confidence.'
      : `Of ${plural(summary.records, 'record')}: ${data
          .map((d) => `${d.label.toLowerCase()} ${formatShare(d.count, summary.records)}`)
          .join(', ')}.`;
  return (
    <ChartFigure
      title="Confidence mix"
      caption={caption}
      empty={summary.records === 0}
      height={CONFIDENCE_CHART_HEIGHT}
      frame={CONFIDENCE_FRAME}
      onActivate={(label) => {
        const c = byLabel(label);
        if (c) toggle(c);
      }}
      chart={(track) => (
        <ConfidenceBars data={data} selected={filters.confidence} toggle={toggle} track={track} />
      )}
      figures={
        <ConfidenceList data={data} records={summary.records} selected={filters.confidence} toggle={toggle} />
      }
    />
  );
}
