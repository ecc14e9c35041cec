import { type ComponentProps, type ReactNode, useEffect } from 'react';
import { BarChart, Tooltip, useActiveTooltipLabel } from 'recharts';
import { CHART_COLORS } from './palette.ts';

/**
 * Reports the bar the chart's keyboard focus (accessibility layer) or pointer is on: after render, never during
 * it (a parent's callback in render would update another component mid-render).
 */
export function ActiveLabel({ onChange }: { onChange: (label: string | undefined) => void }) {
  const label = useActiveTooltipLabel();
  const text = label === undefined ? undefined : String(label);
  useEffect(() => onChange(text), [onChange, text]);
  return null;
}

export function ChartTooltip({ render }: { render: (label: string) => ReactNode }) {
  return (
    <Tooltip
      cursor={{ fill: CHART_COLORS.area }}
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

/** A column chart's one clickable bar of record counts: the same look in every chart. */
export const COUNT_BAR = {
  dataKey: 'count',
  name: 'Records',
  cursor: 'pointer',
  radius: [4, 4, 0, 0] as [number, number, number, number],
  isAnimationActive: false,
} as const;

/** How opaque a bar is: faded while the table is filtered to another bar of the same chart. */
export const barOpacity = (filtering: boolean, selected: boolean) => (filtering && !selected ? 0.35 : 1);

/**
 * A figure's bar chart: recharts' accessibility layer on, sized to its box, and reporting the bar its focus or
 * pointer is on to `track` (ChartFigure's Enter to filter).
 */
export function TrackedBarChart({
  track,
  children,
  ...props
}: Omit<ComponentProps<typeof BarChart>, 'accessibilityLayer' | 'responsive'> & {
  track: (label: string | undefined) => void;
}) {
  return (
    <BarChart accessibilityLayer responsive {...props}>
      <ActiveLabel onChange={track} />
      {children}
    </BarChart>
  );
}
