import { Bar, CartesianGrid, Cell, LabelList, Legend, ReferenceArea, XAxis, YAxis } from 'recharts';
import type { Confidence } from '../../../../../contract/index.ts';
import { useMediaQuery, useNarrow } from '../../../../hooks/use-media-query.ts';
import { CONFIDENCE_WORD, CONFIDENCES, type FreshnessTier } from '../../../property/index.ts';
import { AGE_BINS, type AgeBin, type SourceBar, TIER_TEXT, TIERS } from '../stats.ts';
import {
  AGE_CHART_HEIGHT,
  type AgeDatum,
  CONFIDENCE_CHART_HEIGHT,
  type ConfidenceDatum,
  sourceChartHeight,
} from './bar-data.ts';
import { plural, TICK } from './chart-figure.tsx';
import { BAND_OPACITY, CHART_COLORS } from './palette.ts';
import { SourceBreakdown } from './source-breakdown.tsx';
import { barOpacity, ChartTooltip, COUNT_BAR, TrackedBarChart } from './tracked-bar-chart.tsx';

/*
 * The charts' drawings (recharts), read apart from the page's code once the first rows are drawn
 * (lazy-bars.tsx); their frames, captions and lists (the keyboard's way to filter) are drawn with the page.
 */

const truncate = (s: string, n: number) => (s.length > n ? `${s.slice(0, n - 1)}…` : s);

/** The confidence mix: a column per level, its count on top. */
export function ConfidenceBars({
  data,
  selected,
  toggle,
  track,
}: {
  data: ConfidenceDatum[];
  selected: Confidence | null;
  toggle: (c: Confidence) => void;
  track: (label: string | undefined) => void;
}) {
  const colours = CHART_COLORS;
  return (
    <TrackedBarChart
      track={track}
      data={data}
      style={{ width: '100%', height: CONFIDENCE_CHART_HEIGHT }}
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
            fillOpacity={barOpacity(Boolean(selected), selected === d.level)}
          />
        ))}
        <LabelList dataKey="count" position="top" fill="currentColor" fontSize={12} />
      </Bar>
    </TrackedBarChart>
  );
}

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
export function AgeBars({
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
      style={{ width: '100%', height: AGE_CHART_HEIGHT }}
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

/** The tooltip over a bar: the source's (or kind's) name and its confidence mix. */
function SourceTip({ bar }: { bar: SourceBar }) {
  return (
    <>
      <p className="font-semibold">{bar.label}</p>
      <p>
        <SourceBreakdown bar={bar} />
      </p>
    </>
  );
}

/** The records by source (or kind) as horizontal bars, each stacked by confidence. */
export function SourceBars({
  bars,
  filtering,
  isActive,
  toggle,
  track,
}: {
  bars: SourceBar[];
  /** Whether the table is filtered to a source, fading the other bars. */
  filtering: boolean;
  isActive: (b: SourceBar) => boolean;
  toggle: (b: SourceBar, confidence?: Confidence) => void;
  track: (label: string | undefined) => void;
}) {
  const narrow = useNarrow();
  // From 1024 px the chart spans the page: room for most agencies' whole names ("Travis Central Appraisal District").
  const wide = useMediaQuery('(min-width: 1024px)');
  const colours = CHART_COLORS;
  return (
    <TrackedBarChart
      track={track}
      layout="vertical"
      data={bars}
      style={{ width: '100%', height: sourceChartHeight(bars.length) }}
      margin={{ top: 0, right: 12, bottom: 0, left: 0 }}
      barCategoryGap={6}
    >
      <CartesianGrid horizontal={false} stroke={colours.grid} />
      <XAxis type="number" allowDecimals={false} tick={TICK} tickLine={false} />
      <YAxis
        type="category"
        dataKey="label"
        width={narrow ? 104 : wide ? 256 : 160}
        tick={narrow ? { ...TICK, fontSize: 11 } : TICK}
        tickLine={false}
        tickFormatter={(v: string) => truncate(v, narrow ? 16 : wide ? 40 : 24)}
        interval={0}
      />
      <ChartTooltip
        render={(label) => {
          const b = bars.find((x) => x.label === label);
          return b ? <SourceTip bar={b} /> : label;
        }}
      />
      <Legend
        verticalAlign="bottom"
        height={28}
        wrapperStyle={{ fontSize: 12 }}
        itemSorter={null}
        // The swatch carries the colour; the words stay in the text colour, readable on either theme.
        formatter={(value) => <span className="text-slate-700 dark:text-slate-200">{value}</span>}
      />
      {CONFIDENCES.map((c, i) => (
        <Bar
          key={c}
          dataKey={c}
          name={CONFIDENCE_WORD[c]}
          stackId="confidence"
          fill={colours[c]}
          cursor="pointer"
          isAnimationActive={false}
          radius={i === CONFIDENCES.length - 1 ? [0, 4, 4, 0] : undefined}
          onClick={(_, index) => {
            const b = bars[index];
            if (b) toggle(b, c);
          }}
        >
          {bars.map((b) => (
            <Cell key={b.label} fillOpacity={barOpacity(filtering, isActive(b))} />
          ))}
        </Bar>
      ))}
    </TrackedBarChart>
  );
}
