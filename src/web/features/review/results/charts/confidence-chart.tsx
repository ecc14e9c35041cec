import { Bar, CartesianGrid, Cell, LabelList, XAxis, YAxis } from 'recharts';
import type { Confidence } from '../../../../../contract/index.ts';
import { formatCount } from '../../../../lib/format.ts';
import { CONFIDENCE_WORD, CONFIDENCES } from '../../../property/index.ts';
import { formatShare, type ReliabilitySummary } from '../stats.ts';
import type { ResultFilters } from '../stats-filters.ts';
import { ChartFigure, ChartTooltip, FilterButton, type FilterPatch, plural, TICK } from './chart-figure.tsx';
import { CHART_COLORS } from './palette.ts';
import { barOpacity, COUNT_BAR, TrackedBarChart } from './tracked-bar-chart.tsx';

type ConfidenceDatum = { level: Confidence; label: string; count: number };

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
  const colours = CHART_COLORS;
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
      onActivate={(label) => {
        const c = byLabel(label);
        if (c) toggle(c);
      }}
      chart={(track) => (
        <TrackedBarChart
          track={track}
          data={data}
          style={{ width: '100%', height: 200 }}
          margin={{ top: 20, right: 8, bottom: 0, left: -16 }}
        >
          <CartesianGrid vertical={false} stroke={colours.grid} />
          <XAxis dataKey="label" tick={TICK} tickLine={false} />
          <YAxis allowDecimals={false} tick={TICK} tickLine={false} axisLine={false} />
          <ChartTooltip
            render={(label) => {
              const d = data.find((x) => x.label === label);
              return d ? `${d.label} confidence: ${plural(d.count, 'record')}` : label;
            }}
          />
          <Bar
            {...COUNT_BAR}
            onClick={(_, index) => {
              const d = data[index];
              if (d) toggle(d.level);
            }}
          >
            {data.map((d) => (
              <Cell
                key={d.level}
                fill={colours[d.level]}
                fillOpacity={barOpacity(Boolean(filters.confidence), filters.confidence === d.level)}
              />
            ))}
            <LabelList dataKey="count" position="top" fill="currentColor" fontSize={12} />
          </Bar>
        </TrackedBarChart>
      )}
      figures={
        <ConfidenceList data={data} records={summary.records} selected={filters.confidence} toggle={toggle} />
      }
    />
  );
}
