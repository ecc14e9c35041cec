import { formatCount } from '../../../../lib/format.ts';
import { AGEING_MAX_DAYS, FRESH_MAX_DAYS, type FreshnessTier } from '../../../property/index.ts';
import { AGE_BINS, type AgeBin, formatShare, type ReliabilitySummary, TIER_TEXT, TIERS } from '../stats.ts';
import type { ResultFilters } from '../stats-filters.ts';
import { AGE_CHART_HEIGHT, AGE_FRAME, type AgeDatum } from './bar-data.ts';
import { ChartFigure, FilterButton, type FilterPatch } from './chart-figure.tsx';
import { AgeBars } from './lazy-bars.tsx';
import { CHART_COLORS } from './palette.ts';

const TIER_RANGE: Record<FreshnessTier, string> = {
  fresh: `up to ${FRESH_MAX_DAYS} days`,
  ageing: `${FRESH_MAX_DAYS + 1}–${AGEING_MAX_DAYS} days`,
  stale: `over ${AGEING_MAX_DAYS} days`,
};

/** The histogram as the lists under the chart, one per tier, each bin a button filtering the table to it. */
function AgeList({
  data,
  selected,
  toggle,
}: {
  data: AgeDatum[];
  selected: AgeBin['id'] | null;
  toggle: (bin: AgeBin) => void;
}) {
  return (
    <div className="mt-3 space-y-2">
      {TIERS.map((t) => (
        <div key={t} className="flex flex-wrap items-center gap-2">
          <span className="w-full text-xs font-semibold uppercase tracking-wide text-slate-600 sm:w-auto dark:text-slate-300">
            {TIER_TEXT[t]} ({TIER_RANGE[t]})
          </span>
          <ul aria-label={`Verification age, ${TIER_TEXT[t].toLowerCase()}: show only`} className="contents">
            {data
              .filter((d) => d.tier === t)
              .map((d) => (
                <li key={d.id}>
                  <FilterButton
                    pressed={selected === d.id}
                    onClick={() => toggle(d)}
                    swatch={CHART_COLORS[t]}
                  >
                    {d.label}: {formatCount(d.count)}
                  </FilterButton>
                </li>
              ))}
          </ul>
        </div>
      ))}
    </div>
  );
}

export function AgeChart({
  histogram,
  summary,
  filters,
  onFilter,
}: {
  histogram: { bin: AgeBin; count: number }[];
  summary: ReliabilitySummary;
  filters: ResultFilters;
  onFilter: (patch: FilterPatch) => void;
}) {
  const data: AgeDatum[] = histogram.map((h) => ({ ...h.bin, count: h.count }));
  const toggle = (bin: AgeBin) => onFilter({ ageBin: filters.ageBin === bin.id ? null : bin.id });
  const caption =
    summary.records === 0
      ? 'How long ago the records were last verified.'
      : `${TIERS.map((t) => `${TIER_TEXT[t]} (${TIER_RANGE[t]}): ${formatShare(summary.tiers[t], summary.records)}`).join('; ')}.`;
  return (
    <ChartFigure
      title="Verification age"
      caption={caption}
      empty={summary.records === 0}
      height={AGE_CHART_HEIGHT}
      frame={AGE_FRAME}
      onActivate={(label) => {
        const bin = AGE_BINS.find((b) => b.short === label);
        if (bin) toggle(bin);
      }}
      chart={(track) => <AgeBars data={data} selected={filters.ageBin} toggle={toggle} track={track} />}
      figures={<AgeList data={data} selected={filters.ageBin} toggle={toggle} />}
    />
  );
}
