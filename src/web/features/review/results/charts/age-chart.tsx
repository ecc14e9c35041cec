import { Bar, CartesianGrid, Cell, ReferenceArea, XAxis, YAxis } from 'recharts';
import { useNarrow } from '../../../../hooks/use-media-query.ts';
import { formatCount } from '../../../../lib/format.ts';
import { AGEING_MAX_DAYS, FRESH_MAX_DAYS, type FreshnessTier } from '../../../property/index.ts';
import { AGE_BINS, type AgeBin, formatShare, type ReliabilitySummary, TIER_TEXT, TIERS } from '../stats.ts';
import type { ResultFilters } from '../stats-filters.ts';
import { ChartFigure, ChartTooltip, FilterButton, type FilterPatch, plural, TICK } from './chart-figure.tsx';
import { BAND_OPACITY, CHART_COLORS } from './palette.ts';
import { barOpacity, COUNT_BAR, TrackedBarChart } from './tracked-bar-chart.tsx';

const TIER_RANGE: Record<FreshnessTier, string> = {
  fresh: `up to ${FRESH_MAX_DAYS} days`,
  ageing: `${FRESH_MAX_DAYS + 1}–${AGEING_MAX_DAYS} days`,
  stale: `over ${AGEING_MAX_DAYS} days`,
};

type AgeDatum = AgeBin & { count: number };

/** A freshness tier's tinted, labelled band behind its bars. */
function TierBand({ tier }: { tier: FreshnessTier }) {
  const colours = CHART_COLORS;
  const bins = AGE_BINS.filter((b) => b.tier === tier);
  return (
    <ReferenceArea
      x1={bins[0]?.short}
      x2={bins.at(-1)?.short}
      fill={colours[tier]}
      fillOpacity={BAND_OPACITY}
      stroke={colours[tier]}
      strokeOpacity={0.4}
      strokeDasharray="4 3"
      label={{
        value: TIER_TEXT[tier],
        position: 'insideTop',
        fill: 'currentColor',
        fontSize: 12,
        dy: -20,
      }}
      ifOverflow="extendDomain"
    />
  );
}

/** The verification-age histogram: a bar per age bin, coloured by tier, over the tiers' bands. */
function AgeBars({
  data,
  selected,
  toggle,
  track,
}: {
  data: AgeDatum[];
  selected: AgeBin['id'] | null;
  toggle: (bin: AgeBin) => void;
  track: (label: string | undefined) => void;
}) {
  const narrow = useNarrow();
  const colours = CHART_COLORS;
  return (
    <TrackedBarChart
      track={track}
      data={data}
      style={{ width: '100%', height: 220 }}
      margin={{ top: 24, right: 8, bottom: 0, left: -16 }}
      barCategoryGap={4}
    >
      {TIERS.map((t) => (
        <TierBand key={t} tier={t} />
      ))}
      <CartesianGrid vertical={false} stroke={colours.grid} />
      <XAxis
        dataKey="short"
        tick={{ ...TICK, fontSize: 11 }}
        tickLine={false}
        interval={0}
        angle={narrow ? -40 : 0}
        textAnchor={narrow ? 'end' : 'middle'}
        height={narrow ? 48 : 30}
      />
      <YAxis allowDecimals={false} tick={TICK} tickLine={false} axisLine={false} />
      <ChartTooltip
        render={(label) => {
          const d = data.find((x) => x.short === label);
          return d
            ? `Verified ${d.label} ago (${TIER_TEXT[d.tier].toLowerCase()}): ${plural(d.count, 'record')}`
            : label;
        }}
      />
      <Bar
        {...COUNT_BAR}
        onClick={(_, index) => {
          const bin = AGE_BINS[index];
          if (bin) toggle(bin);
        }}
      >
        {data.map((d) => (
          <Cell
            key={d.id}
            fill={colours[d.tier]}
            fillOpacity={barOpacity(Boolean(selected), selected === d.id)}
          />
        ))}
      </Bar>
    </TrackedBarChart>
  );
}

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
      onActivate={(label) => {
        const bin = AGE_BINS.find((b) => b.short === label);
        if (bin) toggle(bin);
      }}
      chart={(track) => <AgeBars data={data} selected={filters.ageBin} toggle={toggle} track={track} />}
      figures={<AgeList data={data} selected={filters.ageBin} toggle={toggle} />}
    />
  );
}
