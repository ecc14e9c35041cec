import { type KeyboardEvent, type ReactNode, useId, useRef, useState } from 'react';
import {
  Bar,
  BarChart,
  CartesianGrid,
  Cell,
  LabelList,
  Legend,
  ReferenceArea,
  Tooltip,
  useActiveTooltipLabel,
  XAxis,
  YAxis,
} from 'recharts';
import type { Confidence } from '../../../../contract/index.ts';
import { useNarrow, usePrefersDark } from '../../../hooks/use-media-query.ts';
import { AGEING_MAX_DAYS, FRESH_MAX_DAYS, type FreshnessTier } from '../../property/lib/verification.ts';
import {
  AGE_BINS,
  type AgeBin,
  CONFIDENCE_TEXT,
  CONFIDENCES,
  formatShare,
  MAX_NAMED_SOURCES,
  type ReliabilitySummary,
  type SourceBar,
  TIER_TEXT,
  TIERS,
} from './stats.ts';
import type { ResultFilters } from './stats-filters.ts';

/*
 * Three charts of the review's records. Each is a <figure> whose caption says what it shows in a sentence,
 * and whose list of figures below the chart is both its text alternative and the keyboard way to filter
 * the table (the SVG, with recharts' accessibility layer, is focusable too: arrows move between bars and
 * Enter filters to the one shown). A click on a bar filters the table to it.
 */

type Palette = Record<Confidence | FreshnessTier | 'grid' | 'area', string>;
// Tailwind's 600s on white, 400s on slate-900: each at least 3:1 against its background.
const LIGHT: Palette = {
  high: '#059669',
  medium: '#d97706',
  low: '#dc2626',
  fresh: '#0284c7',
  ageing: '#d97706',
  stale: '#dc2626',
  grid: '#e2e8f0',
  area: '#f1f5f9',
};
const DARK: Palette = {
  high: '#34d399',
  medium: '#fbbf24',
  low: '#f87171',
  fresh: '#38bdf8',
  ageing: '#fbbf24',
  stale: '#f87171',
  grid: '#334155',
  area: '#1e293b',
};

export type FilterPatch = Partial<ResultFilters>;

const TICK = { fill: 'currentColor', fontSize: 12 };

/** Reports the bar the chart's keyboard focus (accessibility layer) or pointer is on. */
function ActiveLabel({ onChange }: { onChange: (label: string | undefined) => void }) {
  const label = useActiveTooltipLabel();
  onChange(label === undefined ? undefined : String(label));
  return null;
}

function ChartTooltip({ dark, render }: { dark: boolean; render: (label: string) => ReactNode }) {
  return (
    <Tooltip
      cursor={{ fill: dark ? DARK.area : LIGHT.area }}
      content={({ active, label }) =>
        active && label !== undefined ? (
          <div className="rounded-md border border-slate-200 bg-white px-3 py-2 text-xs text-slate-900 shadow-md dark:border-slate-700 dark:bg-slate-900 dark:text-slate-100">
            {render(String(label))}
          </div>
        ) : null
      }
    />
  );
}

function ChartFigure({
  title,
  caption,
  empty,
  chart,
  onActivate,
  figures,
  controls,
}: {
  title: string;
  caption: string;
  empty: boolean;
  controls?: ReactNode;
  chart: (track: (label: string | undefined) => void) => ReactNode;
  onActivate: (label: string) => void;
  figures: ReactNode;
}) {
  const titleId = useId();
  const active = useRef<string | undefined>(undefined);
  const onKeyDown = (e: KeyboardEvent) => {
    if ((e.key === 'Enter' || e.key === ' ') && active.current !== undefined) {
      e.preventDefault();
      onActivate(active.current);
    }
  };
  return (
    <figure
      aria-labelledby={titleId}
      className="min-w-0 rounded-xl border border-slate-200 bg-white p-4 dark:border-slate-800 dark:bg-slate-900"
    >
      <figcaption>
        <h3 id={titleId} className="text-base font-semibold">
          {title}
        </h3>
        <p className="mt-1 text-sm text-slate-600 dark:text-slate-300">{caption}</p>
      </figcaption>
      {empty ? null : controls}
      {empty ? (
        <p className="mt-4 text-sm text-slate-600 dark:text-slate-300">
          No records yet: the chart fills in as addresses are matched.
        </p>
      ) : (
        <>
          {/* biome-ignore lint/a11y/noStaticElementInteractions: Enter on the chart's focused bar; the list below is the primary keyboard path */}
          <div className="mt-3 text-slate-700 dark:text-slate-200 print:hidden" onKeyDown={onKeyDown}>
            {chart((label) => {
              active.current = label;
            })}
          </div>
          {figures}
        </>
      )}
    </figure>
  );
}

function FilterButton({
  pressed,
  onClick,
  children,
  swatch,
  wide = false,
}: {
  pressed: boolean;
  onClick: () => void;
  children: ReactNode;
  swatch?: string;
  wide?: boolean;
}) {
  return (
    <button
      type="button"
      aria-pressed={pressed}
      onClick={onClick}
      className={`${wide ? 'flex w-full' : 'inline-flex'} min-h-9 items-center gap-2 rounded-md border px-2.5 py-1 text-left text-sm ${
        pressed
          ? 'border-teal-700 bg-teal-50 font-semibold text-teal-900 dark:border-teal-400 dark:bg-teal-950 dark:text-teal-100'
          : 'border-slate-300 bg-white text-slate-800 hover:bg-slate-100 dark:border-slate-600 dark:bg-slate-900 dark:text-slate-100 dark:hover:bg-slate-800'
      }`}
    >
      {swatch ? (
        <span aria-hidden="true" className="size-3 shrink-0 rounded-sm" style={{ background: swatch }} />
      ) : null}
      {children}
    </button>
  );
}

const plural = (n: number, one: string) => `${n.toLocaleString('en-US')} ${one}${n === 1 ? '' : 's'}`;

export function ConfidenceChart({
  summary,
  filters,
  onFilter,
}: {
  summary: ReliabilitySummary;
  filters: ResultFilters;
  onFilter: (patch: FilterPatch) => void;
}) {
  const dark = usePrefersDark();
  const colours = dark ? DARK : LIGHT;
  const data = CONFIDENCES.map((c) => ({
    level: c,
    label: CONFIDENCE_TEXT[c],
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
        <BarChart
          accessibilityLayer
          responsive
          data={data}
          style={{ width: '100%', height: 200 }}
          margin={{ top: 20, right: 8, bottom: 0, left: -16 }}
        >
          <ActiveLabel onChange={track} />
          <CartesianGrid vertical={false} stroke={colours.grid} />
          <XAxis dataKey="label" tick={TICK} tickLine={false} />
          <YAxis allowDecimals={false} tick={TICK} tickLine={false} axisLine={false} />
          <ChartTooltip
            dark={dark}
            render={(label) => {
              const d = data.find((x) => x.label === label);
              return d ? `${d.label} confidence: ${plural(d.count, 'record')}` : label;
            }}
          />
          <Bar
            dataKey="count"
            name="Records"
            cursor="pointer"
            radius={[4, 4, 0, 0]}
            isAnimationActive={false}
            onClick={(_, index) => {
              const d = data[index];
              if (d) toggle(d.level);
            }}
          >
            {data.map((d) => (
              <Cell
                key={d.level}
                fill={colours[d.level]}
                fillOpacity={filters.confidence && filters.confidence !== d.level ? 0.35 : 1}
              />
            ))}
            <LabelList dataKey="count" position="top" fill="currentColor" fontSize={12} />
          </Bar>
        </BarChart>
      )}
      figures={
        <ul aria-label="Confidence mix: show only" className="mt-3 flex flex-wrap gap-2">
          {data.map((d) => (
            <li key={d.level}>
              <FilterButton
                pressed={filters.confidence === d.level}
                onClick={() => toggle(d.level)}
                swatch={colours[d.level]}
              >
                {d.label}: {d.count.toLocaleString('en-US')} ({formatShare(d.count, summary.records)})
              </FilterButton>
            </li>
          ))}
        </ul>
      }
    />
  );
}

const truncate = (s: string, n: number) => (s.length > n ? `${s.slice(0, n - 1)}…` : s);

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
  const dark = usePrefersDark();
  const narrow = useNarrow();
  const colours = dark ? DARK : LIGHT;
  const sourceCount = bySource.reduce((n, b) => n + b.sources.length, 0);
  // Many counties, each its own assessor: by name, most records fold into "other sources"; by kind reads.
  // Until the reviewer picks, this follows the review as its rows arrive (a running review starts small).
  const [chosen, setGroup] = useState<SourceGrouping | null>(null);
  const group = chosen ?? (sourceCount > MAX_NAMED_SOURCES + 1 ? 'kind' : 'source');
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
      onActivate={(label) => {
        const b = bars.find((x) => x.label === label);
        if (b) toggle(b);
      }}
      chart={(track) => (
        <BarChart
          accessibilityLayer
          responsive
          layout="vertical"
          data={bars}
          style={{ width: '100%', height: 56 + bars.length * 34 }}
          margin={{ top: 0, right: 12, bottom: 0, left: 0 }}
          barCategoryGap={6}
        >
          <ActiveLabel onChange={track} />
          <CartesianGrid horizontal={false} stroke={colours.grid} />
          <XAxis type="number" allowDecimals={false} tick={TICK} tickLine={false} />
          <YAxis
            type="category"
            dataKey="label"
            width={narrow ? 104 : 160}
            tick={narrow ? { ...TICK, fontSize: 11 } : TICK}
            tickLine={false}
            tickFormatter={(v: string) => truncate(v, narrow ? 16 : 24)}
            interval={0}
          />
          <ChartTooltip
            dark={dark}
            render={(label) => {
              const b = bars.find((x) => x.label === label);
              return b ? (
                <>
                  <p className="font-semibold">{b.label}</p>
                  <p>
                    {plural(b.total, 'record')}: {b.high} high, {b.medium} medium, {b.low} low
                  </p>
                </>
              ) : (
                label
              );
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
              name={CONFIDENCE_TEXT[c]}
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
                <Cell key={b.label} fillOpacity={filters.source && !isActive(b) ? 0.35 : 1} />
              ))}
            </Bar>
          ))}
        </BarChart>
      )}
      controls={<GroupingSwitch value={group} onChange={setGroup} />}
      figures={
        <ul aria-label="Records by source: show only" className="mt-3 grid gap-2 sm:grid-cols-2">
          {bars.map((b) => (
            <li key={b.label} className="min-w-0">
              <FilterButton pressed={isActive(b)} onClick={() => toggle(b)} wide>
                <span className="min-w-0">
                  <span className="block truncate font-medium">{b.label}</span>
                  <span className="block text-xs">
                    {plural(b.total, 'record')}: {b.high} high, {b.medium} medium, {b.low} low
                  </span>
                </span>
              </FilterButton>
            </li>
          ))}
        </ul>
      }
    />
  );
}

const TIER_RANGE: Record<FreshnessTier, string> = {
  fresh: `up to ${FRESH_MAX_DAYS} days`,
  ageing: `${FRESH_MAX_DAYS + 1}–${AGEING_MAX_DAYS} days`,
  stale: `over ${AGEING_MAX_DAYS} days`,
};

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
  const dark = usePrefersDark();
  const narrow = useNarrow();
  const colours = dark ? DARK : LIGHT;
  const data = histogram.map((h) => ({ ...h.bin, count: h.count }));
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
      chart={(track) => (
        <BarChart
          accessibilityLayer
          responsive
          data={data}
          style={{ width: '100%', height: 220 }}
          margin={{ top: 24, right: 8, bottom: 0, left: -16 }}
          barCategoryGap={4}
        >
          <ActiveLabel onChange={track} />
          {TIERS.map((t) => {
            const bins = AGE_BINS.filter((b) => b.tier === t);
            return (
              <ReferenceArea
                key={t}
                x1={bins[0]?.short}
                x2={bins.at(-1)?.short}
                fill={colours[t]}
                fillOpacity={dark ? 0.12 : 0.08}
                stroke={colours[t]}
                strokeOpacity={0.4}
                strokeDasharray="4 3"
                label={{
                  value: TIER_TEXT[t],
                  position: 'insideTop',
                  fill: 'currentColor',
                  fontSize: 12,
                  dy: -20,
                }}
                ifOverflow="extendDomain"
              />
            );
          })}
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
            dark={dark}
            render={(label) => {
              const d = data.find((x) => x.short === label);
              return d
                ? `Verified ${d.label} ago (${TIER_TEXT[d.tier].toLowerCase()}): ${plural(d.count, 'record')}`
                : label;
            }}
          />
          <Bar
            dataKey="count"
            name="Records"
            cursor="pointer"
            radius={[4, 4, 0, 0]}
            isAnimationActive={false}
            onClick={(_, index) => {
              const bin = AGE_BINS[index];
              if (bin) toggle(bin);
            }}
          >
            {data.map((d) => (
              <Cell
                key={d.id}
                fill={colours[d.tier]}
                fillOpacity={filters.ageBin && filters.ageBin !== d.id ? 0.35 : 1}
              />
            ))}
          </Bar>
        </BarChart>
      )}
      figures={
        <div className="mt-3 space-y-2">
          {TIERS.map((t) => (
            <div key={t} className="flex flex-wrap items-center gap-2">
              <span className="w-full text-xs font-semibold uppercase tracking-wide text-slate-600 sm:w-auto dark:text-slate-300">
                {TIER_TEXT[t]} ({TIER_RANGE[t]})
              </span>
              <ul
                aria-label={`Verification age, ${TIER_TEXT[t].toLowerCase()}: show only`}
                className="contents"
              >
                {data
                  .filter((d) => d.tier === t)
                  .map((d) => (
                    <li key={d.id}>
                      <FilterButton
                        pressed={filters.ageBin === d.id}
                        onClick={() => toggle(d)}
                        swatch={colours[t]}
                      >
                        {d.label}: {d.count.toLocaleString('en-US')}
                      </FilterButton>
                    </li>
                  ))}
              </ul>
            </div>
          ))}
        </div>
      }
    />
  );
}
