import type { ComponentProps } from 'react';
import { BarChart } from 'recharts';
import { ActiveLabel } from './chart-figure.tsx';

/** How opaque a bar is: faded while the table is filtered to another bar of the same chart. */
/** A column chart's one clickable bar of record counts: the same look in every chart. */
export const COUNT_BAR = {
  dataKey: 'count',
  name: 'Records',
  cursor: 'pointer',
  radius: [4, 4, 0, 0] as [number, number, number, number],
  isAnimationActive: false,
} as const;

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
